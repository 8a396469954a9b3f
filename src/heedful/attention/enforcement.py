"""Claim enforcement (document 000 §19): check a claim, force the read it needs, log rescues.

In ``production`` mode a claim without the evidence its policy requires is blocked and a
budget-exempt forced read of the required source is admitted with the ``mandatory_proof`` floor;
once that evidence arrives the block is lifted and a ``validator_rescue`` event is logged. A part
of :class:`heedful.attention.Controller`, built from the collaborators it uses (no controller).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from heedful.attention.generators import PENDING_ID
from heedful.attention.records import TurnLog
from heedful.attention.validator import ClaimValidator, Verdict
from heedful.attention.world import World
from heedful.model.candidate import Candidate, CandidateKind, EventType, Floor, Trigger

__all__ = ["ClaimEnforcement"]


class ClaimEnforcement:
    """The claim validator's side of the controller.

    Args:
        world: Beliefs, evidence, sources (what a claim is checked against).
        validator: The claim policies and the mode (``production`` blocks).
        admit: Passes the forced read through the guard (the lifecycle's ``admit``).
        log: Writes a trace event of the current turn.
        clock: Returns "now".

    Attributes:
        blocked: Claim id → claim type, of the blocked claims awaiting their forced read.
    """

    def __init__(
        self,
        *,
        world: World,
        validator: ClaimValidator,
        admit: Callable[[Candidate, datetime], Candidate | None],
        log: TurnLog,
        clock: Callable[[], datetime],
    ) -> None:
        self.world = world
        self.validator = validator
        self.admit = admit
        self.log = log
        self.clock = clock
        self.blocked: dict[str, str] = {}

    def check_claim(self, claim_id: str, *, claim_type: str | None = None) -> Verdict:
        """Validate a claim the agent is about to make (document 000 §19).

        Raises:
            UnknownNameError: No belief, source or stated decision knows the claim (a typo).
        """
        self.world.require_claim(claim_id)
        now = self.clock()
        belief = self.world.beliefs.get(claim_id)
        ctype = claim_type or (belief.claim_type if belief else claim_id)
        verdict = self.validator.check(
            claim_id, ctype, self.world.evidence, self.world.claimed, now
        )
        if not verdict.ok:
            self.log(
                EventType.VALIDATOR_VIOLATION,
                now,
                reason_code=",".join(v.value for v in verdict.violations),
                detail={"claim_id": claim_id, "claim_type": ctype, "blocked": verdict.blocked},
            )
        if verdict.blocked and verdict.required_sources:
            self.blocked[claim_id] = ctype
            src = self.world.sources[verdict.required_sources[0]]
            c = self.world.claim_state(claim_id, now)
            self.admit(
                Candidate(
                    id=PENDING_ID,
                    kind=CandidateKind.INSPECT_SOURCE,
                    target=src.id,
                    trigger=Trigger.VALIDATOR,
                    origin="validator",
                    claim_ids=(claim_id,),
                    authority=src.authority_for(ctype),
                    evidence_age_s=c.age_s,
                    volatility=c.volatility,
                    cost=src.cost,
                    floor=Floor.MANDATORY_PROOF,
                    forced=True,
                    created_at=now,
                ),
                now,
            )
        return verdict

    def rescue_if_satisfied(self, now: datetime) -> None:
        """Lift the blocks whose evidence now satisfies their policy (``validator_rescue``)."""
        for claim_id, ctype in list(self.blocked.items()):
            v = self.validator.check(claim_id, ctype, self.world.evidence, self.world.claimed, now)
            if v.ok:
                del self.blocked[claim_id]
                self.log(
                    EventType.VALIDATOR_RESCUE,
                    now,
                    forced=True,
                    detail={"claim_id": claim_id},
                )
