"""The legal-move protocol (issue 34): each turn's schemas admit exactly the legal moves, so a
model held to them cannot make a protocol error; the trial's order of sources and enum values."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from heedful.bench.agents.advice import Advisor
from heedful.bench.agents.env import TrialEnv
from heedful.bench.score.scoring import ScenarioOracle, TrialWorld
from heedful.bench.views import policy_view
from heedful.bench.worlds.families import family_names, generate_family
from heedful.model import Scenario, scenario_from_dict


def _env(
    sc: Scenario,
    *,
    adaptive: bool,
    advised: bool = False,
    legal: bool = True,
    order: int | None = 0,
) -> TrialEnv:
    oracle = ScenarioOracle.prepare(sc, adaptive=False)
    world = TrialWorld.draw(oracle, np.random.default_rng(5))
    view = policy_view(sc)
    return TrialEnv(
        view,
        world.observation,
        {sid: t.render for sid, t in sc.truth.sources.items()},
        adaptive=adaptive,
        advisor=Advisor(view, np.random.default_rng(0)) if advised else None,
        reveals=sc.reveals(),
        legal_moves=legal,
        order=None if order is None else np.random.default_rng(order),
    )


def _instance(schema: dict[str, Any], rng: np.random.Generator) -> Any:
    """A random JSON value the schema admits (the subset the tool schemas use): what a model
    held to the schema by a grammar could send."""
    if "enum" in schema:
        return schema["enum"][int(rng.integers(len(schema["enum"])))]
    if schema.get("type") == "array":
        values = list(schema["items"]["enum"])
        most = min(schema.get("maxItems", len(values)), len(values))
        n = int(rng.integers(most + 1))
        picked = [values[i] for i in sorted(rng.choice(len(values), size=n, replace=False))]
        return picked
    props: dict[str, Any] = schema.get("properties", {})
    required = schema.get("required", [])
    out = {}
    for key, sub in props.items():
        if key in required or rng.random() < 0.5:
            out[key] = _instance(sub, rng)
    return out


def _scenarios() -> list[Scenario]:
    out = []
    for family in family_names():
        out += generate_family(family, 3, seed=1)
    return out


@pytest.mark.parametrize("adaptive", [True, False])
@pytest.mark.parametrize("advised", [False, True])
def test_a_model_held_to_the_offered_schemas_never_makes_a_protocol_error(
    adaptive: bool, advised: bool
) -> None:
    rng = np.random.default_rng(11)
    scenarios = _scenarios()
    assert any(sc.reveals() for sc in scenarios)  # hidden sources are among the cases
    for sc in scenarios:
        for _ in range(3):
            env = _env(sc, adaptive=adaptive, advised=advised, order=int(rng.integers(1 << 30)))
            # Inspections are bounded by the budget and advice by the reads between two asks,
            # so a random legal player decides within this many turns.
            limit = 2 * (sc.view.budget + len(sc.reveals()) + 1) + 2
            for _turn in range(limit):
                offered = env.offered_tools
                tool = offered[int(rng.integers(len(offered)))]
                reply = env.call(tool.name, json.dumps(_instance(tool.parameters, rng)))
                assert not reply.error or "failed" in reply.text, (sc.id, tool.name, reply.text)
                if env.done:
                    break
            assert env.done, sc.id
            assert env.transcript.protocol_error is None, (sc.id, env.transcript.protocol_error)
            assert env.transcript.action is not None


def test_once_the_budget_is_used_only_decide_is_offered(tiny_raw: dict[str, Any]) -> None:
    env = _env(scenario_from_dict(tiny_raw), adaptive=True, advised=True)
    assert {t.name for t in env.offered_tools} == {"inspect_source", "decide", "attention_next"}
    first = env.offered_tools[0].parameters["properties"]["source_id"]["enum"][0]
    env.call("inspect_source", {"source_id": first})
    assert [t.name for t in env.offered_tools] == ["decide"]  # budget 1: nothing else is legal


def test_a_read_source_leaves_the_enum_and_advice_waits_for_a_new_read() -> None:
    (sc,) = generate_family("G", 1, seed=0)
    env = _env(sc, adaptive=True, advised=True)
    env.call("attention_next", {})
    assert "attention_next" not in {t.name for t in env.offered_tools}  # same reads: same answer
    ids = env.offered_tools[0].parameters["properties"]["source_id"]["enum"]
    env.call("inspect_source", {"source_id": ids[0]})
    offered = {t.name: t.parameters for t in env.offered_tools}
    assert ids[0] not in offered["inspect_source"]["properties"]["source_id"]["enum"]
    assert "attention_next" in offered


def test_after_a_plan_only_decide_is_offered_unless_it_revealed_sources() -> None:
    (sc,) = generate_family("G", 1, seed=0)
    env = _env(sc, adaptive=False)
    plan = env.offered_tools[0]
    assert plan.name == "plan_inspections"
    assert plan.parameters["properties"]["source_ids"]["maxItems"] == sc.view.budget
    env.call("plan_inspections", {"source_ids": []})
    assert [t.name for t in env.offered_tools] == ["decide"]


def test_a_plan_that_revealed_sources_may_be_followed_by_one_for_them_only() -> None:
    sc = next(s for s in _scenarios() if s.reveals())
    revealer = next(iter(sc.reveals()))
    env = _env(sc, adaptive=False)
    env.call("plan_inspections", {"source_ids": [revealer]})
    if sc.view.budget > 1:
        plan = next(t for t in env.offered_tools if t.name == "plan_inspections")
        hidden = {h.id for h in sc.reveals()[revealer]}
        assert set(plan.parameters["properties"]["source_ids"]["items"]["enum"]) == hidden
        assert plan.parameters["properties"]["source_ids"]["maxItems"] == sc.view.budget - 1


@pytest.mark.parametrize(
    ("calls", "code"),
    [
        ([("plan_inspections", {"source_ids": []})] * 2, "repeated_plan"),
        ([("inspect_source", {"source_id": "SRC0"})] * 2, "repeated_source"),
        ([("inspect_source", {"source_id": f"SRC{i}"}) for i in range(3)], "over_budget"),
        ([("inspect_source", {"source_id": "nope"})], "unknown_source"),
    ],
)  # fmt: skip
def test_an_endpoint_that_ignores_the_schema_still_gets_every_error_code(
    calls: list[tuple[str, dict[str, Any]]], code: str
) -> None:
    (sc,) = generate_family("B", 1, seed=0)
    assert sc.view.budget == 2 and len(sc.view.sources) >= 3
    ids = list(sc.view.source_ids)
    env = _env(sc, adaptive=calls[0][0] == "inspect_source")
    for name, args in calls:
        text = json.dumps(args)
        for i, sid in enumerate(ids):
            text = text.replace(f'"SRC{i}"', json.dumps(sid))
        env.call(name, text)
    assert (env.transcript.protocol_error or "").startswith(code)


def test_the_order_of_sources_and_enums_is_drawn_per_trial_and_matches_the_prompt() -> None:
    (sc,) = generate_family("G", 1, seed=0)
    orders = set()
    for seed in range(8):
        env = _env(sc, adaptive=True, order=seed)
        enum = env.tools[0].parameters["properties"]["source_id"]["enum"]
        assert [s.id for s in env.prompt_view.sources] == enum
        decide = next(t for t in env.tools if t.name == "decide").parameters["properties"]
        assert list(env.prompt_view.actions) == decide["action"]["enum"]
        for var, schema in decide["beliefs"]["properties"].items():
            assert list(env.prompt_view.variables[var].domain) == schema["enum"]
        assert sorted(enum) == sorted(sc.view.source_ids)
        orders.add(tuple(enum))
    assert len(orders) > 1  # not the file order every time
    same = [_env(sc, adaptive=True, order=3).tools[0].parameters for _ in range(2)]
    assert same[0] == same[1]  # the same trial seed: the same order
    plain = _env(sc, adaptive=True, order=None).tools[0].parameters
    assert plain["properties"]["source_id"]["enum"] == list(sc.view.source_ids)


def test_without_legal_moves_the_full_tools_are_offered_every_turn(
    tiny_raw: dict[str, Any],
) -> None:
    env = _env(scenario_from_dict(tiny_raw), adaptive=True, legal=False)
    first = env.tools[0].parameters["properties"]["source_id"]["enum"][0]
    env.call("inspect_source", {"source_id": first})
    assert env.offered_tools == env.tools
