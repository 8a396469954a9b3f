"""The candidate table as columns: an incremental ``next()`` for the common steady state.

:meth:`Controller.next` normally rebuilds every proposal, copies every live candidate and
estimates each one in Python. In the common steady state — the default generators and the
heuristic estimator, no stated decision, no pending claims, contradictions, failures,
interruptions, commitments, focus, floors, deadlines, submitted or forced candidates, every
source reporting one claim — each live candidate is "inspect source *s*" for the one claim *s*
reports, and everything the generators and the estimator would compute is a function of a few
per-claim and per-source columns. :class:`ColumnTable` keeps those columns and recomputes only
what changed: a belief a resolve (or the caller) touched updates its claim's row; the clock,
which ages every piece of evidence, is applied to the whole age column at once; the estimate
and the selection run over numpy arrays. Candidate objects are built only for what leaves the
table (the selected candidate) or when a caller reads the table (:meth:`ColumnTable.sync`).

Every number is computed with the same floating-point operations, in the same order, as the
object path (``math.expm1`` per claim for staleness, so no last-bit drift), and events are
written in the same order; the equivalence tests drive both paths with the same workloads.
Anything outside the steady state falls back to the object path for that call, after
:meth:`ColumnTable.sync` has written the table back.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np

from heedful.attention.column_estimate import ColumnEstimation, p_stale_of
from heedful.attention.column_select import (
    DIRTY,
    EXPLORE,
    GOAL,
    ORIGINS,
    STALE,
    ColumnSelection,
    Scored,
    column_heuristic,
)
from heedful.attention.generators import default_generators
from heedful.attention.guard import Admission
from heedful.model.base import as_utc
from heedful.model.candidate import CandidateKind, EventType, Trigger
from heedful.model.goal import GoalStatus

if TYPE_CHECKING:
    from heedful.attention._state import ControllerState as Controller

__all__ = ["ColumnTable", "Scored"]

_DEFAULT_GENERATOR_TYPES = tuple(type(g) for g in default_generators())
_US = timedelta(microseconds=1)


class ColumnTable(ColumnSelection, ColumnEstimation):
    """Columns of the live candidates of one controller (see the module docstring).

    Args:
        ctl: The controller whose table this mirrors.
    """

    def __init__(self, ctl: Controller) -> None:
        self.ctl = ctl
        self.active = False  # columns hold the truth (the table objects may lag)
        self.version = -1  # world version the columns were built for
        self.dirty = False  # table objects lag the columns (sync() writes them)
        self.scored: Scored | None = None  # the last recomputation's estimates

    # -- when the columns apply

    def eligible(self, now: datetime) -> bool:
        """Whether this recomputation is in the steady state the columns cover."""
        c = self.ctl
        w = c.world
        est = column_heuristic(c.estimator)
        if est is None or est.config.hazards_per_hour != w.hazards:
            return False
        gens = c.generators
        if tuple(type(g) for g in gens) != _DEFAULT_GENERATOR_TYPES:
            return False
        if any(getattr(g, "config", None) != c.config.generator for g in gens):
            return False
        if c.mirror is not None or w.decision is not None or c.config.floors.claim_types:
            return False
        if c.pending_claims or w.contradictions or c.failures or c.interruptions:
            return False
        if c.committed or c.focus is not None or c.instruments.volatility.learned:
            return False
        if self.active and self.version == w.version and self.goals == _goals_key(c):
            if len(c.guard.table) != int(self.live.sum()):
                return False  # something was submitted or forced in between
            if as_utc(now) < as_utc(self.now) or as_utc(self.expires) <= as_utc(now):
                return False  # the clock went back, or every candidate expired
            # A new claim changes the claims' order: rebuild.
            return all(t in self.claim_index for t in w.touched)
        if self.active:
            self.leave()
        return self._build(now)

    def leave(self) -> None:
        """Write the table back and stop using the columns (the object path takes over)."""
        self.sync()
        self.active = False

    # -- building the columns from the objects

    def _build(self, now: datetime) -> bool:
        c = self.ctl
        w = c.world
        for g in w.goals.values():
            if g.status is GoalStatus.ACTIVE and g.due_at is not None:
                return False
        sources = list(w.sources.values())
        if any(len(s.reports) != 1 for s in sources):
            return False
        slot = {s.id: i for i, s in enumerate(sources)}
        live = np.zeros(len(sources), dtype=bool)
        seq = np.zeros(len(sources), dtype=np.int64)
        ids: list[str | None] = [None] * len(sources)
        created: list[datetime | None] = [None] * len(sources)
        origin = np.full(len(sources), -1, dtype=np.int64)
        expires: datetime | None = None
        for cand in c.guard.table:
            i = slot.get(cand.target)
            if (
                i is None
                or cand.kind is not CandidateKind.INSPECT_SOURCE
                or cand.submitted_by is not None
                or cand.forced
                or cand.floor is not None
                or not cand.id.startswith("attn-")
                or cand.expires_at is None
                or (expires is not None and cand.expires_at != expires)
            ):
                return False
            expires = cand.expires_at
            live[i] = True
            seq[i] = int(cand.id.removeprefix("attn-"))
            ids[i] = cand.id
            created[i] = cand.created_at
            origin[i] = ORIGINS.index(cand.origin) if cand.origin in ORIGINS else -1
            if origin[i] < 0:
                return False
        if expires is not None and as_utc(expires) <= as_utc(now):
            return False  # the object path expires them
        self.sources = sources
        self.slot = slot
        self.live, self.seq, self.ids, self.created = live, seq, ids, created
        self.row_of_id = {cid: r for r, cid in enumerate(ids) if cid is not None}
        self.origin = origin
        self.trigger = np.full(len(sources), GOAL, dtype=np.int64)
        self.waited = np.array([c._waited.get(i or "", 0) for i in ids], dtype=np.int64)
        last = c.instruments._last_voc
        self.last_voc = np.array([last.get(i or "", math.nan) for i in ids], dtype=float)
        self.ref = now
        self.now = now
        self.expires = expires if expires is not None else now + timedelta(days=36500)
        self._build_claims(now)
        self.version = w.version
        self.goals = _goals_key(c)
        self.active = True
        self.dirty = False
        self.scored = None
        return True

    def _build_claims(self, now: datetime) -> None:
        c = self.ctl
        w = c.world
        ids = set(w.beliefs) | {s.reports[0] for s in self.sources}
        claims = sorted(ids)
        self.claims = claims
        self.claim_index = {cid: i for i, cid in enumerate(claims)}
        n = len(claims)
        self.row_claim = np.array([self.claim_index[s.reports[0]] for s in self.sources], dtype=int)
        self.rows_of: list[list[int]] = [[] for _ in range(n)]
        for r, cid in enumerate(self.row_claim.tolist()):
            self.rows_of[cid].append(r)
        self.has_source = np.array([bool(rows) for rows in self.rows_of], dtype=bool)
        est = column_heuristic(c.estimator)
        assert est is not None
        self.cost = np.array([s.cost.scalar() for s in self.sources])
        # Goals: which claims a goal dependency proposes, with which goals, relevance and loss.
        dep = np.zeros(n, dtype=bool)
        dep_goals: list[tuple[str, ...]] = [()] * n
        dep_rel = np.zeros(n)
        dep_loss = np.zeros(n)
        dep_rank = np.full(n, -1, dtype=np.int64)
        piv = np.full(n, est.config.default_pivotality)
        impact_loss = np.full(n, math.nan)  # NaN: no goal weighs on it
        rank = 0
        dependents: dict[str, list[tuple[float, float]]] = {}
        for g in w.goals.values():
            if g.status is not GoalStatus.ACTIVE:
                continue
            for d in g.depends_on:
                dependents.setdefault(d.claim_id, []).append((d.weight, g.consequence))
                if d.weight <= 0.0:
                    continue
                i = self.claim_index.get(d.claim_id)
                if i is None:
                    continue
                if not dep[i]:
                    dep[i], dep_rank[i] = True, rank
                    dep_rel[i], dep_loss[i] = d.weight, max(0.0, g.consequence)
                else:
                    dep_rel[i] = max(dep_rel[i], d.weight)
                    dep_loss[i] = max(dep_loss[i], g.consequence)
                dep_goals[i] = tuple(dict.fromkeys((*dep_goals[i], g.id)))
                rank += 1
        for cid, weights in dependents.items():
            i = self.claim_index.get(cid)
            if i is not None:
                pivot, loss = max(weights, key=lambda wl: wl[0] * wl[1])
                piv[i], impact_loss[i] = pivot, loss
        self.dep, self.dep_goals, self.dep_rel, self.dep_loss = dep, dep_goals, dep_rel, dep_loss
        tuples: dict[tuple[str, ...], int] = {(): 0}
        self.goal_code = np.array(
            [
                tuples.setdefault(g, len(tuples)) if d else 0
                for g, d in zip(dep_goals, dep, strict=True)
            ],
            dtype=np.int64,
        )
        self.goal_tuples = list(tuples)
        self.dep_rank, self.piv, self.impact_loss = dep_rank, piv, impact_loss
        self.unreported = np.flatnonzero(~self.has_source).tolist()
        self.goal_missed = {
            (Trigger.GOAL_DEPENDENCY.value, cid)
            for cid, weights in dependents.items()
            if any(wt > 0.0 for wt, _ in weights)
            and (cid not in self.claim_index or not self.has_source[self.claim_index[cid]])
        }
        # Per-claim belief columns, filled by _touch.
        self.has_value = np.zeros(n, dtype=bool)
        self.conf = np.zeros(n)
        self.obs_us = np.zeros(n, dtype=np.int64)
        self.has_belief = np.zeros(n, dtype=bool)
        self.dirty_claim = np.zeros(n, dtype=bool)
        self.rate_s = np.zeros(n)
        self.uniform_wrong = np.zeros(n)
        self.evidence_src = np.full(n, -1, dtype=np.int64)
        self.claim_type: list[str] = [""] * n
        self.volatility: list[Any] = [None] * n
        self.authority = np.zeros(len(self.sources))  # per row: registry × source-age factor
        self.stale_ctx = np.zeros(n)
        for cid in claims:
            self._touch(cid)
        w.touched.clear()
        self._age_now: datetime | None = None

    def _touch(self, claim_id: str) -> None:
        """Refresh one claim's belief columns and the authority of the rows reporting it."""
        w = self.ctl.world
        est = column_heuristic(self.ctl.estimator)
        assert est is not None
        i = self.claim_index[claim_id]
        state = w.claim_state(claim_id, self.ref)
        b = w.beliefs.get(claim_id)
        self.has_value[i] = state.value is not None
        self.conf[i] = state.confidence
        self.obs_us[i] = (b.observed_at - self.ref) // _US if b is not None else 0
        self.has_belief[i] = b is not None
        self.dirty_claim[i] = state.dirty
        rate_h = (
            state.hazard_per_hour
            if state.hazard_per_hour is not None
            else w.hazards[state.volatility]
        )
        self.rate_s[i] = rate_h / 3600.0
        n = len(state.domain) if state.domain else 2
        self.uniform_wrong[i] = 1.0 - 1.0 / n
        src = state.evidence_source
        self.evidence_src[i] = self.slot.get(src, len(self.sources)) if src is not None else -1
        self.claim_type[i] = state.claim_type
        self.volatility[i] = state.volatility
        for r in self.rows_of[i]:
            s = self.sources[r]
            if not est.use_authority:
                self.authority[r] = 1.0
                continue
            a = s.authority_for(state.claim_type)
            if est.use_staleness:
                a *= 1.0 - p_stale_of(s.age_s, w.hazards[state.volatility] / 3600.0)
            self.authority[r] = a
        self._age_now = None  # ages of a touched claim must be recomputed

    # -- one recomputation

    def refresh(self, now: datetime) -> Scored:
        """Generate, admit, expire and estimate from the columns; log as the object path would."""
        c = self.ctl
        w = c.world
        for claim_id in w.touched:
            self._touch(claim_id)
        w.touched.clear()
        self._ages(now)
        has_value, dirty = self.has_value, self.dirty_claim
        stale_prop = has_value & (dirty | (self.stale_ctx >= c.config.generator.stale_threshold))
        explore = self._exploration_rows()
        self.explore_rows = set(explore)
        rc = self.row_claim
        row_stale = stale_prop[rc]
        row_dep = self.dep[rc]
        exists = row_stale | row_dep
        exists[explore] = True
        trigger = np.where(
            row_stale, np.where(dirty[rc], DIRTY, STALE), np.where(row_dep, GOAL, EXPLORE)
        )
        self.trigger = trigger
        self.now = now
        self.expires = now + timedelta(seconds=c.config.generator.ttl_s)
        self._funnel(stale_prop, now)
        # Live candidates no longer proposed leave the table, in table order.
        gone = np.flatnonzero(self.live & ~exists)
        for r in gone[np.argsort(self.seq[gone], kind="stable")].tolist():
            cid = self.ids[r]
            assert cid is not None
            c.guard.table.remove(cid)
            self.row_of_id.pop(cid, None)
            self.live[r] = False
            self.waited[r] = 0
            self.last_voc[r] = math.nan
            c._log(
                EventType.CANDIDATE_EXPIRED,
                now,
                candidate_id=cid,
                reason_code="no_longer_generated",
            )
        # A renewed candidate whose first proposer changed changes owner in the guard's counts.
        origin = np.where(trigger == DIRTY, STALE, trigger)
        moved = np.flatnonzero(self.live & (origin != self.origin))
        for r in moved.tolist():
            self.origin[r] = origin[r]
            c.guard.table.put(self._candidate(r))
        # New candidates are admitted in the order the generators propose them.
        new = np.flatnonzero(exists & ~self.live).tolist()
        new.sort(key=lambda r: self._proposal_rank(r, bool(row_stale[r]), bool(row_dep[r])))
        order = c.guard.admission_order(
            [
                (
                    ORIGINS[origin[r]],
                    float(self.sources[r].authority_for(self.claim_type[self.row_claim[r]])),
                    float(self.cost[r]),
                )
                for r in new
            ]
        )
        for r in (new[i] for i in order):
            self.origin[r] = origin[r]
            self._admit(r, now)
        self.dirty = True
        return self._estimate(now)

    def _exploration_rows(self) -> list[int]:
        c = self.ctl
        k = c.config.generator.exploration_per_turn
        out: list[int] = []
        for r, s in enumerate(self.sources):
            if len(out) >= k:
                break
            if c.inspected.get(s.id) or not s.reports:
                continue
            out.append(r)
        return out

    def _proposal_rank(self, r: int, stale: bool, dep: bool) -> tuple[int, int, int]:
        ci = int(self.row_claim[r])
        if stale:
            return (0, ci, r)
        if dep:
            return (1, int(self.dep_rank[ci]), r)
        return (2, 0, r)

    def _funnel(self, stale_prop: np.ndarray, now: datetime) -> None:
        """Opportunities whose trigger did not fire: claims no source reports (§5.3)."""
        missed: set[tuple[str, str]] = set(self.goal_missed)
        for i in self.unreported:
            if stale_prop[i]:
                t = Trigger.DIRTY_BELIEF if self.dirty_claim[i] else Trigger.STALE_BELIEF
                missed.add((t.value, self.claims[i]))
        if not missed:
            return
        ins = self.ctl.instruments
        for trigger, subject in sorted(missed):
            key = (trigger, subject)
            if key in ins._not_fired:
                continue
            ins._not_fired.add(key)
            ins.log(
                EventType.CANDIDATE_SKIPPED,
                now,
                reason_code="not_fired",
                detail={"trigger": trigger, "subject": subject},
            )

    def _admit(self, r: int, now: datetime) -> None:
        c = self.ctl
        cand = self._candidate(r, pending=True)
        status, live = c.guard.admit(cand, now)
        if status is Admission.CREATED and live is not None:
            self.live[r] = True
            self.ids[r] = live.id
            self.row_of_id[live.id] = r
            self.seq[r] = int(live.id.removeprefix("attn-"))
            self.created[r] = live.created_at
            self.waited[r] = 0
            self.last_voc[r] = math.nan
            c._log(
                EventType.CANDIDATE_CREATED,
                now,
                candidate_id=live.id,
                reason_code=live.trigger.value,
                forced=False,
                detail={"origin": live.origin, "target": live.target},
            )
            return
        key = (cand.origin, status.value)
        if key in c._skip_logged:
            return
        c._skip_logged.add(key)
        c._log(
            EventType.CANDIDATE_SKIPPED,
            now,
            reason_code=status.value,
            detail={"submitted_by": None, "target": cand.target},
        )


def _goals_key(ctl: Controller) -> tuple[object, ...]:
    """What the columns read of the goals (goals are mutable models: checked on every call;
    the goal itself compares by identity first, its dependency list by identity and length)."""
    return tuple(
        (g, g.status, g.due_at, g.consequence, id(g.depends_on), len(g.depends_on))
        for g in ctl.world.goals.values()
    )
