from __future__ import annotations

from datetime import timedelta

from tests_attention_time import NOW

from heedful.attention.context import (
    AttentionContext,
    ClaimState,
    Failure,
    Interruption,
    SourceInfo,
)
from heedful.attention.generators import (
    ContradictionGenerator,
    DeadlineGenerator,
    ExplorationGenerator,
    FailedActionGenerator,
    GoalDependencyGenerator,
    InterruptionGenerator,
    StaleBeliefGenerator,
    StateSensitiveClaimGenerator,
    default_generators,
)
from heedful.model.candidate import CandidateKind, Trigger
from heedful.model.goal import ClaimDependency, Goal, GoalStatus
from heedful.model.scenario import Volatility

LIVE = SourceInfo(id="live", reports=("feed",), default_authority=0.99)
CACHE = SourceInfo(id="cache", reports=("feed",), default_authority=0.3)


def _ctx(
    age_s: float = 0.0, volatility: Volatility = Volatility.HIGH, **kw: object
) -> AttentionContext:
    claim = ClaimState(
        id="feed",
        claim_type="feed",
        value="up",
        domain=("up", "down"),
        age_s=age_s,
        volatility=volatility,
    )
    return AttentionContext(
        now=NOW, claims={"feed": claim}, sources={"live": LIVE, "cache": CACHE}, **kw
    )  # type: ignore[arg-type]


def test_stale_belief_generates_one_candidate_per_reporting_source() -> None:
    out = StaleBeliefGenerator().generate(_ctx(age_s=3600))
    assert {c.target for c in out} == {"live", "cache"}
    assert all(c.trigger is Trigger.STALE_BELIEF for c in out)


def test_fresh_belief_generates_no_stale_candidate() -> None:
    assert StaleBeliefGenerator().generate(_ctx(age_s=1)) == []


def test_state_sensitive_claim_targets_the_most_authoritative_source() -> None:
    out = StateSensitiveClaimGenerator().generate(_ctx(age_s=3600, pending_claims=("feed",)))
    assert [c.target for c in out] == ["live"]


def test_state_sensitive_claim_skips_fresh_evidence() -> None:
    assert StateSensitiveClaimGenerator().generate(_ctx(age_s=1, pending_claims=("feed",))) == []


def test_goal_dependency_carries_the_goal_and_its_weight() -> None:
    goal = Goal(
        id="g",
        title="t",
        status=GoalStatus.ACTIVE,
        depends_on=[ClaimDependency(claim_id="feed", weight=0.7)],
    )
    out = GoalDependencyGenerator().generate(_ctx(goals={"g": goal}))
    assert {c.goal_ids for c in out} == {("g",)} and {c.goal_relevance for c in out} == {0.7}


def test_inactive_goals_generate_nothing() -> None:
    goal = Goal(
        id="g", title="t", status=GoalStatus.BLOCKED, depends_on=[ClaimDependency(claim_id="feed")]
    )
    assert GoalDependencyGenerator().generate(_ctx(goals={"g": goal})) == []


def test_contradiction_checks_a_source_other_than_the_contradicting_one() -> None:
    out = ContradictionGenerator().generate(_ctx(contradictions={"feed": ("cache",)}))
    assert [c.target for c in out] == ["live"] and out[0].trigger is Trigger.CONTRADICTION


def test_failed_action_yields_a_diagnosis() -> None:
    out = FailedActionGenerator().generate(_ctx(failures=(Failure("f1", "deploy", 2.0),)))
    assert out[0].kind is CandidateKind.DIAGNOSE_FAILURE and out[0].loss_if_wrong == 2.0


def test_deadline_sets_seconds_left() -> None:
    goal = Goal(
        id="g",
        title="t",
        status=GoalStatus.ACTIVE,
        due_at=NOW + timedelta(seconds=600),
        depends_on=[ClaimDependency(claim_id="feed")],
    )
    out = DeadlineGenerator().generate(_ctx(goals={"g": goal}))
    assert out and all(c.deadline_s == 600 for c in out)


def test_interruption_is_owned_by_its_sender() -> None:
    out = InterruptionGenerator().generate(_ctx(interruptions=(Interruption("e", "chat", "hi"),)))
    assert out[0].submitted_by == "chat" and out[0].kind is CandidateKind.HANDLE_INTERRUPTION


def test_exploration_proposes_an_uninspected_source_only() -> None:
    out = ExplorationGenerator().generate(_ctx(inspected={"live": 1}))
    assert [c.target for c in out] == ["cache"] and out[0].trigger is Trigger.EXPLORATION


def test_there_are_eight_default_generators_with_distinct_names() -> None:
    names = [g.name for g in default_generators()]
    assert len(names) == 8 == len(set(names))
