"""The failure taxonomy (document 000 §13, §18, Appendix B): every code reachable and correct."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from heedful import decision
from heedful.bench.config import DEFAULT_CONFIG
from heedful.bench.policy import Observation
from heedful.bench.results import FailureCode, Stage, TrialRecord
from heedful.bench.score.scoring import ScenarioOracle, TrialOutcome, TrialWorld, score_trial
from heedful.model import Scenario, scenario_from_dict

F = FailureCode
_BASE: dict[str, Any] = {}


@pytest.fixture(autouse=True)
def _base(tiny_raw: dict[str, Any]) -> None:
    _BASE.clear()
    _BASE.update(tiny_raw)


def _scenario(**changes: Any) -> Scenario:
    """The tiny scenario (probe is the one critical source) with the world fixed to up=yes."""
    raw = copy.deepcopy(_BASE)
    raw["world"] = {"up": "yes"}
    for sid, fields in changes.pop("sources", {}).items():
        src = next((s for s in raw["sources"] if s["id"] == sid), None)
        if src is None:
            raw["sources"].append({"id": sid, **fields})
        else:
            src.update(fields)
    raw.update(changes)
    return scenario_from_dict(raw)


def _score(
    scenario: Scenario,
    read: list[str],
    *,
    outcomes: dict[str, dict[str, str] | None] | None = None,
    mode: str = "attention",
    **outcome: Any,
) -> TrialRecord:
    oracle = ScenarioOracle.prepare(scenario, adaptive=False)
    world = TrialWorld.draw(oracle, np.random.default_rng(0))
    for sid, reported in (outcomes or {}).items():
        world._outcomes[sid] = decision.outcome_index(oracle.problem, sid, reported)
    out = TrialOutcome(history=tuple(Observation(s, withheld=True) for s in read), **outcome)
    return score_trial(
        scenario,
        oracle,
        world,
        policy="p",
        trial=0,
        adaptive=False,
        outcome=out,
        config=DEFAULT_CONFIG,
        mode=mode,  # type: ignore[arg-type]
    )


YES = {"probe": {"up": "yes"}}


def test_the_critical_source_passes_every_stage() -> None:
    t = _score(_scenario(), ["probe"], outcomes=YES)
    assert t.optimal and (t.stage, t.failure, t.codes) == (None, None, [])
    assert t.closest_optimal_set == ["probe"] and t.critical_recall == 1.0


def test_reading_nothing_when_reading_is_needed_is_an_initiation_failure() -> None:
    t = _score(_scenario(), [])
    assert t.stage is Stage.INITIATION and t.failure is F.UNDERINSPECTION
    # The belief (up=no) is wrong in this world and nothing reported on it: stale state too.
    assert F.STALE_STATE in t.codes


def test_a_missing_candidate_comes_before_selection() -> None:
    t = _score(_scenario(), ["digest"], candidates=frozenset({"digest", "summary"}))
    assert (t.stage, t.failure) == (Stage.INITIATION, F.CANDIDATE_MISSING)
    assert t.candidate_recall == 0.0 and t.selected_given_generated is None
    generated = _score(_scenario(), [], candidates=frozenset({"probe"}))
    assert generated.stage is Stage.SELECTION and F.UNDERINSPECTION in generated.codes
    assert generated.candidate_recall == 1.0 and generated.selected_given_generated == 0.0


def test_a_loud_distractor_read_instead_is_salience_capture() -> None:
    t = _score(_scenario(), ["chatter"])
    assert (t.stage, t.failure) == (Stage.SELECTION, F.SALIENCE_CAPTURE)
    assert F.SELECTION_WRONG in t.codes


def test_reading_the_echo_summary_instead_is_summary_substitution() -> None:
    quiet = {"summary": {"salience": {"verbosity": 10}}}
    t = _score(_scenario(sources=quiet), ["summary"])
    assert (t.stage, t.failure) == (Stage.SELECTION, F.SUMMARY_SUBSTITUTION)


def test_a_weaker_source_read_instead_is_authority_neglect() -> None:
    rumor = {"rumor": {"kind": "chat", "reports": ["up"], "authority": 0.5, "accuracy": 0.6}}
    t = _score(_scenario(sources=rumor), ["rumor"], outcomes={"rumor": {"up": "yes"}})
    assert (t.stage, t.failure) == (Stage.SELECTION, F.SOURCE_AUTHORITY_NEGLECT)


def test_reading_more_than_any_optimal_set_is_overinspection() -> None:
    t = _score(_scenario(budget=3), ["probe", "digest", "summary"], outcomes=YES)
    assert not t.optimal
    assert (t.stage, t.failure) == (Stage.SELECTION, F.OVERINSPECTION)


def test_a_failed_critical_read_is_a_retrieval_failure() -> None:
    t = _score(_scenario(sources={"probe": {"fails": 0.2}}), ["probe"], outcomes={"probe": None})
    assert t.optimal and (t.stage, t.failure) == (Stage.RETRIEVAL, F.RETRIEVAL_FAILED)
    assert t.failed_inspections == ["probe"]


def test_a_stated_belief_against_the_evidence_is_evidence_ignored() -> None:
    t = _score(
        _scenario(),
        ["probe"],
        outcomes=YES,
        decided_by_agent=True,
        action="ship",
        beliefs={"up": "no"},
    )
    assert (t.stage, t.failure) == (Stage.EVIDENCE, F.EVIDENCE_IGNORED)
    assert t.decided_by == "agent" and t.action_correct


def test_the_wrong_action_given_the_evidence_is_a_reasoning_failure() -> None:
    t = _score(
        _scenario(),
        ["probe"],
        outcomes=YES,
        decided_by_agent=True,
        action="hold",
        beliefs={"up": "yes"},
    )
    assert (t.stage, t.failure) == (Stage.REASONING, F.REASONING_FAILED)
    assert not t.action_rational and not t.action_correct and t.utility == 0.0


def test_no_decision_is_a_reasoning_failure_with_the_worst_utility() -> None:
    t = _score(
        _scenario(),
        ["probe"],
        outcomes=YES,
        decided_by_agent=True,
        protocol_error="no decide within 8 turns",
    )
    assert t.action is None and t.utility == 0.0  # the worst action in this world (hold)
    assert not t.action_correct
    assert (t.stage, t.failure) == (Stage.REASONING, F.REASONING_FAILED)
    assert t.protocol_error == "no decide within 8 turns"


def test_a_forced_read_that_fixes_the_decision_is_a_rescue_not_attention() -> None:
    t = _score(
        _scenario(),
        [],
        outcomes=YES,
        mode="production",
        decided_by_agent=True,
        action="ship",
        beliefs={"up": "yes"},
        forced=(Observation("probe", values={"up": "yes"}),),
        validator_blocked=True,
    )
    assert t.inspected == [] and t.forced_inspections == ["probe"]
    assert t.stage is Stage.INITIATION  # attention still failed: it read nothing itself
    assert t.rescued and F.VALIDATOR_RESCUED in t.codes and t.action_correct
    assert t.mode == "production"
    # The score is that of the spontaneous selection (the empty set), the cost that of all reads.
    assert t.value == pytest.approx(_score(_scenario(), []).value)
