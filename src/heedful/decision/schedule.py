"""Exact valuation of schedule problems (family J): which obligation gets each attention slot.

Rules (``docs/scenario-format.md``, kind ``schedule``): slot ``t`` (``0 … slots−1``) goes to one
obligation that has arrived (``arrives_at ≤ t``) and is not finished, or to none. An obligation
finishes at ``c = t + 1`` when its last slot of work is done and then pays
``value · (1 − hazard)^(c − arrives_at)`` if ``c ≤ deadline``, else nothing.

Pure: no I/O, no clock. The oracle is a dynamic programme over (slot, work left per obligation);
:func:`brute_force` enumerates every slot assignment, which the tests compare it with.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from heedful.errors import ProblemTooLargeError
from heedful.model.schedule import ScheduleScenario, Timescale

__all__ = [
    "MAX_STATES",
    "ScheduleOracle",
    "ScheduleOutcome",
    "ScheduleProblem",
    "brute_force",
    "evaluate",
    "schedule_oracle",
    "schedule_problem",
]

#: Largest (slots × Π(work+1)) state space valued exactly.
MAX_STATES = 2_000_000
_TOL = 1e-9

_Left = tuple[int, ...]


@dataclass(frozen=True)
class ScheduleProblem:
    """A schedule scenario as numbers (obligations in file order).

    Attributes:
        slots: Slots in the horizon.
        ids: Obligation ids.
        timescales: Horizon class of each.
        arrivals: Arrival slot of each.
        work: Slots of work each needs.
        values: PRIVATE value of each.
        deadlines: PRIVATE deadline of each.
        hazards: PRIVATE lapse hazard per slot of each.
    """

    slots: int
    ids: tuple[str, ...]
    timescales: tuple[Timescale, ...]
    arrivals: tuple[int, ...]
    work: tuple[int, ...]
    values: tuple[float, ...]
    deadlines: tuple[int, ...]
    hazards: tuple[float, ...]

    @property
    def n(self) -> int:
        """Number of obligations."""
        return len(self.ids)

    def available(self, t: int, left: _Left) -> list[int]:
        """Obligations that may take slot ``t``: arrived and not finished."""
        return [j for j in range(self.n) if self.arrivals[j] <= t and left[j] > 0]

    def payoff(self, j: int, completion: int) -> float:
        """What obligation ``j`` pays when finished at ``completion``."""
        if completion > self.deadlines[j]:
            return 0.0
        return self.values[j] * (1.0 - self.hazards[j]) ** (completion - self.arrivals[j])


def schedule_problem(scenario: ScheduleScenario) -> ScheduleProblem:
    """Compile a schedule scenario (view and PRIVATE truth) into a :class:`ScheduleProblem`."""
    obs = scenario.view.obligations
    truth = [scenario.truth.obligations[o.id] for o in obs]
    return ScheduleProblem(
        slots=scenario.view.slots,
        ids=tuple(o.id for o in obs),
        timescales=tuple(o.timescale for o in obs),
        arrivals=tuple(o.arrives_at for o in obs),
        work=tuple(o.work for o in obs),
        values=tuple(t.value for t in truth),
        deadlines=tuple(t.deadline for t in truth),
        hazards=tuple(t.hazard for t in truth),
    )


@dataclass(frozen=True)
class ScheduleOutcome:
    """What an assignment earns.

    Attributes:
        utility: Total utility.
        completed: Per obligation: the slot count at which it finished (``None``: never).
        on_time: Per obligation: finished by its deadline.
        served: Per obligation: slots it received.
        assignment: The effective assignment (invalid picks become idle, ``None``).
    """

    utility: float
    completed: tuple[int | None, ...]
    on_time: tuple[bool, ...]
    served: tuple[int, ...]
    assignment: tuple[int | None, ...]


def evaluate(problem: ScheduleProblem, assignment: Sequence[int | None]) -> ScheduleOutcome:
    """Value a slot assignment (one obligation index or ``None`` per slot).

    A pick that is not available in its slot (not arrived, finished, out of range) idles.
    """
    p = problem
    left = list(p.work)
    completed: list[int | None] = [None] * p.n
    served = [0] * p.n
    effective: list[int | None] = []
    utility = 0.0
    for t in range(p.slots):
        j = assignment[t] if t < len(assignment) else None
        if j is None or not (0 <= j < p.n) or p.arrivals[j] > t or left[j] == 0:
            effective.append(None)
            continue
        effective.append(j)
        left[j] -= 1
        served[j] += 1
        if left[j] == 0:
            completed[j] = t + 1
            utility += p.payoff(j, t + 1)
    on_time = tuple(c is not None and c <= p.deadlines[j] for j, c in enumerate(completed))
    return ScheduleOutcome(utility, tuple(completed), on_time, tuple(served), tuple(effective))


@dataclass(frozen=True)
class ScheduleOracle:
    """Exact results of one schedule problem.

    Attributes:
        v_star: Best utility over every slot assignment.
        u_random: Expected utility of giving each slot to a uniformly random available
            obligation (idle only when none is available).
        assignment: One optimal assignment.
        worth_serving: Per obligation: leaving it out makes the best schedule strictly worse.
    """

    v_star: float
    u_random: float
    assignment: tuple[int | None, ...]
    worth_serving: tuple[bool, ...]


def _check_size(p: ScheduleProblem) -> None:
    states = p.slots * math.prod(w + 1 for w in p.work)
    if states > MAX_STATES:
        raise ProblemTooLargeError(
            f"{p.n} obligations over {p.slots} slots is {states:,} states, more than the "
            f"{MAX_STATES:,} valued exactly"
        )


def _solver(p: ScheduleProblem, excluded: int | None = None):  # type: ignore[no-untyped-def]
    @cache
    def best(t: int, left: _Left) -> tuple[float, float]:
        """(max, random mean) of the utility still to come from slot ``t``."""
        if t == p.slots:
            return 0.0, 0.0
        avail = [j for j in p.available(t, left) if j != excluded]
        if not avail:
            b, r = best(t + 1, left)
            return b, r
        outs = [_take(t, left, j) for j in avail]
        idle = best(t + 1, left)[0]
        return max(idle, *(o[0] for o in outs)), sum(o[1] for o in outs) / len(outs)

    def _take(t: int, left: _Left, j: int) -> tuple[float, float]:
        nxt = (*left[:j], left[j] - 1, *left[j + 1 :])
        gain = p.payoff(j, t + 1) if nxt[j] == 0 else 0.0
        b, r = best(t + 1, nxt)
        return gain + b, gain + r

    return best, _take


def schedule_oracle(problem: ScheduleProblem) -> ScheduleOracle:
    """Value a schedule problem exactly by dynamic programming over (slot, work left).

    Raises:
        ProblemTooLargeError: the state space is larger than :data:`MAX_STATES`.
    """
    p = problem
    _check_size(p)
    best, take = _solver(p)
    start = tuple(p.work)
    v_star, u_random = best(0, start)
    assignment: list[int | None] = []
    left = start
    for t in range(p.slots):
        target = best(t, left)[0]
        pick: int | None = None
        for j in p.available(t, left):
            if take(t, left, j)[0] >= target - _TOL:
                pick = j
                break
        assignment.append(pick)
        if pick is not None:
            left = (*left[:pick], left[pick] - 1, *left[pick + 1 :])
    worth = []
    for j in range(p.n):
        without, _ = _solver(p, excluded=j)
        worth.append(without(0, start)[0] < v_star - _TOL)
    return ScheduleOracle(v_star, u_random, tuple(assignment), tuple(worth))


def brute_force(problem: ScheduleProblem) -> tuple[float, float]:
    """(V*, U_random) by enumerating every assignment and every random path (for tests)."""
    p = problem
    choices: list[int | None] = [None, *range(p.n)]
    v_star = max(evaluate(p, a).utility for a in itertools.product(choices, repeat=p.slots))

    def random_mean(t: int, assignment: tuple[int | None, ...]) -> float:
        if t == p.slots:
            return evaluate(p, assignment).utility
        out = evaluate(p, assignment)
        left = tuple(w - s for w, s in zip(p.work, out.served, strict=True))
        avail = p.available(t, left)
        if not avail:
            return random_mean(t + 1, (*assignment, None))
        return sum(random_mean(t + 1, (*assignment, j)) for j in avail) / len(avail)

    return v_star, random_mean(0, ())
