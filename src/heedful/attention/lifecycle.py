"""Candidate lifecycle (document 000 §6–§8, §12): expire, generate, admit, estimate.

One recomputation (:meth:`CandidateLifecycle.refresh`) builds the context snapshot, drops expired
candidates, rebuilds the generators' proposals (a candidate lives only while some generator still
proposes it), admits new ones through the guard and estimates every live candidate. A part of
:class:`heedful.attention.Controller`, built from the collaborators it uses (no controller).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from heedful.attention._copy import copy_candidate
from heedful.attention.config import FloorConfig
from heedful.attention.context import AttentionContext
from heedful.attention.estimators import Estimate, Estimator, action_values
from heedful.attention.floors import assign_floors, claim_floors
from heedful.attention.generators import PENDING_ID, Generator
from heedful.attention.guard import Admission, Guard, merge_candidates
from heedful.attention.instruments import Instruments
from heedful.attention.persist import StoreMirror
from heedful.attention.records import Agenda, TableNotes, TurnLog, TurnRecord
from heedful.attention.world import World
from heedful.model.base import as_utc
from heedful.model.candidate import Candidate, CandidateKind, EventType, Trigger

__all__ = ["CandidateLifecycle"]


class CandidateLifecycle:
    """The candidate table over time: context, admission, recomputation.

    Args:
        world: Sources, beliefs, goals, the stated decision.
        guard: The admission guard and its candidate table.
        generators: The candidate generators.
        estimator: Estimates every live candidate.
        instruments: The controller's self-measurement (funnel, updates, anomalies).
        floors: Claim types whose reads get a floor.
        turn: The shared turn record.
        agenda: What the agent declared and read.
        notes: What is kept about the live candidates beside the table.
        log: Writes a trace event of the current turn.
        clock: Returns "now".
        leave_columns: Writes the candidate columns back before the objects take over.
        mirror: The memory store's mirror, when there is a store (dirty flags are pulled).
        repeat_inspections: Whether a source already inspected may be inspected again.
    """

    def __init__(
        self,
        *,
        world: World,
        guard: Guard,
        generators: list[Generator],
        estimator: Estimator,
        instruments: Instruments,
        floors: FloorConfig,
        turn: TurnRecord,
        agenda: Agenda,
        notes: TableNotes,
        log: TurnLog,
        clock: Callable[[], datetime],
        leave_columns: Callable[[], None],
        mirror: StoreMirror | None = None,
        repeat_inspections: bool = True,
    ) -> None:
        self.world = world
        self.guard = guard
        self.generators = generators  # the facade's list (shared, not copied)
        self.estimator = estimator
        self.instruments = instruments
        self.floors = floors
        self.turn = turn
        self.agenda = agenda
        self.notes = notes
        self.log = log
        self.clock = clock
        self.leave_columns = leave_columns
        self.mirror = mirror
        self.repeat_inspections = repeat_inspections

    def context(self, now: datetime | None = None) -> AttentionContext:
        """A snapshot of everything generators and estimators read (at ``now``: the clock's)."""
        now = self.clock() if now is None else now
        w = self.world
        a = self.agenda
        t = self.turn
        ids = set(w.beliefs) | {c for s in w.sources.values() for c in s.reports}
        ctx = AttentionContext(
            now=now,
            turn=t.turn,
            claims={c: w.claim_state(c, now) for c in sorted(ids)},
            sources=w.sources,
            goals=w.goals,
            decision=w.decision,
            pending_claims=tuple(a.pending_claims),
            contradictions=dict(w.contradictions),
            failures=tuple(a.failures),
            interruptions=tuple(a.interruptions),
            focus=a.focus,
            inspected=dict(a.inspected),
            committed=tuple(a.committed),
            budget_left=t.budget,
            cost_weight=t.cost_weight
            if t.cost_weight is not None
            else (w.decision.cost_weight if w.decision is not None else None),
            hazards_per_hour=w.hazards,
        )
        self.instruments.enrich(ctx)
        d = w.decision
        if d is not None and (d.irreversible or d.destructive):
            values = action_values(d, ctx)
            ctx.pending_action = max(values, key=lambda a: values[a]) if values else None
        return ctx

    def admit(self, candidate: Candidate, now: datetime) -> Candidate | None:
        """Pass a candidate through the guard; log its creation, or one skip per owner, reason
        and turn; return the live candidate (None: refused)."""
        self.leave_columns()  # a candidate from outside the columns: the objects take over
        status, live = self.guard.admit(copy_candidate(candidate, {"id": PENDING_ID}), now)
        if status is Admission.CREATED and live is not None:
            self.log(
                EventType.CANDIDATE_CREATED,
                now,
                candidate_id=live.id,
                reason_code=live.trigger.value,
                forced=live.forced,
                detail={"origin": live.origin, "target": live.target},
            )
        elif status in (Admission.RATE_LIMITED, Admission.QUOTA_EXCEEDED, Admission.TABLE_FULL):
            # One event per (owner, reason) and turn: a flood must not flood the trace too; the
            # guard's aggregates keep the counts.
            key = (candidate.submitted_by or candidate.origin, status.value)
            logged = self.notes.skip_logged
            if key in logged:
                return live
            logged.add(key)
            self.log(
                EventType.CANDIDATE_SKIPPED,
                now,
                reason_code=status.value,
                detail={"submitted_by": candidate.submitted_by, "target": candidate.target},
            )
        return live

    def refresh(self, now: datetime | None) -> list[tuple[Candidate, Estimate]]:
        """Expire, generate, admit and estimate; return the scored live candidates."""
        notes = self.notes
        agenda = self.agenda
        if self.mirror is not None:
            self.mirror.pull_dirty(self.world)
        ctx = self.context(now)
        now = ctx.now
        dropped: set[str] = set()  # interruptions no longer pending (expired or refused)
        for c in self.guard.table:
            if c.expires_at is not None and as_utc(c.expires_at) <= as_utc(now):
                self.guard.table.remove(c.id)
                notes.waited.pop(c.id, None)
                if c.kind is CandidateKind.HANDLE_INTERRUPTION:
                    dropped.add(c.target)
                self.log(EventType.CANDIDATE_EXPIRED, now, candidate_id=c.id)
        # Generators' proposals are rebuilt from scratch every time: a candidate lives only while
        # some generator still proposes it (its goal may have completed, its claim been
        # refreshed), with exactly the goals and claims proposed now. Submitted and forced
        # candidates are not the generators' to withdraw.
        if dropped:
            agenda.interruptions = [i for i in agenda.interruptions if i.id not in dropped]
            ctx.interruptions = tuple(agenda.interruptions)
        fresh: dict[tuple[str, str], Candidate] = {}
        external: list[Candidate] = []
        proposals = [c for gen in self.generators for c in gen.generate(ctx)]
        self.instruments.funnel(ctx, proposals)
        floors = claim_floors(ctx, self.floors)
        if floors:
            proposals = assign_floors(proposals, floors, ctx.inspected)
        # Reads the exploration generator proposed, whatever trigger the merge names them by.
        notes.explorable_keys = {
            (c.kind.value, c.target) for c in proposals if c.trigger is Trigger.EXPLORATION
        }
        for cand in proposals:
            if cand.submitted_by is not None:
                external.append(cand)
                continue
            key = (cand.kind.value, cand.target)
            fresh[key] = merge_candidates(fresh[key], cand) if key in fresh else cand
        for c in self.guard.table:
            if c.submitted_by is not None or c.forced:
                continue
            renewed = fresh.pop((c.kind.value, c.target), None)
            if renewed is not None:
                self.guard.table.put(
                    copy_candidate(renewed, {"id": c.id, "created_at": c.created_at})
                )
                continue
            self.guard.table.remove(c.id)
            notes.waited.pop(c.id, None)
            self.instruments.forget(c.id)
            self.log(
                EventType.CANDIDATE_EXPIRED,
                now,
                candidate_id=c.id,
                reason_code="no_longer_generated",
            )
        new = list(fresh.values())
        order = self.guard.admission_order([(c.origin, c.authority, c.cost.scalar()) for c in new])
        for cand in [*(new[i] for i in order), *external]:
            live = self.admit(cand, now)
            if live is None and cand.kind is CandidateKind.HANDLE_INTERRUPTION:
                # Refused by the guard (rate limit, quota, full table): aggregated there, not
                # kept pending here, or a flood would grow this list and be re-counted forever.
                dropped.add(cand.target)
        if dropped:
            agenda.interruptions = [i for i in agenda.interruptions if i.id not in dropped]
        scored: list[tuple[Candidate, Estimate]] = []
        for c in self.guard.table:
            if c.kind is CandidateKind.INSPECT_SOURCE and (
                c.target not in self.world.sources
                or (not self.repeat_inspections and c.target in agenda.inspected)
            ):
                continue
            est = self.estimator.estimate(c, ctx)
            update: dict[str, Any] = {
                "predicted_voc": est.net,
                "p_stale": est.p_stale,
                "p_wrong": est.p_wrong,
                "p_change": est.p_change,
                "switch_cost": est.switch_cost,
            }
            if c.submitted_by is None and not c.forced and c.kind is CandidateKind.INSPECT_SOURCE:
                # §8.2: the estimate's E|ΔU|; generated candidates are rebuilt each time, so
                # this never feeds back into the next estimate.
                update["loss_if_wrong"] = max(est.expected_loss, 0.0)
            live = copy_candidate(c, update)
            self.guard.table.put(live)
            self.instruments.scored(live, est, now)
            scored.append((live, est))
        notes.last_estimates = {c.id: e for c, e in scored}
        notes.saturation = self.guard.saturation(e.p_change for _, e in scored)
        self.instruments.anomalies(notes.saturation, (e.p_change for _, e in scored), now)
        self.instruments.keep_only(c.id for c, _ in scored)
        return scored
