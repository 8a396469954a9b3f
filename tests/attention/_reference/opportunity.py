"""Trigger opportunities, for the conditional funnel of document 000 §5.3.

Raw trigger counts say little ("a rare trigger may be correct if the underlying condition is
rare"). The funnel asks, per trigger: when an opportunity existed, did it fire? This module
states, independently of the generators, when each trigger's condition holds; the controller
compares that with what the generators proposed and logs every opportunity that did not fire
(``candidate_skipped`` with reason ``not_fired``) — candidate blindness made visible (§25).

An opportunity is a (trigger, subject) pair: the subject is a claim id for the belief triggers,
the failure target or interruption id otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable

from _reference.context import AttentionContext, claim_p_stale
from heedful.attention.config import GeneratorConfig
from heedful.model.base import as_utc
from heedful.model.candidate import Candidate, CandidateKind, Trigger
from heedful.model.scenario import Volatility

__all__ = ["Opportunity", "fired", "opportunities"]

Opportunity = tuple[Trigger, str]


def opportunities(context: AttentionContext, config: GeneratorConfig) -> set[Opportunity]:
    """Every (trigger, subject) whose condition holds now (document 000 §7 wording)."""
    out: set[Opportunity] = set()
    for claim in context.claims.values():
        if claim.value is None:
            continue
        if claim.dirty:
            out.add((Trigger.DIRTY_BELIEF, claim.id))
        elif claim_p_stale(claim, context.hazards_per_hour) >= config.stale_threshold:
            out.add((Trigger.STALE_BELIEF, claim.id))
    pending = list(context.pending_claims)
    relevant = context.decision.relevant_variables if context.decision is not None else ()
    pending += [v for v in relevant if v not in pending]
    for claim_id in pending:
        held = context.claims.get(claim_id)
        if held is not None and held.value is not None:
            if held.volatility is Volatility.IMMUTABLE:
                continue
            fresh = (
                not held.dirty
                and claim_p_stale(held, context.hazards_per_hour) < config.fresh_threshold
            )
            if fresh:
                continue
        out.add((Trigger.STATE_SENSITIVE_CLAIM, claim_id))
    for goal in context.active_goals():
        deps = [d for d in goal.depends_on if d.weight > 0.0]
        out.update((Trigger.GOAL_DEPENDENCY, d.claim_id) for d in deps)
        if goal.due_at is not None:
            left = (as_utc(goal.due_at) - as_utc(context.now)).total_seconds()
            if left <= config.deadline_horizon_s:
                out.update((Trigger.DEADLINE, d.claim_id) for d in goal.depends_on)
    out.update((Trigger.GOAL_DEPENDENCY, v) for v in relevant)
    out.update((Trigger.CONTRADICTION, c) for c in context.contradictions)
    out.update((Trigger.FAILED_ACTION, f.target) for f in context.failures)
    out.update((Trigger.INTERRUPTION, i.id) for i in context.interruptions)
    return out


def fired(proposals: Iterable[Candidate]) -> set[Opportunity]:
    """The (trigger, subject) pairs the generators' proposals cover."""
    out: set[Opportunity] = set()
    for c in proposals:
        if c.kind is CandidateKind.INSPECT_SOURCE and c.trigger is not Trigger.EXPLORATION:
            out.update((c.trigger, claim_id) for claim_id in c.claim_ids)
        else:
            out.add((c.trigger, c.target))
    return out
