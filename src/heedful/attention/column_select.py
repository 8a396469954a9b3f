"""Selection out of the candidate columns, and the objects built from them.

A part of :class:`heedful.attention.columns.ColumnTable`: ``Selector.select`` for the steady
state the columns cover (no floors, no forced reads, no focus), the ``waited`` counts, and the
candidate and estimate objects the rest of the controller sees — built only for the selected
candidate, or for the whole table when a caller reads it (:meth:`ColumnSelection.sync`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from heedful.attention._copy import new_candidate
from heedful.attention.context import SourceInfo
from heedful.attention.estimators import Estimate, Estimator, HeuristicEstimator
from heedful.attention.generators import PENDING_ID
from heedful.attention.guard import Guard
from heedful.attention.instruments import Instruments
from heedful.attention.model_estimator import ModelEstimator
from heedful.attention.records import TableNotes, TurnRecord
from heedful.attention.selector import Selection, Selector, choose
from heedful.model.candidate import Candidate, CandidateKind, Trigger

__all__ = ["ColumnSelection", "Scored"]

STALE, DIRTY, GOAL, EXPLORE = 0, 1, 2, 3
TRIGGERS = (
    Trigger.STALE_BELIEF,
    Trigger.DIRTY_BELIEF,
    Trigger.GOAL_DEPENDENCY,
    Trigger.EXPLORATION,
)
ORIGINS = ("stale_belief", "stale_belief", "goal_dependency", "exploration")


@dataclass
class Scored:
    """The scored live candidates of one recomputation, as columns in table order."""

    rows: np.ndarray  # source slots
    net: np.ndarray
    gross: np.ndarray
    p_stale: np.ndarray
    p_wrong: np.ndarray
    p_change: np.ndarray
    loss: np.ndarray
    switch_term: float


class ColumnSelection:
    """Selection and objects of the candidate columns (the columns are
    :class:`heedful.attention.columns.ColumnTable`'s)."""

    # The collaborators (given to the table's constructor)
    estimator: Estimator
    selector: Selector
    guard: Guard
    instruments: Instruments
    turn: TurnRecord
    notes: TableNotes
    # The columns
    active: bool
    dirty: bool
    scored: Scored | None
    sources: list[SourceInfo]
    claims: list[str]
    claim_type: list[str]
    volatility: list[Any]
    ids: list[str | None]
    created: list[datetime | None]
    row_of_id: dict[str, int]
    explore_rows: set[int]
    now: datetime
    expires: datetime
    live: np.ndarray
    seq: np.ndarray
    trigger: np.ndarray
    row_claim: np.ndarray
    dep: np.ndarray
    dep_goals: list[tuple[str, ...]]
    dep_rel: np.ndarray
    dep_loss: np.ndarray
    goal_code: np.ndarray
    goal_tuples: list[tuple[str, ...]]
    waited: np.ndarray
    last_voc: np.ndarray
    last_removed: tuple[str, int]  # the id and row of the candidate that last left the table
    age: np.ndarray
    cost_terms: np.ndarray

    def refresh(self, now: datetime) -> Scored:
        """Recompute the columns (the table's)."""
        raise NotImplementedError

    # -- selection (Selector.select for this state: no floors, no forced reads, no focus)

    def select(self, now: datetime) -> tuple[Selection, float | None, float | None]:
        """Recompute, then select; return the selection, the best net VOC and max p_change."""
        s = self.refresh(now)
        best = float(s.net.max()) if len(s.rows) else None
        max_p_change = float(s.p_change.max()) if len(s.rows) else None
        sel = self.selector
        turn = self.turn
        budget_left = turn.budget
        if budget_left is not None and budget_left <= 0:
            return Selection(None, None, "stop:budget_exhausted"), best, max_p_change
        if not len(s.rows):
            return Selection(None, None, "stop:no_candidates"), best, max_p_change
        explore = self.trigger[s.rows] == EXPLORE
        drawable = explore
        if sel.config.explore_merged and self.explore_rows:
            # An exploration proposal merged into a goal or staleness read stays drawable.
            drawable = explore | np.isin(s.rows, list(self.explore_rows))
        explore_now = (
            sel._may_explore(turn.turn_budget)
            and bool(drawable.any())
            and sel.rng.random() < sel.config.exploration_rate
        )
        if explore_now:
            pool = np.flatnonzero(drawable)
            j = int(pool[sel.rng.integers(len(pool))])
            return self._made(j, "exploration"), best, max_p_change
        aging = np.minimum(sel.config.aging_rate * self.waited[s.rows], sel.config.aging_cap)
        bonus = np.where(s.gross > 0, aging, 0.0)
        choice = choose(s.net, None, bonus, self._starving(s.rows), explore)
        if choice.index is None:
            if choice.reason == "stop:negative_voc":
                # The stopping rule's number: exploration-only rows are not ranked.
                ranked = s.net[~explore]
                best = float(ranked.max()) if len(ranked) else None
            return Selection(None, None, choice.reason), best, max_p_change
        return self._made(choice.index, choice.reason), best, max_p_change

    def _goal_ids(self, r: int) -> tuple[str, ...]:
        ci = int(self.row_claim[r])
        return self.dep_goals[ci] if self.dep[ci] else ()

    def _starving(self, rows: np.ndarray) -> np.ndarray:
        """Selector._starving per row, with its side effects, once per distinct goal tuple."""
        sel = self.selector
        turn = self.turn.turn
        window = sel.config.min_service_turns
        codes = self.goal_code[self.row_claim[rows]]
        distinct, first = np.unique(codes, return_index=True)
        hit = np.zeros(len(self.goal_tuples), dtype=bool)
        # In order of first appearance, as the object path meets them (setdefault side effects).
        for code in distinct[np.argsort(first, kind="stable")].tolist():
            hit[code] = any(
                turn - sel.goal_last_served.setdefault(x, turn) >= window
                for x in self.goal_tuples[code]
            )
        return hit[codes]

    def _made(self, j: int, reason: str) -> Selection:
        s = self.scored
        assert s is not None
        r = int(s.rows[j])
        sel = self.selector
        for g in self._goal_ids(r):
            sel.goal_last_served[g] = self.turn.turn
        rank = int((s.net > s.net[j]).sum()) + 1
        cand = self._candidate(r, scored=j)
        sel.made(cand, reason == "exploration")
        return Selection(cand, self.estimate_of(j), reason, rank)

    def passed_over(self, chosen: str) -> None:
        """Eligible candidates passed over age by one step; the chosen one starts again."""
        s = self.scored
        assert s is not None
        self.waited[s.rows[s.net > 0]] += 1
        r = self.row_of_id.get(chosen)
        if r is not None:
            self.waited[r] = 0
            self.last_voc[r] = math.nan  # instruments.forget

    def removed(self, candidate_id: str) -> None:
        """The selected candidate left the table."""
        if not self.active:
            return
        r = self.row_of_id.pop(candidate_id, None)
        if r is not None:
            self.live[r] = False
            self.last_removed = (candidate_id, r)

    # -- objects out of the columns

    def _candidate(self, r: int, *, scored: int | None = None, pending: bool = False) -> Candidate:
        """Row ``r`` as the object path's candidate (with the ``scored``-th estimate, if given)."""
        ci = int(self.row_claim[r])
        s = self.sources[r]
        t = int(self.trigger[r])
        stale = t in (STALE, DIRTY)
        dep = bool(self.dep[ci])
        goal_ids = self.dep_goals[ci] if dep else ()
        rel = 1.0 if (stale or not dep) else float(self.dep_rel[ci])
        if dep and not stale and self._is_explore_pick(r):
            rel = max(rel, 1.0)
        loss = float(self.dep_loss[ci]) if dep else 0.0
        fields: dict[str, Any] = {
            "id": PENDING_ID if pending else self.ids[r],
            "origin": ORIGINS[t],
            "created_at": self.now if pending else self.created[r],
            "expires_at": self.expires,
            "kind": CandidateKind.INSPECT_SOURCE,
            "target": s.id,
            "trigger": TRIGGERS[t],
            "goal_ids": goal_ids,
            "claim_ids": (self.claims[ci],),
            "goal_relevance": rel,
            "loss_if_wrong": loss,
            "authority": float(s.authority_for(self.claim_type[ci])),
            "evidence_age_s": float(self.age[ci]),
            "volatility": self.volatility[ci],
            "deadline_s": None,
            "cost": s.cost,
        }
        sc = self.scored
        if scored is not None and sc is not None:
            j = scored
            fields.update(
                predicted_voc=float(sc.net[j]),
                p_stale=float(sc.p_stale[j]),
                p_wrong=float(sc.p_wrong[j]),
                p_change=float(sc.p_change[j]),
                switch_cost=0.0,
                loss_if_wrong=max(float(sc.loss[j]), 0.0),
            )
        return new_candidate(fields)

    def _is_explore_pick(self, r: int) -> bool:
        return r in self.explore_rows

    def estimate_of(self, j: int) -> Estimate:
        """The :class:`Estimate` of the ``j``-th scored candidate."""
        s = self.scored
        assert s is not None
        r = int(s.rows[j])
        return Estimate(
            self.ids[r] or "",
            float(s.p_stale[j]),
            float(s.p_wrong[j]),
            float(s.p_change[j]),
            float(s.loss[j]),
            float(s.gross[j]),
            float(self.cost_terms[j]),
            s.switch_term,
            float(s.net[j]),
            column_heuristic(self.estimator).name,  # type: ignore[union-attr]
            switch_cost=0.0,
        )

    def ranking(
        self, limit: int, selected: Candidate | None
    ) -> tuple[int, list[tuple[Candidate, Estimate]]]:
        """:meth:`Controller.ranking` from the columns: the scored rows still live, and
        ``selected``'s, by net VOC (a stable sort: ties in table order); only the first
        ``limit`` are built."""
        s = self.scored
        assert s is not None
        keep = self.live[s.rows]
        picked = -1  # the selected candidate's row: it left the table and the row map
        if selected is not None and self.last_removed[0] == selected.id:
            picked = self.last_removed[1]
            keep |= s.rows == picked
        at = np.flatnonzero(keep)
        order = at[np.argsort(-s.net[at], kind="stable")]
        out: list[tuple[Candidate, Estimate]] = []
        for j in order[: max(limit, 0)].tolist():
            r = int(s.rows[j])
            cand = selected if r == picked and selected is not None else None
            out.append((cand or self._candidate(r, scored=j), self.estimate_of(j)))
        return len(at), out

    def sync(self) -> None:
        """Write the columns back into the table objects, the waited counts and the value memory."""
        if not self.active or not self.dirty:
            return
        position = np.full(len(self.live), -1, dtype=np.int64)
        if self.scored is not None:
            position[self.scored.rows] = np.arange(len(self.scored.rows))
        order = np.flatnonzero(self.live)
        order = order[np.argsort(self.seq[order], kind="stable")]
        table = self.guard.table
        for r in order.tolist():
            j = int(position[r])
            table.put(self._candidate(r, scored=j if j >= 0 else None))
        ids = self.ids
        notes = self.notes
        notes.waited = {
            ids[r] or "": int(self.waited[r]) for r in np.flatnonzero(self.waited).tolist()
        }
        self.instruments._last_voc = {
            ids[r] or "": float(self.last_voc[r])
            for r in np.flatnonzero(~np.isnan(self.last_voc)).tolist()
        }
        if self.scored is not None:
            notes.last_estimates = {
                ids[int(r)] or "": self.estimate_of(j) for j, r in enumerate(self.scored.rows)
            }
        self.dirty = False


def column_heuristic(estimator: Estimator) -> HeuristicEstimator | None:
    """The heuristic that estimates the columns' state (no stated decision) for ``estimator``:
    itself, or the heuristic fallback of the model-based estimator; None for any other."""
    if type(estimator) is HeuristicEstimator:
        return estimator
    if type(estimator) is ModelEstimator and type(estimator.fallback) is HeuristicEstimator:
        return estimator.fallback
    return None
