"""The estimate over the candidate columns: ``HeuristicEstimator.estimate`` as array arithmetic.

A part of :class:`heedful.attention.columns.ColumnTable` (see its module for the steady state the
columns cover): the evidence ages and ``p_stale`` of every claim at once, each live candidate's
net VOC with the same floating-point operations, in the same order, as the object path
(``math.expm1`` bits for staleness, see :func:`_pick_expm1`), the ``candidate_updated`` events
and the saturation signals.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime, timedelta

import numpy as np

from heedful.attention.column_select import Scored, column_heuristic
from heedful.attention.config import AttentionConfig
from heedful.attention.context import SourceInfo
from heedful.attention.estimators import Estimator, similarity_class
from heedful.attention.guard import Guard
from heedful.attention.instruments import Instruments
from heedful.attention.records import Agenda, TableNotes, TurnLog, TurnRecord
from heedful.model.candidate import EventType

__all__ = ["ColumnEstimation", "p_stale_of"]

_US = timedelta(microseconds=1)


class ColumnEstimation:
    """Ages and estimates of the candidate columns (the columns are
    :class:`heedful.attention.columns.ColumnTable`'s)."""

    # The collaborators (given to the table's constructor)
    estimator: Estimator
    guard: Guard
    instruments: Instruments
    config: AttentionConfig
    turn: TurnRecord
    agenda: Agenda
    notes: TableNotes
    log: TurnLog
    repeat_inspections: bool
    # The columns
    scored: Scored | None
    sources: list[SourceInfo]
    claim_type: list[str]
    ids: list[str | None]
    live: np.ndarray
    seq: np.ndarray
    slot: dict[str, int]
    row_claim: np.ndarray
    dep: np.ndarray
    dep_loss: np.ndarray
    piv: np.ndarray
    impact_loss: np.ndarray
    has_value: np.ndarray
    conf: np.ndarray
    obs_us: np.ndarray
    has_belief: np.ndarray
    dirty_claim: np.ndarray
    rate_s: np.ndarray
    uniform_wrong: np.ndarray
    evidence_src: np.ndarray
    authority: np.ndarray
    cost: np.ndarray
    reliability: np.ndarray
    stale_ctx: np.ndarray
    last_voc: np.ndarray
    age: np.ndarray
    cost_terms: np.ndarray
    ref: datetime
    _age_now: datetime | None

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

    def _estimate(self, now: datetime) -> Scored:
        est = column_heuristic(self.estimator)
        assert est is not None
        live = self.live.copy()
        inspected = self.agenda.inspected
        if not self.repeat_inspections and inspected:
            for s in inspected:
                r = self.slot.get(s)
                if r is not None:
                    live[r] = False
        rows = np.flatnonzero(live)
        rows = rows[np.argsort(self.seq[rows], kind="stable")]
        ci = self.row_claim[rows]
        cw = self.turn.cost_weight
        if cw is None:
            cw = est.config.cost_weight
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
        gross = (0.0 + change * loss * bonus * self._usefulness(rows, ci)) * self.reliability[rows]
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
        saturation = self.notes.saturation = self.guard.saturation(scored.p_change)
        self.instruments.anomalies(saturation, scored.p_change, now)
        # keep_only: what is remembered of candidates not scored now is dropped.
        keep = np.zeros(len(self.live), dtype=bool)
        keep[rows] = True
        self.last_voc[~keep] = math.nan
        return scored

    def _usefulness(self, rows: np.ndarray, ci: np.ndarray) -> np.ndarray | float:
        est = column_heuristic(self.estimator)
        assert est is not None
        table = self.instruments.usefulness
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
        eps = self.config.trace.update_epsilon
        known = ~np.isnan(last)
        moved = known & ~(np.abs(s.net - last) < eps)
        fresh_rows = s.rows[~known]
        self.last_voc[fresh_rows] = s.net[~known]
        for j in np.flatnonzero(moved).tolist():
            r = int(s.rows[j])
            self.last_voc[r] = s.net[j]
            self.log(
                EventType.CANDIDATE_UPDATED,
                now,
                candidate_id=self.ids[r],
                predicted_voc=float(s.net[j]),
                reason_code="predicted_voc_moved",
                detail={"previous_voc": float(last[j]), "p_change": float(s.p_change[j])},
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


def p_stale_of(age_s: float, rate_s: float) -> float:
    """``p_stale`` of data ``age_s`` old at a hazard of ``rate_s`` per second (object path's)."""
    return -math.expm1(-rate_s * max(age_s, 0.0))


_expm1 = _pick_expm1()
