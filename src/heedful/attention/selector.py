"""Selection under a hard budget (document 000 §11.2–§11.5, §20.4).

Order of precedence for one selection:

1. the budget is hard: when spent, stop;
2. lexicographic floors (governance preconditions) bypass ranking and the stopping rule;
3. a seeded exploration draw may pick an exploration candidate, within its quota;
4. otherwise the best net VOC (plus a bounded aging bonus; goals unserved for too long first);
5. the stopping rule: if the best net VOC is ≤ 0, stop and act;
6. the switching rule: leave the current focus A for B only if
   ``VOC(B) > VOC(A) + SwitchCost(A→B) + δ``.

The core (:func:`choose`) is vectorised over numpy arrays so it ranks 10⁵–10⁶ candidates fast.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from heedful.attention.config import SelectorConfig
from heedful.attention.context import Focus
from heedful.attention.estimators import Estimate
from heedful.model.candidate import Candidate, Trigger

__all__ = ["Choice", "Selection", "Selector", "choose"]

_NO_FLOOR = np.iinfo(np.int64).max


@dataclass(frozen=True)
class Choice:
    """Result of the vectorised core: an index (or None) and a reason code."""

    index: int | None
    reason: str


def choose(
    net: np.ndarray,
    floor_rank: np.ndarray | None = None,
    bonus: np.ndarray | None = None,
    starving: np.ndarray | None = None,
    exploration_only: np.ndarray | None = None,
) -> Choice:
    """Pick one candidate by floors, then starvation service, then best net VOC + bonus.

    Args:
        net: Predicted net VOC per candidate.
        floor_rank: Floor precedence per candidate (lower is stronger); int64 max means none.
        bonus: Bounded aging bonus per candidate (reorders, never makes a candidate eligible).
        starving: True for candidates serving a goal past its minimum-service window.
        exploration_only: True for candidates only the exploration quota may pick.

    Returns:
        The chosen index and a reason code, or ``index=None`` with ``stop:negative_voc``.
    """
    n = net.shape[0]
    if n == 0:
        return Choice(None, "stop:no_candidates")
    if floor_rank is not None:
        best_floor = floor_rank.min()
        if best_floor != _NO_FLOOR:
            masked = np.where(floor_rank == best_floor, net, -np.inf)
            return Choice(int(np.argmax(masked)), "floor")
    eligible = net > 0.0
    if exploration_only is not None:
        eligible &= ~exploration_only
    if not eligible.any():
        return Choice(None, "stop:negative_voc")
    score = net + bonus if bonus is not None else net
    if starving is not None:
        hungry = eligible & starving
        if hungry.any():
            return Choice(int(np.argmax(np.where(hungry, score, -np.inf))), "min_service")
    return Choice(int(np.argmax(np.where(eligible, score, -np.inf))), "highest_net_voc")


@dataclass(frozen=True)
class Selection:
    """One selection decision.

    Attributes:
        candidate: The chosen candidate; None means stop (or stay on the focus).
        estimate: Its estimate.
        reason: Reason code (``highest_net_voc``, ``floor:<name>``, ``min_service``,
            ``exploration``, ``stay``, ``stop:negative_voc``, ``stop:budget_exhausted``,
            ``stop:no_candidates``).
        rank: Rank of the chosen candidate by net VOC among all scored (1 = best).
        switch: ``accepted`` / ``rejected`` when the switching rule was applied.
    """

    candidate: Candidate | None
    estimate: Estimate | None
    reason: str
    rank: int | None = None
    switch: str | None = None

    @property
    def stopped(self) -> bool:
        """True when attention should stop and the agent act."""
        return self.candidate is None and self.reason.startswith("stop")


class Selector:
    """Stateful selector: remembers exploration use per turn and when each goal was served.

    Args:
        config: Selection rules.
        rng: Explicit random generator for the exploration draw (seed it; record the seed).
    """

    def __init__(self, config: SelectorConfig, rng: np.random.Generator) -> None:
        self.config = config
        self.rng = rng
        self.explored_this_turn = 0
        self.goal_last_served: dict[str, int] = {}
        self.selections = 0  # selections made, the validator's forced reads excepted
        self.explorations = 0  # … of which exploration draws

    def begin_turn(self) -> None:
        """Reset the per-turn exploration counter."""
        self.explored_this_turn = 0

    def exploration_quota(self, turn_budget: int | None) -> int:
        """Explorations allowed this turn: a bounded fraction of the turn's budget, at least
        ``exploration_min_quota`` (so small and unlimited budgets explore too), none of none."""
        floor = self.config.exploration_min_quota
        if turn_budget is None:
            return floor
        if turn_budget <= 0:
            return 0
        return max(floor, math.floor(self.config.exploration_fraction * turn_budget))

    def select(
        self,
        scored: Sequence[tuple[Candidate, Estimate]],
        *,
        turn: int,
        budget_left: int | None,
        turn_budget: int | None,
        waited: Mapping[str, int] | None = None,
        focus: Focus | None = None,
        explorable: Collection[str] = (),
    ) -> Selection:
        """Select the next computation, or stop.

        ``explorable``: ids of candidates the exploration draw may pick besides the
        exploration-only ones (reads the exploration generator proposed that another generator
        proposed too; ``SelectorConfig.explore_merged``). They are ranked as usual otherwise.
        """
        if budget_left is not None and budget_left <= 0:
            return Selection(None, None, "stop:budget_exhausted")
        if not scored:
            return Selection(None, None, "stop:no_candidates")
        cands = [c for c, _ in scored]
        ests = [e for _, e in scored]
        net = np.array([e.net for e in ests], dtype=float)
        explore = np.array([c.trigger is Trigger.EXPLORATION for c in cands])
        drawable = (
            explore | np.array([c.id in explorable for c in cands]) if explorable else explore
        )
        floor_rank = np.array(
            [c.floor.rank if c.floor is not None else _NO_FLOOR for c in cands], dtype=np.int64
        )
        # Floors come before exploration (§11.2): a governance precondition is never preempted.
        explore_now = (
            bool((floor_rank == _NO_FLOOR).all())
            and self._may_explore(turn_budget)
            and drawable.any()
            and self.rng.random() < self.config.exploration_rate
        )
        if explore_now:
            pool = np.flatnonzero(drawable)
            i = int(pool[self.rng.integers(len(pool))])
            return self._made(cands, ests, net, i, "exploration", turn)
        waited = waited or {}
        bonus = np.array(
            [
                min(self.config.aging_rate * waited.get(c.id, 0), self.config.aging_cap)
                if e.gross > 0
                else 0.0
                for c, e in scored
            ]
        )
        starving = np.array([self._starving(c, turn) for c in cands])
        choice = choose(net, floor_rank, bonus, starving, explore)
        if choice.index is None:
            return Selection(None, None, choice.reason)
        i = choice.index
        floor = cands[i].floor
        reason = f"floor:{floor.value}" if choice.reason == "floor" and floor else choice.reason
        if focus is not None and cands[i].id != focus.candidate_id and cands[i].floor is None:
            e = ests[i]
            gross_net = e.gross - e.cost_term
            if not gross_net > focus.voc + e.switch_term + self.config.hysteresis:
                return Selection(None, None, "stay", switch="rejected")
            sel = self._made(cands, ests, net, i, reason, turn)
            return Selection(sel.candidate, sel.estimate, sel.reason, sel.rank, "accepted")
        return self._made(cands, ests, net, i, reason, turn)

    def _may_explore(self, turn_budget: int | None) -> bool:
        """Whether the next selection may explore: within this turn's quota and, paced
        (``explore_paced``), within ``exploration_fraction`` of the selections made so far,
        the next one included."""
        if self.explored_this_turn >= self.exploration_quota(turn_budget):
            return False
        if not self.config.explore_paced:
            return True
        earned = self.config.exploration_fraction * (self.selections + 1)
        return self.explorations + 1 <= earned + 1e-9

    def made(self, candidate: Candidate, explored: bool) -> None:
        """Count a selection the controller takes (a forced read is enforcement, not counted)."""
        if candidate.forced:
            return
        self.selections += 1
        if explored:
            self.explorations += 1
            self.explored_this_turn += 1

    def _starving(self, candidate: Candidate, turn: int) -> bool:
        window = self.config.min_service_turns
        # A goal first seen now starts its window now.
        return any(
            turn - self.goal_last_served.setdefault(g, turn) >= window for g in candidate.goal_ids
        )

    def _made(
        self,
        cands: list[Candidate],
        ests: list[Estimate],
        net: np.ndarray,
        i: int,
        reason: str,
        turn: int,
    ) -> Selection:
        for g in cands[i].goal_ids:
            self.goal_last_served[g] = turn
        self.made(cands[i], reason == "exploration")
        rank = int((net > net[i]).sum()) + 1
        return Selection(cands[i], ests[i], reason, rank)
