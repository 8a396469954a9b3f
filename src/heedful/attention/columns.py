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
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np

from heedful.attention.column_select import (
    DIRTY,
    EXPLORE,
    GOAL,
    ORIGINS,
    STALE,
    ColumnSelection,
    Scored,
)
from heedful.attention.estimators import HeuristicEstimator, similarity_class
from heedful.attention.generators import default_generators
from heedful.attention.guard import Admission
from heedful.model.base import as_utc
from heedful.model.candidate import CandidateKind, EventType, Trigger
from heedful.model.goal import GoalStatus

if TYPE_CHECKING:
    from heedful.attention.controller import Controller

__all__ = ["ColumnTable", "Scored"]

_DEFAULT_GENERATOR_TYPES = tuple(type(g) for g in default_generators())
_US = timedelta(microseconds=1)


class ColumnTable(ColumnSelection):
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
        est = c.estimator
        if type(est) is not HeuristicEstimator or est.config.hazards_per_hour != w.hazards:
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
        est = c.estimator
        assert isinstance(est, HeuristicEstimator)
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
        est = self.ctl.estimator
        assert isinstance(est, HeuristicEstimator)
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
                a *= 1.0 - _p_stale(s.age_s, w.hazards[state.volatility] / 3600.0)
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
        for r in new:
            self.origin[r] = origin[r]
            self._admit(r, now)
        self.dirty = True
        return self._estimate(now)

    def _ages(self, now: datetime) -> None:
        """Evidence ages and p_stale at ``now`` (every claim when the clock moved)."""
        if self._age_now == now:
            return
        now_us = (now - self.ref) // _US
        age = np.where(self.has_belief, np.maximum((now_us - self.obs_us) / 1e6, 0.0), 0.0)
        x = -self.rate_s * age
        self.stale_ctx = -_expm1(x)
        self.age = age
        self._age_now = now

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

    def _estimate(self, now: datetime) -> Scored:
        c = self.ctl
        est = c.estimator
        assert isinstance(est, HeuristicEstimator)
        live = self.live.copy()
        if not c.repeat_inspections and c.inspected:
            for s in c.inspected:
                r = self.slot.get(s)
                if r is not None:
                    live[r] = False
        rows = np.flatnonzero(live)
        rows = rows[np.argsort(self.seq[rows], kind="stable")]
        ci = self.row_claim[rows]
        cw = c.cost_weight if c.cost_weight is not None else est.config.cost_weight
        cost_term = cw * self.cost[rows]
        switch_term = est.config.switch_weight * 0.0 if est.use_switch_cost else 0.0
        if est.use_staleness:
            stale = np.where(self.dirty_claim[ci], 1.0, self.stale_ctx[ci])
        else:
            stale = np.zeros(len(rows))
        wrong = np.where(
            self.has_value[ci], 1.0 - self.conf[ci] * (1.0 - stale), self.uniform_wrong[ci]
        )
        cand_loss = np.where(self.dep[ci], self.dep_loss[ci], 0.0)
        has_goal = ~np.isnan(self.impact_loss[ci])
        fallback_loss = np.where(cand_loss != 0.0, cand_loss, est.config.default_loss)
        impact_loss = np.maximum(np.where(has_goal, self.impact_loss[ci], fallback_loss), cand_loss)
        change = wrong * self.authority[rows] * self.piv[ci]
        loss = impact_loss * 1.0
        src = self.evidence_src[ci]
        bonus = np.where((src >= 0) & (src != rows), 1.0 + est.config.counter_evidence_bonus, 1.0)
        gross = 0.0 + change * loss * bonus * self._usefulness(rows, ci)
        net = gross - cost_term - switch_term
        scored = Scored(
            rows=rows,
            net=net,
            gross=gross,
            p_stale=np.maximum(0.0, stale),
            p_wrong=np.maximum(0.0, wrong),
            p_change=np.minimum(change, 1.0),
            loss=loss,
            switch_term=switch_term,
        )
        self.cost_terms = cost_term
        self.scored = scored
        self._updated(scored, now)
        c.saturation = c.guard.saturation(scored.p_change)
        c.instruments.anomalies(c.saturation, scored.p_change, now)
        # keep_only: what is remembered of candidates not scored now is dropped.
        keep = np.zeros(len(self.live), dtype=bool)
        keep[rows] = True
        self.last_voc[~keep] = math.nan
        return scored

    def _usefulness(self, rows: np.ndarray, ci: np.ndarray) -> np.ndarray | float:
        c = self.ctl
        est = c.estimator
        assert isinstance(est, HeuristicEstimator)
        table = c.instruments.usefulness
        if not table:
            return 1.0
        lo, hi = est.config.usefulness_range
        pooled_u = sum(u for u, _ in table.values())
        pooled_n = sum(m for _, m in table.values())
        factors: dict[str, float] = {}
        for key, (useful, n) in table.items():
            if n >= est.config.usefulness_min_samples:
                ratio = ((useful + 1) / (n + 2)) / ((pooled_u + 1) / (pooled_n + 2))
                factors[key] = min(max(ratio, lo), hi)
        out = np.ones(len(rows))
        if not factors:
            return out
        for j, (r, i) in enumerate(zip(rows.tolist(), ci.tolist(), strict=True)):
            f = factors.get(similarity_class(self.sources[r].kind, self.claim_type[i]))
            if f is not None:
                out[j] = f
        return out

    def _updated(self, s: Scored, now: datetime) -> None:
        """``candidate_updated`` for every scored candidate whose value moved (§12)."""
        last = self.last_voc[s.rows]
        eps = self.ctl.config.trace.update_epsilon
        known = ~np.isnan(last)
        moved = known & ~(np.abs(s.net - last) < eps)
        fresh_rows = s.rows[~known]
        self.last_voc[fresh_rows] = s.net[~known]
        for j in np.flatnonzero(moved).tolist():
            r = int(s.rows[j])
            self.last_voc[r] = s.net[j]
            self.ctl._log(
                EventType.CANDIDATE_UPDATED,
                now,
                candidate_id=self.ids[r],
                predicted_voc=float(s.net[j]),
                reason_code="predicted_voc_moved",
                detail={"previous_voc": float(last[j]), "p_change": float(s.p_change[j])},
            )


def _goals_key(ctl: Controller) -> tuple[object, ...]:
    """What the columns read of the goals (goals are mutable models: checked on every call;
    the goal itself compares by identity first, its dependency list by identity and length)."""
    return tuple(
        (g, g.status, g.due_at, g.consequence, id(g.depends_on), len(g.depends_on))
        for g in ctl.world.goals.values()
    )


def _math_expm1(x: np.ndarray) -> np.ndarray:
    return np.fromiter(map(math.expm1, x.tolist()), dtype=float, count=len(x))


def _pick_expm1() -> Callable[[np.ndarray], np.ndarray]:
    """numpy's ``expm1`` when it gives ``math.expm1``'s bits on this platform, else ``math``'s.

    The object path ages evidence with ``math.expm1``; numpy's may use other vectorised code on
    some CPUs. A fixed sample spanning the ages and hazards in use decides once per process.
    """
    rng = np.random.default_rng(0)
    sample = -np.concatenate(
        [
            rng.uniform(0.0, 1e-6, 2_000),
            rng.uniform(0.0, 1.0, 4_000),
            10.0 ** rng.uniform(-12.0, 3.0, 4_000),
            [0.0, 1e-300, 5e-324, 700.0, 745.0],
        ]
    )
    same = np.array_equal(np.expm1(sample), _math_expm1(sample))
    return np.expm1 if same else _math_expm1


def _p_stale(age_s: float, rate_s: float) -> float:
    return -math.expm1(-rate_s * max(age_s, 0.0))


_expm1 = _pick_expm1()
