"""Candidate generators (document 000 §7). Each has the same shape: ``generate(context)``.

Generators only *propose*; they never value. Selection cannot pick what was never generated, so
generation is measured on its own (candidate recall, document 000 §18). Candidates come out with
a placeholder id; the guard assigns real ids when it admits them.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Protocol

from heedful.attention._copy import new_candidate
from heedful.attention.config import GeneratorConfig
from heedful.attention.context import AttentionContext, ClaimState, SourceInfo, claim_p_stale
from heedful.model.base import as_utc
from heedful.model.candidate import Candidate, CandidateKind, Trigger
from heedful.model.scenario import Volatility

__all__ = [
    "DEFAULT_GENERATORS",
    "ContradictionGenerator",
    "DeadlineGenerator",
    "ExplorationGenerator",
    "FailedActionGenerator",
    "Generator",
    "GoalDependencyGenerator",
    "InterruptionGenerator",
    "StaleBeliefGenerator",
    "StateSensitiveClaimGenerator",
    "default_generators",
]

PENDING_ID = "pending"


class Generator(Protocol):
    """The generator shape: parameters in the constructor, then ``generate``."""

    name: str

    def generate(self, context: AttentionContext) -> list[Candidate]:
        """Propose candidates for the current context."""
        ...


class _Base:
    name = "base"

    def __init__(self, config: GeneratorConfig | None = None) -> None:
        self.config = config or GeneratorConfig()
        self._expiry_cache: tuple[datetime, datetime] | None = None

    def _candidate(self, context: AttentionContext, **fields: Any) -> Candidate:
        """A candidate of this generator, pending an id, living ``ttl_s`` from now."""
        return Candidate(
            id=PENDING_ID,
            origin=self.name,
            created_at=context.now,
            expires_at=context.now + timedelta(seconds=self.config.ttl_s),
            **fields,
        )

    def _inspect(
        self,
        context: AttentionContext,
        source: SourceInfo,
        claim: ClaimState,
        trigger: Trigger,
        *,
        goal_ids: tuple[str, ...] = (),
        relevance: float = 1.0,
        loss: float = 0.0,
        deadline_s: float | None = None,
    ) -> Candidate:
        # The bulk of every recomputation: built without re-validating values the world and
        # the goal models validated already (same fields as ``self._candidate`` would give).
        return new_candidate(
            {
                "id": PENDING_ID,
                "origin": self.name,
                "created_at": context.now,
                "expires_at": self._expiry(context),
                "kind": CandidateKind.INSPECT_SOURCE,
                "target": source.id,
                "trigger": trigger,
                "goal_ids": goal_ids,
                "claim_ids": (claim.id,),
                "goal_relevance": float(relevance),
                "loss_if_wrong": float(loss),
                "authority": float(source.authority_for(claim.claim_type)),
                "evidence_age_s": float(claim.age_s),
                "volatility": claim.volatility,
                "deadline_s": deadline_s,
                "cost": source.cost,
            }
        )

    def _expiry(self, context: AttentionContext) -> datetime:
        """``now + ttl_s``, computed once per context."""
        cached = self._expiry_cache
        if cached is None or cached[0] != context.now:
            cached = self._expiry_cache = (
                context.now,
                context.now + timedelta(seconds=self.config.ttl_s),
            )
        return cached[1]

    def _p_stale(self, claim: ClaimState, context: AttentionContext) -> float:
        return claim_p_stale(claim, context.hazards_per_hour)


def _claim(context: AttentionContext, claim_id: str) -> ClaimState:
    """The claim, or an empty one for a decision variable the agent holds no belief about."""
    found = context.claims.get(claim_id)
    if found is not None:
        return found
    domain = context.decision.variables.get(claim_id) if context.decision else None
    return ClaimState(id=claim_id, claim_type=claim_id, value=None, domain=domain)


class StaleBeliefGenerator(_Base):
    """Dirty or stale beliefs: freshness expired or truth maintenance marked it (§7)."""

    name = "stale_belief"

    def generate(self, context: AttentionContext) -> list[Candidate]:
        """One candidate per (stale or dirty claim, source reporting it)."""
        out: list[Candidate] = []
        for claim in context.claims.values():
            if claim.value is None:
                continue
            stale = self._p_stale(claim, context)
            if not (claim.dirty or stale >= self.config.stale_threshold):
                continue
            trigger = Trigger.DIRTY_BELIEF if claim.dirty else Trigger.STALE_BELIEF
            for source in context.sources_reporting(claim.id):
                out.append(self._inspect(context, source, claim, trigger))
        return out


class GoalDependencyGenerator(_Base):
    """Claims an active goal (or the stated decision) depends on (§7 "Goal dependencies").

    With a stated decision, a source that reports none of its variables but whose reply names
    sources not registered yet (``links``: an index, a catalogue) is proposed too, until it is
    read: what the decision depends on may be reported only by a source it names (issue 35).
    """

    name = "goal_dependency"

    def generate(self, context: AttentionContext) -> list[Candidate]:
        """One candidate per (dependency, source reporting it), and per unread linking source."""
        out: list[Candidate] = []
        for goal in context.active_goals():
            for dep in goal.depends_on:
                if dep.weight <= 0.0:
                    continue
                claim = _claim(context, dep.claim_id)
                for source in context.sources_reporting(claim.id):
                    out.append(
                        self._inspect(
                            context,
                            source,
                            claim,
                            Trigger.GOAL_DEPENDENCY,
                            goal_ids=(goal.id,),
                            relevance=dep.weight,
                            loss=goal.consequence,
                        )
                    )
        if context.decision is not None:
            relevant = context.decision.relevant_variables
            for var in relevant:
                claim = _claim(context, var)
                for source in context.sources_reporting(var):
                    out.append(self._inspect(context, source, claim, Trigger.GOAL_DEPENDENCY))
            if relevant:
                out.extend(self._linking(context, tuple(relevant)))
        return out

    def _linking(self, context: AttentionContext, relevant: tuple[str, ...]) -> list[Candidate]:
        """Unread sources that report no decision variable but name sources (``links``)."""
        out: list[Candidate] = []
        for source in context.sources.values():
            if source.links <= 0 or context.inspected.get(source.id):
                continue
            if any(v in relevant for v in source.reports):
                continue  # proposed above, as a source reporting what the decision depends on
            cand = self._inspect(
                context, source, _claim(context, relevant[0]), Trigger.GOAL_DEPENDENCY
            )
            out.append(cand.model_copy(update={"claim_ids": relevant}))
        return out


class StateSensitiveClaimGenerator(_Base):
    """The agent is about to assert or act on a volatile claim whose evidence is not fresh (§7).

    Pending claims are the ones the agent declared, plus the variables of its stated decision.
    The candidate inspects the most authoritative source for the claim's type.
    """

    name = "state_sensitive_claim"

    def generate(self, context: AttentionContext) -> list[Candidate]:
        """One candidate per volatile, not-fresh pending claim."""
        pending = list(context.pending_claims)
        if context.decision is not None:
            pending += [v for v in context.decision.relevant_variables if v not in pending]
        out: list[Candidate] = []
        for claim_id in pending:
            claim = _claim(context, claim_id)
            if claim.volatility is Volatility.IMMUTABLE and claim.value is not None:
                continue
            fresh = (
                claim.value is not None
                and not claim.dirty
                and self._p_stale(claim, context) < self.config.fresh_threshold
            )
            if fresh:
                continue
            sources = context.sources_reporting(claim_id)
            if not sources:
                continue
            best = max(sources, key=lambda s: s.authority_for(claim.claim_type))
            out.append(self._inspect(context, best, claim, Trigger.STATE_SENSITIVE_CLAIM))
        return out


class ContradictionGenerator(_Base):
    """New evidence conflicts with a stored belief: check the most authoritative other source."""

    name = "contradiction"

    def generate(self, context: AttentionContext) -> list[Candidate]:
        """One candidate per contradicted claim."""
        out: list[Candidate] = []
        for claim_id, conflicting in context.contradictions.items():
            claim = _claim(context, claim_id)
            sources = [s for s in context.sources_reporting(claim_id) if s.id not in conflicting]
            sources = sources or context.sources_reporting(claim_id)
            if sources:
                best = max(sources, key=lambda s: s.authority_for(claim.claim_type))
                out.append(self._inspect(context, best, claim, Trigger.CONTRADICTION))
        return out


class FailedActionGenerator(_Base):
    """Tool errors and worker failures become diagnostic candidates (§7 "Failed actions")."""

    name = "failed_action"

    def generate(self, context: AttentionContext) -> list[Candidate]:
        """One diagnosis candidate per failure."""
        return [
            self._candidate(
                context,
                kind=CandidateKind.DIAGNOSE_FAILURE,
                target=f.target,
                trigger=Trigger.FAILED_ACTION,
                claim_ids=f.claim_ids,
                loss_if_wrong=f.loss,
                cost=f.cost,
            )
            for f in context.failures
        ]


class DeadlineGenerator(_Base):
    """Approaching deadlines raise the impact of their goals' dependencies (§7 "Deadlines")."""

    name = "deadline"

    def generate(self, context: AttentionContext) -> list[Candidate]:
        """Candidates for dependencies of active goals due within the horizon."""
        out: list[Candidate] = []
        for goal in context.active_goals():
            if goal.due_at is None:
                continue
            left = (as_utc(goal.due_at) - as_utc(context.now)).total_seconds()
            if left > self.config.deadline_horizon_s:
                continue
            for dep in goal.depends_on:
                claim = _claim(context, dep.claim_id)
                for source in context.sources_reporting(claim.id):
                    out.append(
                        self._inspect(
                            context,
                            source,
                            claim,
                            Trigger.DEADLINE,
                            goal_ids=(goal.id,),
                            relevance=dep.weight,
                            loss=goal.consequence,
                            deadline_s=max(left, 0.0),
                        )
                    )
        return out


class InterruptionGenerator(_Base):
    """Incoming events are candidates, not automatic focus switches (§7 "Interruptions")."""

    name = "interruption"

    def generate(self, context: AttentionContext) -> list[Candidate]:
        """One candidate per interruption, owned by the source that sent it."""
        return [
            self._candidate(
                context,
                kind=CandidateKind.HANDLE_INTERRUPTION,
                target=i.id,
                trigger=Trigger.INTERRUPTION,
                submitted_by=i.source_id,
                goal_ids=i.goal_ids,
                loss_if_wrong=i.declared_loss,
                switch_cost=i.switch_cost,
                content=i.content,
            )
            for i in context.interruptions
        ]


class ExplorationGenerator(_Base):
    """A few never-inspected sources, for the bounded exploration quota (§7 "Exploration")."""

    name = "exploration"

    def generate(self, context: AttentionContext) -> list[Candidate]:
        """Up to ``exploration_per_turn`` uninspected sources that report something."""
        out: list[Candidate] = []
        for source in context.sources.values():
            if len(out) >= self.config.exploration_per_turn:
                break
            if context.inspected.get(source.id) or not source.reports:
                continue
            claim = _claim(context, source.reports[0])
            cand = self._inspect(context, source, claim, Trigger.EXPLORATION)
            out.append(cand.model_copy(update={"claim_ids": source.reports}))
        return out


def default_generators(config: GeneratorConfig | None = None) -> list[Generator]:
    """The eight generators of document 000 §7, in trigger precedence: when two propose the same
    read, the first one's trigger names it — contradiction first (§7: "a high-priority check
    candidate", which the estimator boosts), exploration last so others' triggers win."""
    return [
        ContradictionGenerator(config),
        StateSensitiveClaimGenerator(config),
        StaleBeliefGenerator(config),
        GoalDependencyGenerator(config),
        DeadlineGenerator(config),
        FailedActionGenerator(config),
        InterruptionGenerator(config),
        ExplorationGenerator(config),
    ]


DEFAULT_GENERATORS = tuple(g.name for g in default_generators())
