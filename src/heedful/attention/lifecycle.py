"""Candidate lifecycle (document 000 §6–§8, §12): expire, generate, admit, estimate.

One recomputation (:meth:`CandidateLifecycle.refresh`) builds the context snapshot, drops expired
candidates, rebuilds the generators' proposals (a candidate lives only while some generator still
proposes it), admits new ones through the guard and estimates every live candidate.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from heedful.attention._copy import copy_candidate
from heedful.attention._state import ControllerState
from heedful.attention.context import AttentionContext
from heedful.attention.estimators import Estimate, action_values
from heedful.attention.floors import assign_floors, claim_floors
from heedful.attention.generators import PENDING_ID
from heedful.attention.guard import Admission, merge_candidates
from heedful.model.base import as_utc
from heedful.model.candidate import Candidate, CandidateKind, EventType, Trigger

__all__ = ["CandidateLifecycle"]


class CandidateLifecycle(ControllerState):
    """The controller's candidate table over time (a part of :class:`Controller`)."""

    def context(self, now: datetime | None = None) -> AttentionContext:
        """A snapshot of everything generators and estimators read (at ``now``: the clock's)."""
        now = self.clock() if now is None else now
        w = self.world
        ids = set(w.beliefs) | {c for s in w.sources.values() for c in s.reports}
        ctx = AttentionContext(
            now=now,
            turn=self.turn,
            claims={c: w.claim_state(c, now) for c in sorted(ids)},
            sources=w.sources,
            goals=w.goals,
            decision=w.decision,
            pending_claims=tuple(self.pending_claims),
            contradictions=dict(w.contradictions),
            failures=tuple(self.failures),
            interruptions=tuple(self.interruptions),
            focus=self.focus,
            inspected=dict(self.inspected),
            committed=tuple(self.committed),
            budget_left=self.budget,
            cost_weight=self.cost_weight
            if self.cost_weight is not None
            else (w.decision.cost_weight if w.decision is not None else None),
            hazards_per_hour=w.hazards,
        )
        self.instruments.enrich(ctx)
        d = w.decision
        if d is not None and (d.irreversible or d.destructive):
            values = action_values(d, ctx)
            ctx.pending_action = max(values, key=lambda a: values[a]) if values else None
        return ctx

    def submit(self, candidate: Candidate) -> Candidate | None:
        """Submit a candidate from outside (e.g. a tool or worker); it passes the guard."""
        if candidate.submitted_by is not None:
            self.world.source(candidate.submitted_by)
        # Only the claim validator forces reads (budget-exempt, never spontaneous).
        return self._admit(candidate.model_copy(update={"forced": False}), self.clock())

    def _admit(self, candidate: Candidate, now: datetime) -> Candidate | None:
        self._columns.leave()  # a candidate from outside the columns: the objects take over
        status, live = self.guard.admit(copy_candidate(candidate, {"id": PENDING_ID}), now)
        if status is Admission.CREATED and live is not None:
            self._log(
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
            if key in self._skip_logged:
                return live
            self._skip_logged.add(key)
            self._log(
                EventType.CANDIDATE_SKIPPED,
                now,
                reason_code=status.value,
                detail={"submitted_by": candidate.submitted_by, "target": candidate.target},
            )
        return live

    def refresh(self) -> list[tuple[Candidate, Estimate]]:
        """Expire, generate, admit and estimate; return the scored live candidates."""
        with self._trace_batch():
            self._columns.leave()
            return self._refresh(None)

    def _refresh(self, now: datetime | None) -> list[tuple[Candidate, Estimate]]:
        if self.mirror is not None:
            self.mirror.pull_dirty(self.world)
        ctx = self.context(now)
        now = ctx.now
        dropped: set[str] = set()  # interruptions no longer pending (expired or refused)
        for c in self.guard.table:
            if c.expires_at is not None and as_utc(c.expires_at) <= as_utc(now):
                self.guard.table.remove(c.id)
                self._waited.pop(c.id, None)
                if c.kind is CandidateKind.HANDLE_INTERRUPTION:
                    dropped.add(c.target)
                self.trace.write(
                    EventType.CANDIDATE_EXPIRED, turn_id=self.turn_id, now=now, candidate_id=c.id
                )
        # Generators' proposals are rebuilt from scratch every time: a candidate lives only while
        # some generator still proposes it (its goal may have completed, its claim been
        # refreshed), with exactly the goals and claims proposed now. Submitted and forced
        # candidates are not the generators' to withdraw.
        if dropped:
            self.interruptions = [i for i in self.interruptions if i.id not in dropped]
            ctx.interruptions = tuple(self.interruptions)
        fresh: dict[tuple[str, str], Candidate] = {}
        external: list[Candidate] = []
        proposals = [c for gen in self.generators for c in gen.generate(ctx)]
        self.instruments.funnel(ctx, proposals)
        floors = claim_floors(ctx, self.config.floors)
        if floors:
            proposals = assign_floors(proposals, floors, ctx.inspected)
        # Reads the exploration generator proposed, whatever trigger the merge names them by.
        self._explorable_keys = {
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
            self._waited.pop(c.id, None)
            self.instruments.forget(c.id)
            self._log(
                EventType.CANDIDATE_EXPIRED,
                now,
                candidate_id=c.id,
                reason_code="no_longer_generated",
            )
        new = list(fresh.values())
        order = self.guard.admission_order([(c.origin, c.authority, c.cost.scalar()) for c in new])
        for cand in [*(new[i] for i in order), *external]:
            live = self._admit(cand, now)
            if live is None and cand.kind is CandidateKind.HANDLE_INTERRUPTION:
                # Refused by the guard (rate limit, quota, full table): aggregated there, not
                # kept pending here, or a flood would grow this list and be re-counted forever.
                dropped.add(cand.target)
        if dropped:
            self.interruptions = [i for i in self.interruptions if i.id not in dropped]
        scored: list[tuple[Candidate, Estimate]] = []
        for c in self.guard.table:
            if c.kind is CandidateKind.INSPECT_SOURCE and (
                c.target not in self.world.sources
                or (not self.repeat_inspections and c.target in self.inspected)
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
        self._last_estimates = {c.id: e for c, e in scored}
        self.saturation = self.guard.saturation(e.p_change for _, e in scored)
        self.instruments.anomalies(self.saturation, (e.p_change for _, e in scored), now)
        self.instruments.keep_only(c.id for c, _ in scored)
        return scored
