"""Lexicographic floors from trusted metadata (document 000 §11.2).

A floor is a governance precondition, not a learned preference: it lets one read bypass ranking
and the stopping rule. Floors come only from trusted metadata — a claim type the operator
declared safety-critical or compliance-bound, an action the stated decision declares
irreversible or destructive — never from candidate content or from a submitter. Each floored
claim gets one floor: on the most authoritative source proposed for it, and only while its
evidence is not fresh (a fresh read satisfies the floor, so it cannot loop).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from _reference.context import AttentionContext, claim_p_stale
from heedful.attention.config import FloorConfig
from heedful.model.candidate import Candidate, CandidateKind, Floor

__all__ = ["assign_floors", "claim_floors"]


def claim_floors(context: AttentionContext, config: FloorConfig) -> dict[str, Floor]:
    """Claim id → the strongest floor its trusted metadata gives, for claims not fresh now."""
    out: dict[str, Floor] = {}

    def add(claim_id: str, floor: Floor) -> None:
        if claim_id not in out or floor.rank < out[claim_id].rank:
            out[claim_id] = floor

    def stale(claim_id: str) -> bool:
        claim = context.claims.get(claim_id)
        if claim is None or claim.value is None or claim.dirty:
            return True
        return claim_p_stale(claim, context.hazards_per_hour) >= config.stale_threshold

    for claim_id, claim in context.claims.items():
        floor = config.claim_types.get(claim.claim_type)
        if floor is not None and stale(claim_id):
            add(claim_id, floor)
    d = context.decision
    action = context.pending_action
    if d is not None and action is not None:
        for var in d.relevant_variables:
            if not stale(var):
                continue
            if action in d.irreversible:
                add(var, Floor.IRREVERSIBLE_STALE)
            if action in d.destructive:
                add(var, Floor.DESTRUCTIVE_OPERATION)
    return out


def assign_floors(
    candidates: Sequence[Candidate],
    floors: Mapping[str, Floor],
    inspected: Mapping[str, int] | None = None,
) -> list[Candidate]:
    """Give each floored claim's best inspection candidate its floor; others are unchanged.

    Args:
        candidates: Live candidates (generated; submitted ones never receive a floor).
        floors: Claim id → floor, from :func:`claim_floors`.
        inspected: Sources already read: a floor is never put on one again (a failing source
            must not hold the turn in a loop of floored reads).

    Returns:
        The candidates, with floors set where due.
    """
    best: dict[str, tuple[float, int]] = {}
    for i, c in enumerate(candidates):
        if c.kind is not CandidateKind.INSPECT_SOURCE or c.submitted_by is not None:
            continue
        if inspected and inspected.get(c.target):
            continue
        for claim_id in c.claim_ids:
            if claim_id not in floors:
                continue
            if claim_id not in best or c.authority > best[claim_id][0]:
                best[claim_id] = (c.authority, i)
    out = list(candidates)
    for claim_id, (_, i) in best.items():
        c = out[i]
        floor = floors[claim_id]
        if c.floor is None or floor.rank < c.floor.rank:
            out[i] = c.model_copy(update={"floor": floor})
    return out
