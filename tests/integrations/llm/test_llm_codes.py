"""Every stage and failure code is reachable by a real client over real HTTP, and correct.

Each test starts the scripted endpoint with one behaviour on loopback, runs the real ``llm``
agent (openai SDK → HTTP → scripted agent → tool calls → environment → ``score_trial``) and checks
the stage and code the trial gets. The scenario: ship a release if a service is up; the notes say
it is down (a stale summary, 2 h old); the truth is up; a live probe (authoritative, accurate), the
summary itself (an echo), and a loud chat distractor can be read; budget 1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from heedful.bench.agents.aggregate import agent_aggregates, stage_of
from heedful.bench.agents.contract import AgentConfig, get_agent
from heedful.bench.agents.runner import run_agents_sync
from heedful.bench.config import BenchConfig
from heedful.bench.results import FailureCode, Stage, TrialRecord
from heedful.integrations.llm import ScriptedServer
from heedful.model import scenario_from_dict

FAST = BenchConfig(bootstrap_resamples=100)


def _run(
    behaviour: str,
    scripted: Callable[..., ScriptedServer],
    settings_for: Any,
    raw: dict[str, Any],
    *,
    agent: str = "llm",
    mode: str = "attention",
    adaptive: bool = True,
    trials: int = 1,
    config: AgentConfig | None = None,
) -> list[TrialRecord]:
    # The timeout must exceed any real answer on a loaded machine, and the flaky hang the timeout.
    server = scripted(behaviour, hang_s=4.0)
    built = get_agent(agent, settings_for(server, timeout_s=1.5), config)
    return run_agents_sync(
        [scenario_from_dict(raw)],
        [built],
        trials=trials,
        seed=0,
        adaptive=adaptive,
        mode=mode,
        concurrency=2,
        config=FAST,
    )


@pytest.mark.parametrize("adaptive", [True, False])
def test_careful_passes_every_stage(
    scripted: Any, settings_for: Any, llm_scenario_raw: Any, adaptive: bool
) -> None:
    (rec,) = _run("careful", scripted, settings_for, llm_scenario_raw(), adaptive=adaptive)
    assert rec.decided_by == "agent" and rec.inspected == ["probe"]
    assert rec.action == "ship" and rec.action_correct and rec.beliefs == {"up": "yes"}
    assert rec.stage is None and rec.failure is None and rec.protocol_error is None
    assert rec.usage is not None and rec.usage.calls == 2 and rec.usage.prompt_tokens > 0


def test_acting_on_the_stale_summary_unprompted_is_an_initiation_failure(
    scripted: Any, settings_for: Any, llm_scenario_raw: Any
) -> None:
    raw = llm_scenario_raw(condition="unprompted")
    (rec,) = _run("summary-trusting", scripted, settings_for, raw)
    assert rec.inspected == [] and rec.action == "hold"
    assert rec.stage is Stage.INITIATION
    assert rec.failure is FailureCode.UNDERINSPECTION
    assert FailureCode.STALE_STATE in rec.codes
    assert rec.initiation is not None and not rec.initiation.authoritative_inspected


def test_production_validator_forces_the_read_and_rescues(
    scripted: Any, settings_for: Any, llm_scenario_raw: Any
) -> None:
    raw = llm_scenario_raw(condition="unprompted")
    att, prod = _run("summary-trusting", scripted, settings_for, raw, mode="both")
    assert (att.mode, prod.mode) == ("attention", "production")
    assert att.world == prod.world and not att.action_correct
    assert prod.inspected == [] and prod.forced_inspections == ["probe"]
    assert prod.action == "ship" and prod.action_correct and prod.rescued
    assert FailureCode.VALIDATOR_RESCUED in prod.codes
    # The forced read is never spontaneous attention: the attention score is unchanged.
    assert prod.score == att.score and prod.stage is Stage.INITIATION
    rescue = agent_aggregates([att, prod], ["llm"], FAST, 0).rescue[0]
    assert rescue.n_pairs == 1 and rescue.rescue.k == 1


@pytest.mark.parametrize(
    ("behaviour", "order", "budget", "code"),
    [
        ("salience-chasing", None, 1, FailureCode.SALIENCE_CAPTURE),
        ("summary-reading", None, 1, FailureCode.SUMMARY_SUBSTITUTION),
        ("over-inspecting", ["rumour", "probe"], 1, FailureCode.SOURCE_AUTHORITY_NEGLECT),
        ("over-inspecting", ["digest", "probe"], 1, FailureCode.STALE_STATE),
        ("over-inspecting", ["probe", "summary"], 2, FailureCode.OVERINSPECTION),
    ],
)
def test_selection_failures_get_their_specific_code(
    scripted: Any,
    settings_for: Any,
    llm_scenario_raw: Any,
    behaviour: str,
    order: list[str] | None,
    budget: int,
    code: FailureCode,
) -> None:
    raw = llm_scenario_raw(budget=budget)
    raw["sources"] += [
        {"id": "rumour", "label": "hallway rumour", "kind": "chat", "reports": ["up"],
         "authority": 0.5, "age_s": 60, "accuracy": 0.6, "cost": {"tool_calls": 1}},
        {"id": "digest", "label": "weekly digest", "kind": "digest", "authority": 0.5,
         "age_s": 60, "accuracy": 0.5, "cost": {"tool_calls": 1}},
    ]  # fmt: skip
    if order is not None:
        by_id = {s["id"]: s for s in raw["sources"]}
        raw["sources"] = [by_id[i] for i in order] + [
            s for s in raw["sources"] if s["id"] not in order
        ]
    (rec,) = _run(behaviour, scripted, settings_for, raw)
    assert rec.stage is Stage.SELECTION
    assert rec.failure is code
    assert FailureCode.SELECTION_WRONG in rec.codes


def test_a_failed_critical_inspection_is_a_retrieval_failure(
    scripted: Any, settings_for: Any, llm_scenario_raw: Any
) -> None:
    raw = llm_scenario_raw()
    raw["sources"][2]["fails"] = 0.5
    recs = _run("careful", scripted, settings_for, raw, trials=8)
    failed = [r for r in recs if r.failed_inspections == ["probe"]]
    assert failed and len(failed) < len(recs)  # both outcomes happened
    for r in recs:
        expected = Stage.RETRIEVAL if r in failed else None
        assert r.stage is expected
    assert all(r.failure is FailureCode.RETRIEVAL_FAILED for r in failed)


def test_a_belief_that_contradicts_the_read_is_evidence_ignored(
    scripted: Any, settings_for: Any, llm_scenario_raw: Any
) -> None:
    (rec,) = _run("evidence-ignoring", scripted, settings_for, llm_scenario_raw())
    assert rec.inspected == ["probe"] and rec.beliefs == {"up": "no"}
    assert rec.stage is Stage.EVIDENCE and rec.failure is FailureCode.EVIDENCE_IGNORED


def test_the_wrong_action_after_the_right_evidence_is_a_reasoning_failure(
    scripted: Any, settings_for: Any, llm_scenario_raw: Any
) -> None:
    (rec,) = _run("misreasoning", scripted, settings_for, llm_scenario_raw())
    assert rec.beliefs == {"up": "yes"} and rec.action == "hold" and not rec.action_rational
    assert rec.stage is Stage.REASONING and rec.failure is FailureCode.REASONING_FAILED


@pytest.mark.parametrize("adaptive", [True, False])
def test_a_flaky_endpoint_is_retried_and_bad_calls_are_flagged_not_fatal(
    scripted: Any, settings_for: Any, llm_scenario_raw: Any, adaptive: bool
) -> None:
    (rec,) = _run("flaky", scripted, settings_for, llm_scenario_raw(), adaptive=adaptive)
    assert rec.protocol_error == "malformed_arguments"
    assert rec.usage is not None and rec.usage.errors == 3  # the 429, the 500, the timeout
    assert rec.action == "ship" and rec.action_correct  # it recovered and decided


def test_a_broken_endpoint_never_crashes_the_run(
    scripted: Any, settings_for: Any, llm_scenario_raw: Any
) -> None:
    recs = _run("broken", scripted, settings_for, llm_scenario_raw(), trials=2)
    assert len(recs) == 2
    for rec in recs:
        assert rec.action is None and (rec.protocol_error or "").startswith("endpoint_error")
        assert stage_of(rec) == "endpoint"


def test_no_decide_within_the_turn_limit_is_flagged(
    scripted: Any, settings_for: Any, llm_scenario_raw: Any
) -> None:
    config = AgentConfig(max_turns=1)
    (rec,) = _run("careful", scripted, settings_for, llm_scenario_raw(), config=config)
    assert rec.protocol_error is not None and rec.protocol_error.startswith("turn_limit")
    assert rec.action is None and rec.stage is Stage.REASONING


def test_the_advised_agent_asks_the_controller_and_the_lift_is_paired(
    scripted: Any, settings_for: Any, llm_scenario_raw: Any
) -> None:
    server = scripted("careful")
    settings = settings_for(server)
    agents = [get_agent("llm", settings), get_agent("llm-advised", settings)]
    scenario = scenario_from_dict(llm_scenario_raw())
    recs = run_agents_sync([scenario], agents, trials=2, seed=0, adaptive=True, config=FAST)
    advised = [r for r in recs if r.policy == "llm-advised"]
    assert all(r.usage is not None and r.usage.calls == 4 for r in advised)  # 2 advice turns
    lift = [row for row in agent_aggregates(recs, ["llm", "llm-advised"], FAST, 0).lift]
    assert lift and lift[0].n_pairs == 2 and lift[0].base == "llm"
    assert lift[0].action_correct is not None and lift[0].action_correct.mean == 0.0


def test_rescued_only_where_the_attention_twin_was_wrong(
    scripted: Any, settings_for: Any, llm_scenario_raw: Any
) -> None:
    from heedful.bench.agents.runner import pair_rescues

    raw = llm_scenario_raw(condition="unprompted")
    att, prod = _run("summary-trusting", scripted, settings_for, raw, mode="both")
    assert prod.rescued and not att.action_correct
    # Had the attention twin been right already, the forced read rescued nothing.
    right_twin = att.model_copy(update={"action_correct": True})
    _, unrescued = pair_rescues([right_twin, prod])
    assert not unrescued.rescued and FailureCode.VALIDATOR_RESCUED not in unrescued.codes
    # Nor where the production trial ignored what it was made to read.
    ignored = prod.model_copy(update={"codes": [*prod.codes, FailureCode.EVIDENCE_IGNORED]})
    assert not pair_rescues([att, ignored])[1].rescued
    assert pair_rescues([att, prod])[1].rescued  # the real pair stays rescued
