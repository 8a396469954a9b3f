"""The agent's tool environment: schemas, protocol errors, production validator, advice."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from heedful.bench.agents.advice import Advisor
from heedful.bench.agents.contract import AgentConfig, agent_names, is_agent
from heedful.bench.agents.env import TrialEnv, render_observation, tool_schema_hash
from heedful.bench.policy import Observation
from heedful.bench.results import Violation
from heedful.bench.score.scoring import ScenarioOracle, TrialWorld
from heedful.bench.views import policy_view
from heedful.model import Scenario, scenario_from_dict

_BASE: dict[str, Any] = {}


@pytest.fixture(autouse=True)
def _base(tiny_raw: dict[str, Any]) -> None:
    _BASE.clear()
    _BASE.update(tiny_raw)


def _scenario(**overrides: Any) -> Scenario:
    raw = json.loads(json.dumps({**_BASE, **overrides}))
    raw["sources"][2]["render"] = "Probe says the service is up={up}"
    return scenario_from_dict(raw)


def _env(
    adaptive: bool = True, mode: str = "attention", advised: bool = False, **kw: Any
) -> tuple[TrialEnv, TrialWorld, Scenario]:
    sc = _scenario(**kw)
    oracle = ScenarioOracle.prepare(sc, adaptive=adaptive)
    world = TrialWorld.draw(oracle, np.random.default_rng(3))
    renders = {sid: t.render for sid, t in sc.truth.sources.items()}
    view = policy_view(sc)
    advisor = Advisor(view, np.random.default_rng(0)) if advised else None
    env = TrialEnv(
        view,
        world.observation,
        renders,
        adaptive=adaptive,
        mode=mode,  # type: ignore[arg-type]
        advisor=advisor,
    )
    return env, world, sc


def _params(env: TrialEnv, name: str) -> dict[str, Any]:
    return next(t.parameters for t in env.tools if t.name == name)


def test_every_id_in_the_tool_schemas_is_an_enum() -> None:
    env, _, sc = _env()
    assert _params(env, "inspect_source")["properties"]["source_id"]["enum"] == list(
        sc.view.source_ids
    )
    decide = _params(env, "decide")["properties"]
    assert decide["action"]["enum"] == ["ship", "hold"]
    assert decide["beliefs"]["properties"]["up"]["enum"] == ["yes", "no"]
    static, _, _ = _env(adaptive=False)
    plan = _params(static, "plan_inspections")["properties"]["source_ids"]
    assert plan["maxItems"] == 1 and plan["items"]["enum"] == list(sc.view.source_ids)
    assert {t.name for t in static.tools} == {"plan_inspections", "decide"}


def test_inspection_returns_the_rendered_observation() -> None:
    env, world, _ = _env()
    reply = env.call("inspect_source", json.dumps({"source_id": "probe"}))
    value = world.observation("probe").values["up"]  # type: ignore[index]
    assert not reply.error and reply.text == f"Probe says the service is up={value}"
    assert [o.source_id for o in env.transcript.history] == ["probe"]
    assert env.transcript.protocol_error is None


def test_default_render_names_label_variable_and_value() -> None:
    obs = Observation("s", values={"up": "yes"})
    assert render_observation("live probe", None, obs) == "live probe: up = yes"
    assert render_observation("x", None, Observation("s", values={})).endswith(
        "nothing relevant reported"
    )


def test_over_budget_is_a_tool_error_and_flags_the_trial() -> None:
    env, _, _ = _env()
    env.call("inspect_source", {"source_id": "probe"})
    reply = env.call("inspect_source", {"source_id": "summary"})
    assert reply.error and "budget" in reply.text
    assert env.transcript.protocol_error == "over_budget"
    assert env.transcript.violation is Violation.OVER_BUDGET
    assert len(env.transcript.history) == 1


@pytest.mark.parametrize(
    ("name", "args", "reason"),
    [
        ("inspect_source", '{"source_id": "nope"}', "unknown_source"),
        ("inspect_source", "{not json", "malformed_arguments"),
        ("inspect_source", "[1, 2]", "malformed_arguments"),
        ("teleport", "{}", "unknown_tool"),
        ("decide", '{"action": "launch", "beliefs": {}}', "malformed_arguments"),
        ("decide", '{"action": "ship", "beliefs": {"up": "maybe"}}', "malformed_arguments"),
        ("attention_next", "{}", "unknown_tool"),
    ],
)
def test_bad_calls_are_tool_errors_never_exceptions(name: str, args: str, reason: str) -> None:
    env, _, _ = _env()
    reply = env.call(name, args)
    assert reply.error and reply.text.startswith("error:")
    assert env.transcript.protocol_error == reason
    assert not env.done


def test_a_repeated_source_is_refused() -> None:
    env, _, _ = _env(budget=2)
    env.call("inspect_source", {"source_id": "probe"})
    assert env.call("inspect_source", {"source_id": "probe"}).error
    assert env.transcript.violation is Violation.REPEATED_SOURCE


def test_static_plan_returns_everything_once() -> None:
    env, _, _ = _env(adaptive=False, budget=2)
    reply = env.call("plan_inspections", {"source_ids": ["probe", "summary"]})
    assert reply.text.count("\n") == 1 and "[probe]" in reply.text
    assert env.call("plan_inspections", {"source_ids": []}).error
    assert env.transcript.protocol_error == "repeated_plan"


def test_decide_ends_the_trial_with_action_and_beliefs() -> None:
    env, _, _ = _env()
    reply = env.call("decide", {"action": "hold", "beliefs": {"up": "no"}})
    assert not reply.error and env.done
    assert env.transcript.action == "hold" and env.transcript.beliefs == {"up": "no"}
    assert env.call("decide", {"action": "ship", "beliefs": {}}).error


def test_attention_mode_never_blocks_decide() -> None:
    env, _, _ = _env(mode="attention")
    assert not env.call("decide", {"action": "ship", "beliefs": {"up": "no"}}).error
    assert not env.transcript.validator_blocked and env.transcript.forced == []


def test_production_blocks_stale_belief_and_forces_the_authoritative_read() -> None:
    env, _world, _ = _env(mode="production")
    reply = env.call("decide", {"action": "ship", "beliefs": {"up": "no"}})
    assert reply.error and "claim validator" in reply.text and "probe" in reply.text
    assert env.transcript.validator_blocked and not env.done
    assert [o.source_id for o in env.transcript.forced] == ["probe"]
    assert env.transcript.history == []  # a forced read is never spontaneous
    assert not env.call("decide", {"action": "hold", "beliefs": {"up": "no"}}).error
    assert env.done


def test_production_accepts_a_fresh_authoritative_read() -> None:
    env, _, _ = _env(mode="production")
    env.call("inspect_source", {"source_id": "probe"})
    assert not env.call("decide", {"action": "hold", "beliefs": {}}).error
    assert not env.transcript.validator_blocked


def test_advice_names_the_controllers_next_read_then_says_decide() -> None:
    env, _, _ = _env(advised=True)
    first = env.call("attention_next", {}).text
    assert first.startswith("Inspect probe next")
    env.call("inspect_source", {"source_id": "probe"})
    assert "decide now" in env.call("attention_next", {}).text


def test_static_advice_is_a_whole_plan() -> None:
    env, _, _ = _env(adaptive=False, advised=True)
    assert env.call("attention_next", {}).text.startswith("Inspect: probe")


def test_turn_limit_config_is_validated() -> None:
    with pytest.raises(ValueError):
        AgentConfig(max_turns=0)


def test_builtin_agents_are_known_without_importing_them() -> None:
    assert {"llm", "llm-advised"} <= set(agent_names())
    assert is_agent("llm") and not is_agent("voc")


def test_tool_schema_hash_is_stable() -> None:
    assert tool_schema_hash() == tool_schema_hash() and len(tool_schema_hash()) == 64


_VALID_ARGS: dict[str, dict[str, Any]] = {
    "inspect_source": {"source_id": "s0"},
    "plan_inspections": {"source_ids": ["s0"]},
    "decide": {"action": "ship", "beliefs": {}},
    "attention_next": {},
}


@pytest.mark.parametrize("adaptive", [True, False])
def test_an_unknown_argument_is_named_whatever_the_tool(adaptive: bool) -> None:
    # `decide` with an extra field said "action must be one of ship, hold, got 'ship'".
    env, _, _ = _env(adaptive=adaptive, advised=True)
    for tool in [t.name for t in env.tools]:
        args = {**_VALID_ARGS[tool], "notes": "x"}
        reply = env.call(tool, args)
        assert reply.error and "unknown argument 'notes'" in reply.text, (tool, reply.text)
        assert "must be one of" not in reply.text
    assert not env.done


def test_a_missing_argument_is_named() -> None:
    env, _, _ = _env()
    reply = env.call("decide", {"beliefs": {}})
    assert reply.error and "missing argument 'action'" in reply.text


def test_production_never_forces_a_read_that_cannot_meet_its_own_age_rule() -> None:
    # The only authoritative source is 3 h old: a read of it cannot satisfy "≤ 300 s", and a
    # stale forced read would flip the agent's belief on stale state (issue 22, h10).
    raw = json.loads(json.dumps(_BASE))
    raw["sources"][2]["age_s"] = 10_800
    env, _, _ = _env(mode="production", sources=raw["sources"])
    reply = env.call("decide", {"action": "ship", "beliefs": {"up": "no"}})
    assert reply.error and "no source can satisfy the rule" in reply.text
    assert env.transcript.forced == [] and not env.done
    # Told once why it blocks; the second decide goes through.
    assert not env.call("decide", {"action": "hold", "beliefs": {"up": "no"}}).error
    assert env.done and env.transcript.forced == []


def test_a_decision_that_states_no_belief_about_what_it_read_fails_evidence_use() -> None:
    from heedful.bench.agents.contract import CallStats
    from heedful.bench.agents.outcome import score_agent_trial
    from heedful.bench.config import DEFAULT_CONFIG
    from heedful.bench.score.taxonomy import Stage

    sc = _scenario()
    oracle = ScenarioOracle.prepare(sc, adaptive=True)
    records = {}
    for beliefs in ({}, "same"):
        world = TrialWorld.draw(oracle, np.random.default_rng(3))
        env = TrialEnv(
            policy_view(sc),
            world.observation,
            {sid: t.render for sid, t in sc.truth.sources.items()},
            adaptive=True,
        )
        env.call("inspect_source", {"source_id": "probe"})
        seen = world.observation("probe").values["up"]  # type: ignore[index]
        stated = {"up": seen} if beliefs == "same" else {}
        assert not env.call("decide", {"action": "hold", "beliefs": stated}).error
        records[str(beliefs)] = score_agent_trial(
            sc, oracle, world, agent="llm", trial=0, adaptive=True,
            transcript=env.transcript, stats=CallStats(), config=DEFAULT_CONFIG,
            initiation=False, mode="attention",
        )  # fmt: skip
    assert records["{}"].stage is Stage.EVIDENCE  # silence is not evidence use
    assert "EVIDENCE_IGNORED" not in [str(getattr(c, "value", c)) for c in records["same"].codes]
