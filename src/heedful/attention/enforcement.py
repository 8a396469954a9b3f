"""Claim enforcement (document 000 §19): check a claim, force the read it needs, log rescues.

In ``production`` mode a claim without the evidence its policy requires is blocked and a
budget-exempt forced read of the required source is admitted with the ``mandatory_proof`` floor;
once that evidence arrives the block is lifted and a ``validator_rescue`` event is logged.
"""

from __future__ import annotations

from datetime import datetime

from heedful.attention._state import ControllerState
from heedful.attention.generators import PENDING_ID
from heedful.attention.validator import Verdict
from heedful.model.candidate import Candidate, CandidateKind, EventType, Floor, Trigger

__all__ = ["ClaimEnforcement"]


class ClaimEnforcement(ControllerState):
    """The claim validator's side of the controller (a part of :class:`Controller`)."""

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
            self._log(
                EventType.VALIDATOR_VIOLATION,
                now,
                reason_code=",".join(v.value for v in verdict.violations),
                detail={"claim_id": claim_id, "claim_type": ctype, "blocked": verdict.blocked},
            )
        if verdict.blocked and verdict.required_sources:
            self._blocked[claim_id] = ctype
            src = self.world.sources[verdict.required_sources[0]]
            c = self.world.claim_state(claim_id, now)
            self._admit(
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

    def _rescue_if_satisfied(self, now: datetime) -> None:
        for claim_id, ctype in list(self._blocked.items()):
            v = self.validator.check(claim_id, ctype, self.world.evidence, self.world.claimed, now)
            if v.ok:
                del self._blocked[claim_id]
                self._log(
                    EventType.VALIDATOR_RESCUE,
                    now,
                    forced=True,
                    detail={"claim_id": claim_id},
                )
