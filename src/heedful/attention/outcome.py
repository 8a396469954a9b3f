"""Outcome recording (document 000 §12 "after outcome", §3.3, §7): what a resolve teaches.

Checks a resolution before anything changes, writes the ``resolved`` record, turns a failed
computation into a diagnostic candidate, counts a read toward its class's usefulness and hands
the focus back after an interruption.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from heedful.attention._state import ControllerState
from heedful.attention.context import Failure, Focus
from heedful.attention.estimators import Estimate, action_values
from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.model.candidate import Candidate, CandidateKind, EventType, Resolution

__all__ = ["OutcomeRecording"]


class OutcomeRecording(ControllerState):
    """The resolve side of the controller (a part of :class:`Controller`)."""

    def _utility_delta(self, before: str, after: str) -> float:
        """Realised value of the change of mind: EU(after) − EU(before) under the new beliefs."""
        d = self.world.decision
        if d is None or before == after:
            return 0.0
        values = action_values(d, self.context())
        return values.get(after, 0.0) - values.get(before, 0.0)

    def _after_outcome(
        self,
        cand: Candidate,
        est: Estimate | None,
        res: Resolution,
        evidence_used: bool,
        now: datetime,
    ) -> None:
        """The §12 resolved record, then what the outcome teaches: a failure becomes a
        diagnostic candidate (§7), a read counts toward its class's usefulness (§3.3), and a
        finished interruption hands the focus back (Phase 5 resumption)."""
        resumed: Focus | None = None
        if cand.id in self._resume:
            resumed = self._resume.pop(cand.id)
            self.focus = resumed
        self.trace.write(
            EventType.RESOLVED,
            turn_id=self.turn_id,
            now=now,
            candidate_id=cand.id,
            predicted_voc=est.net if est is not None else cand.predicted_voc,
            forced=cand.forced,
            resolution=res,
            detail={
                "kind": cand.kind.value,
                "target": cand.target,
                "trigger": cand.trigger.value,
                "cost_term": est.cost_term if est is not None else None,
                "evidence_used": evidence_used,
                "resumed_focus": resumed.candidate_id if resumed is not None else None,
            },
        )
        if (
            not res.inspection_succeeded
            and self.config.generator.diagnose_failures
            and cand.kind is not CandidateKind.DIAGNOSE_FAILURE
        ):
            loss = est.expected_loss if est is not None else 0.0
            self.failures.append(
                Failure(
                    f"failed:{cand.id}",
                    cand.target,
                    max(loss, cand.loss_if_wrong) or self.config.estimator.default_loss,
                    claim_ids=cand.claim_ids,
                    cost=cand.cost,
                )
            )
        src = self.world.sources.get(cand.target)
        if cand.kind is CandidateKind.INSPECT_SOURCE and src is not None and cand.claim_ids:
            belief = self.world.beliefs.get(cand.claim_ids[0])
            ctype = belief.claim_type if belief is not None else cand.claim_ids[0]
            useful = bool(res.belief_changed) or bool(res.decision_changed)
            self.instruments.inspected(src.kind, ctype, useful)

    def _observes(self, cand: Candidate) -> bool:
        """Whether resolving ``cand`` may report observations: a read, or the diagnosis of a
        failed read of a registered source (diagnosing it reads the source again, so the loop
        ``resolve(step.id, observations=read(step.target))`` holds for every step)."""
        return cand.kind is CandidateKind.INSPECT_SOURCE or (
            cand.kind is CandidateKind.DIAGNOSE_FAILURE and cand.target in self.world.sources
        )

    def _check_resolution(
        self,
        candidate_id: str,
        succeeded: bool,
        observations: Mapping[str, str | None] | None,
        withheld: bool,
    ) -> Candidate:
        """The in-flight candidate, once everything :meth:`resolve` would refuse is ruled out.

        Nothing changes here, so a refused resolve keeps the selection for a corrected retry.
        """
        cand = self._inflight.get(candidate_id)
        if cand is None:
            raise UnknownNameError(
                f"candidate {candidate_id!r} was not selected or is already resolved"
            )
        if withheld and observations:
            raise InvalidArgumentError("a withheld result cannot carry observations")
        if withheld and cand.kind is not CandidateKind.INSPECT_SOURCE:
            raise InvalidArgumentError(
                f"candidate {candidate_id!r} is not an inspection; only a read can be withheld"
            )
        if observations and not self._observes(cand):
            raise InvalidArgumentError(
                f"candidate {candidate_id!r} is not an inspection; it has no observations"
            )
        for claim_id, value in (observations or {}).items():
            self.world.check_evidence(claim_id, cand.target, value if succeeded else None)
            if self.mirror is not None:
                self.mirror.check_evidence(claim_id, value if succeeded else None)
        return cand
