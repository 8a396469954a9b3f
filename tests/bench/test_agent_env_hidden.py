"""Hidden sources in the agent's tool environment (issue 23): shown only once revealed.

A source the view does not list is named to the agent by the tool result of its revealer's read
(a ``revealed`` line with its visible metadata as JSON), joins the tools' id enums from then on
and may be inspected; before that its id is refused exactly like one that does not exist.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from heedful.bench.agents.env import TrialEnv
from heedful.bench.policy import Observation
from heedful.bench.score.scoring import ScenarioOracle, TrialWorld
from heedful.bench.views import policy_view
from heedful.model import Scenario, scenario_from_dict

#: How a tool result starts naming the hidden source once its revealer was read.
SHOWN = 'revealed (you may inspect these from now on): [{"id": "live-probe"'


HIDDEN_LIVE = Path(__file__).resolve().parents[1] / "data" / "hidden_live.yaml"


def _scenario(budget: int = 2) -> Scenario:
    """The shared hidden-source world (tests/data/hidden_live.yaml), as this file uses it."""
    raw = yaml.safe_load(HIDDEN_LIVE.read_text(encoding="utf-8"))
    raw["task"] = "Ship or hold."
    raw["budget"] = budget
    return scenario_from_dict(raw, file="hidden.yaml")


def _env(adaptive: bool = True, budget: int = 2, **kw: Any) -> tuple[TrialEnv, TrialWorld]:
    sc = _scenario(budget)
    world = TrialWorld.draw(ScenarioOracle.prepare(sc, adaptive=adaptive), np.random.default_rng(0))
    env = TrialEnv(
        policy_view(sc),
        kw.pop("reveal", world.observation),
        {sid: t.render for sid, t in sc.truth.sources.items()},
        adaptive=adaptive,
        reveals=sc.reveals(),
        **kw,
    )
    return env, world


def _ids(env: TrialEnv, tool: str) -> list[str]:
    params = next(t.parameters for t in env.tools if t.name == tool)["properties"]
    enum = params["source_id"] if "source_id" in params else params["source_ids"]["items"]
    return list(enum["enum"])


def _schemas(env: TrialEnv) -> str:
    return json.dumps([t.as_openai() for t in env.tools])


def test_a_hidden_source_is_in_no_schema_before_its_revealer_is_read() -> None:
    for adaptive in (True, False):
        env, _ = _env(adaptive)
        assert "live-probe" not in _schemas(env)
        assert env.revealed == ()
        assert "live-probe" not in env.view.source_ids


def test_naming_a_hidden_source_before_it_is_revealed_is_refused_like_an_unknown_id() -> None:
    env, _ = _env()
    hidden = env.call("inspect_source", {"source_id": "live-probe"})
    other, _ = _env()
    ghost = other.call("inspect_source", {"source_id": "ghost-xx"})
    assert hidden.error and env.transcript.protocol_error == "unknown_source"
    # The refusal's text never depends on the hidden world: only the id differs.
    assert hidden.text.replace("live-probe", "X") == ghost.text.replace("ghost-xx", "X")
    assert env.transcript.history == []
    static, _ = _env(adaptive=False)
    reply = static.call("plan_inspections", {"source_ids": ["catalogue", "live-probe"]})
    assert reply.error and static.transcript.protocol_error == "unknown_source"
    assert static.transcript.history == []  # a refused plan reads nothing


def test_reading_the_revealer_names_the_revealed_source_and_opens_it() -> None:
    env, world = _env()
    reply = env.call("inspect_source", {"source_id": "catalogue"})
    assert not reply.error
    head, _, data = reply.text.splitlines()[-1].partition(": ")
    assert head == "revealed (you may inspect these from now on)"
    (shown,) = json.loads(data)
    assert shown["id"] == "live-probe" and shown["label"] == "live probe"
    assert shown["reports"] == ["state"] and shown["authority"] == 0.95 and shown["age_s"] == 5
    # Visible metadata only: nothing PRIVATE of the hidden source.
    assert not {"accuracy", "echo", "fails", "render", "revealed_by"} & set(shown)
    assert env.revealed == ("live-probe",)
    assert [s.id for s in env.transcript.history[0].revealed] == ["live-probe"]
    # Listed from then on: the enum admits it, and reading it works.
    assert _ids(env, "inspect_source") == ["catalogue", "noise", "live-probe"]
    probe = env.call("inspect_source", {"source_id": "live-probe"})
    assert not probe.error and "revealed" not in probe.text
    assert env.transcript.history[1] == world.observation("live-probe")
    assert env.transcript.protocol_error is None


def test_a_failed_read_still_reveals_what_it_links_to() -> None:
    env, _ = _env(reveal=lambda sid: Observation(sid, failed=True))
    reply = env.call("inspect_source", {"source_id": "catalogue"})
    assert "failed" in reply.text and SHOWN in reply.text
    assert env.revealed == ("live-probe",)


def test_reading_a_source_that_reveals_nothing_adds_no_line() -> None:
    env, _ = _env()
    reply = env.call("inspect_source", {"source_id": "noise"})
    assert "revealed" not in reply.text and env.revealed == ()
    assert "live-probe" not in _schemas(env)


def test_a_static_plan_may_be_followed_only_by_a_plan_of_the_sources_it_revealed() -> None:
    env, _ = _env(adaptive=False, budget=2)
    first = env.call("plan_inspections", {"source_ids": ["catalogue"]})
    assert SHOWN in first.text
    assert _ids(env, "plan_inspections") == ["catalogue", "noise", "live-probe"]
    # A listed source is not part of a follow-up plan: the plan was committed.
    listed = env.call("plan_inspections", {"source_ids": ["noise"]})
    assert listed.error and env.transcript.protocol_error == "repeated_plan"
    assert "only for the sources the plan revealed (live-probe)" in listed.text
    follow = env.call("plan_inspections", {"source_ids": ["live-probe"]})
    assert not follow.error and [o.source_id for o in env.transcript.history] == [
        "catalogue",
        "live-probe",
    ]
    again = env.call("plan_inspections", {"source_ids": []})
    assert again.error and again.text == "error: plan_inspections may be called once"


def test_a_follow_up_plan_is_held_to_the_budget() -> None:
    env, _ = _env(adaptive=False, budget=1)
    env.call("plan_inspections", {"source_ids": ["catalogue"]})
    over = env.call("plan_inspections", {"source_ids": ["live-probe"]})
    assert over.error and "over_budget" in str(env.transcript.violation)
    assert [o.source_id for o in env.transcript.history] == ["catalogue"]


def test_without_hidden_sources_a_second_plan_is_refused_as_before() -> None:
    env, _ = _env(adaptive=False)
    env.call("plan_inspections", {"source_ids": ["noise"]})
    again = env.call("plan_inspections", {"source_ids": ["catalogue"]})
    assert again.error and again.text == "error: plan_inspections may be called once"


def test_the_production_validator_can_use_a_revealed_source() -> None:
    # The belief about state is 7200 s old: decide is refused until a fresh authoritative read;
    # the only one is the hidden live probe, which the validator may name once revealed.
    env, _ = _env(mode="production")
    before = env.call("decide", {"action": "hold", "beliefs": {"state": "down"}})
    assert before.error and env.transcript.forced == []  # nothing it may read yet
    env2, _ = _env(mode="production")
    env2.call("inspect_source", {"source_id": "catalogue"})
    refused = env2.call("decide", {"action": "hold", "beliefs": {"state": "down"}})
    assert refused.error and [o.source_id for o in env2.transcript.forced] == ["live-probe"]
    assert not env2.call("decide", {"action": "hold", "beliefs": {"state": "down"}}).error


def _advised(budget: int) -> TrialEnv:
    from heedful.bench.agents.advice import Advisor

    sc = _scenario(budget)
    view = policy_view(sc)
    env, _ = _env(adaptive=False, budget=budget, advisor=Advisor(view, np.random.default_rng(0)))
    return env


def test_static_advice_after_the_plan_names_the_revealed_source_worth_reading() -> None:
    env = _advised(budget=2)
    assert not env.call("plan_inspections", {"source_ids": ["catalogue"]}).error
    advice = env.call("attention_next", {}).text
    # The live probe decides ship-or-hold: worth its cost, and askable now (it used to be
    # "The inspections are done: decide now." — the advisor never planned revealed sources).
    assert advice.startswith("Also inspect (revealed by the plan): live-probe (net value ")
    assert advice.endswith(". Then decide.")
    assert not env.call("plan_inspections", {"source_ids": ["live-probe"]}).error


def test_static_advice_after_the_plan_says_decide_when_nothing_is_open() -> None:
    env = _advised(budget=1)  # the plan used the whole budget: nothing more may be asked
    env.call("plan_inspections", {"source_ids": ["catalogue"]})
    assert env.call("attention_next", {}).text == "The inspections are done: decide now."
    env = _advised(budget=2)  # a plan that revealed nothing
    env.call("plan_inspections", {"source_ids": ["noise"]})
    assert env.call("attention_next", {}).text == "The inspections are done: decide now."
    env = _advised(budget=3)  # both revealed and listed sources read: nothing open
    env.call("plan_inspections", {"source_ids": ["catalogue"]})
    env.call("plan_inspections", {"source_ids": ["live-probe"]})
    assert env.call("attention_next", {}).text == "The inspections are done: decide now."
