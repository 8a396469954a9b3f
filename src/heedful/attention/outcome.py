"""Outcome recording (document 000 §12 "after outcome", §3.3, §7): what a resolve teaches.

Checks a resolution before anything changes, writes the ``resolved`` record, turns a failed
computation into a diagnostic candidate, counts a read toward its class's usefulness and hands
the focus back after an interruption. It holds what is in flight between ``next()`` and
``resolve()``. A part of :class:`heedful.attention.Controller`, built from the collaborators it
uses (no controller).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from heedful.attention.config import AttentionConfig
from heedful.attention.context import Failure, Focus
from heedful.attention.estimators import Estimate
from heedful.attention.instruments import Instruments
from heedful.attention.persist import StoreMirror
from heedful.attention.records import Agenda, TurnLog
from heedful.attention.world import World
from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.model.candidate import Candidate, CandidateKind, EventType, Resolution

__all__ = ["OutcomeRecorder"]


class OutcomeRecorder:
    """The resolve side of the controller: what is in flight, and what an outcome teaches.

    Args:
        world: Sources and beliefs (what a resolution is checked against).
        instruments: Counts reads toward their class's usefulness.
        config: The ``diagnose_failures`` switch and the default loss of a diagnosis.
        agenda: Failures and focus (a failure becomes a diagnosis; a focus is handed back).
        log: Writes a trace event of the current turn.
        mirror: The memory store's mirror, when there is a store (checks observations too).

    Attributes:
        inflight: Candidate id → candidate, of every selected computation not yet resolved.
        selected: Candidate id → estimate at selection, of the same.
        resume: Interruption in flight → the focus to hand back when it is resolved.
    """

    def __init__(
        self,
        *,
        world: World,
        instruments: Instruments,
        config: AttentionConfig,
        agenda: Agenda,
        log: TurnLog,
        mirror: StoreMirror | None = None,
    ) -> None:
        self.world = world
        self.instruments = instruments
        self.config = config
        self.agenda = agenda
        self.log = log
        self.mirror = mirror
        self.inflight: dict[str, Candidate] = {}
        self.selected: dict[str, Estimate] = {}
        self.resume: dict[str, Focus | None] = {}

    def dispatch(self, cand: Candidate, est: Estimate) -> None:
        """``cand`` was selected with ``est``: it is in flight until resolved; an interruption
        remembers the focus it interrupts."""
        self.selected[cand.id] = est
        self.inflight[cand.id] = cand
        if cand.kind is CandidateKind.HANDLE_INTERRUPTION:
            self.resume[cand.id] = self.agenda.focus  # resumption metadata (Phase 5)

    def take(self, candidate_id: str) -> Estimate | None:
        """Consume the selection of ``candidate_id`` (checked by :meth:`check`); its estimate."""
        del self.inflight[candidate_id]
        return self.selected.pop(candidate_id, None)

    def record(
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
        if cand.id in self.resume:
            resumed = self.resume.pop(cand.id)
            self.agenda.focus = resumed
        self.log(
            EventType.RESOLVED,
            now,
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
            self.agenda.failures.append(
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

    def observes(self, cand: Candidate) -> bool:
        """Whether resolving ``cand`` may report observations: a read, or the diagnosis of a
        failed read of a registered source (diagnosing it reads the source again, so the loop
        ``resolve(step.id, observations=read(step.target))`` holds for every step)."""
        return cand.kind is CandidateKind.INSPECT_SOURCE or (
            cand.kind is CandidateKind.DIAGNOSE_FAILURE and cand.target in self.world.sources
        )

    def check(
        self,
        candidate_id: str,
        succeeded: bool,
        observations: Mapping[str, str | None] | None,
        withheld: bool,
    ) -> Candidate:
        """The in-flight candidate, once everything ``resolve`` would refuse is ruled out.

        Nothing changes here, so a refused ``resolve`` keeps the selection for a corrected retry.
        """
        cand = self.inflight.get(candidate_id)
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
        if observations and not self.observes(cand):
            raise InvalidArgumentError(
                f"candidate {candidate_id!r} is not an inspection; it has no observations"
            )
        for claim_id, value in (observations or {}).items():
            self.world.check_evidence(claim_id, cand.target, value if succeeded else None)
            if self.mirror is not None:
                self.mirror.check_evidence(claim_id, value if succeeded else None)
        return cand
