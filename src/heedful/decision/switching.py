"""Exact valuation of switching problems (family D): stay / queue / preempt over a finite horizon.

Rules (``docs/scenario-format.md``, kind ``switching``): time runs in steps ``0 … horizon−1``.
At the start of step ``t`` the interruptions arriving at ``t`` are answered (in arrival order).
In each step the agent does one unit of work on, in order of precedence: the first unfinished
*preempted* interruption, else the task, else the first *queued* interruption. Preempting while
the task is unfinished is a **switch**: it costs ``switch_cost`` utility and adds the
interruption's (PRIVATE) ``resume_cost`` steps to the task. An interruption pays its value if its
last step of work ends by its deadline; the task pays its value if it ends within the horizon.

Pure: no I/O, no clock. The oracle is a dynamic programme over (interruption index, trial state);
:func:`brute_force` enumerates every decision vector with an independent step simulation, which
the tests compare it with.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from heedful.errors import ProblemTooLargeError
from heedful.model.switching import SwitchChoice, SwitchingScenario, SwitchingStatus

__all__ = [
    "CHOICES",
    "MAX_INTERRUPTIONS",
    "SwitchOutcome",
    "SwitchState",
    "SwitchingOracle",
    "SwitchingProblem",
    "advance",
    "answer",
    "brute_force",
    "simulate",
    "start_state",
    "status_of",
    "switch_accuracy",
    "switching_oracle",
    "switching_problem",
    "thrashes",
]

#: The answers, in a fixed order (the random baseline draws uniformly among them).
CHOICES: tuple[SwitchChoice, ...] = (SwitchChoice.STAY, SwitchChoice.QUEUE, SwitchChoice.PREEMPT)
#: Largest number of interruptions valued exactly (3¹⁰ decision vectors).
MAX_INTERRUPTIONS = 10
_TOL = 1e-9


@dataclass(frozen=True)
class SwitchingProblem:
    """A switching scenario as numbers, interruptions in answering order (arrival, then file).

    Attributes:
        horizon: Steps in the trial.
        switch_cost: Utility lost per switch away from the unfinished task.
        main_value: Utility of finishing the task within the horizon.
        main_work: Steps the task needs.
        ids: Interruption ids, in answering order.
        arrivals: Arrival step of each.
        handling: Steps each takes.
        values: PRIVATE value of each.
        deadlines: PRIVATE deadline of each.
        resume_costs: PRIVATE extra task steps of switching to each.
    """

    horizon: int
    switch_cost: float
    main_value: float
    main_work: int
    ids: tuple[str, ...]
    arrivals: tuple[int, ...]
    handling: tuple[int, ...]
    values: tuple[float, ...]
    deadlines: tuple[int, ...]
    resume_costs: tuple[int, ...]

    @property
    def n(self) -> int:
        """Number of interruptions."""
        return len(self.ids)


def switching_problem(scenario: SwitchingScenario) -> SwitchingProblem:
    """Compile a switching scenario (view and PRIVATE truth) into a :class:`SwitchingProblem`."""
    view, truth = scenario.view, scenario.truth
    order = sorted(range(len(view.interruptions)), key=lambda i: view.interruptions[i].arrives_at)
    xs = [view.interruptions[i] for i in order]
    ts = [truth.interruptions[x.id] for x in xs]
    return SwitchingProblem(
        horizon=view.horizon,
        switch_cost=view.switch_cost,
        main_value=view.main.value,
        main_work=view.main.work_left,
        ids=tuple(x.id for x in xs),
        arrivals=tuple(x.arrives_at for x in xs),
        handling=tuple(x.handling_steps for x in xs),
        values=tuple(t.value for t in ts),
        deadlines=tuple(t.deadline for t in ts),
        resume_costs=tuple(t.resume_cost for t in ts),
    )


@dataclass(frozen=True)
class SwitchOutcome:
    """What a decision vector earns.

    Attributes:
        utility: Total utility (task + interruptions on time − switch costs).
        main_done: The task was finished within the horizon.
        on_time: Per interruption: handled by its deadline.
        switches: Number of switches away from the unfinished task.
    """

    utility: float
    main_done: bool
    on_time: tuple[bool, ...]
    switches: int


def simulate(problem: SwitchingProblem, decisions: Sequence[SwitchChoice]) -> SwitchOutcome:
    """Run the trial step by step under fixed answers (one per interruption, answering order)."""
    p = problem
    if len(decisions) != p.n:
        raise ValueError(f"need {p.n} decisions, got {len(decisions)}")
    main = p.main_work
    preempted: list[list[int]] = []  # [index, steps left]
    queued: list[list[int]] = []
    on_time = [False] * p.n
    utility = 0.0
    switches = 0
    main_done = False
    k = 0
    for t in range(p.horizon):
        while k < p.n and p.arrivals[k] == t:
            choice = decisions[k]
            if choice is SwitchChoice.PREEMPT:
                preempted.append([k, p.handling[k]])
                if main > 0:
                    main += p.resume_costs[k]
                    utility -= p.switch_cost
                    switches += 1
            elif choice is SwitchChoice.QUEUE:
                queued.append([k, p.handling[k]])
            k += 1
        lane = preempted if preempted else (None if main > 0 else queued)
        if lane is None:
            main -= 1
            if main == 0:
                main_done = True
                utility += p.main_value
        elif lane:
            lane[0][1] -= 1
            if lane[0][1] == 0:
                i = lane.pop(0)[0]
                if t + 1 <= p.deadlines[i]:
                    on_time[i] = True
                    utility += p.values[i]
    return SwitchOutcome(utility, main_done, tuple(on_time), switches)


# -- the dynamic programme ---------------------------------------------------------------------

Lane = tuple[tuple[int, int], ...]
SwitchState = tuple[int, int, Lane, Lane]  # time, task steps left, preempted, queued


def start_state(p: SwitchingProblem) -> SwitchState:
    """The state at step 0: nothing answered yet."""
    return (0, p.main_work, (), ())


def status_of(state: SwitchState) -> SwitchingStatus:
    """What a policy may know of a state (no PRIVATE field: only times and work counts)."""
    t, main, pre, que = state
    return SwitchingStatus(
        time=t,
        main_work_left=main,
        main_done=main == 0,
        preempted_work=sum(left for _, left in pre),
        queued_work=sum(left for _, left in que),
    )


def advance(p: SwitchingProblem, state: SwitchState, until: int) -> tuple[SwitchState, float]:
    """Work from ``state`` up to step ``until``; return the new state and the utility earned."""
    t, main, pre, que = state
    gain = 0.0
    while t < until:
        if pre:
            i, left = pre[0]
            if left == 1:
                pre = pre[1:]
                gain += p.values[i] if t + 1 <= p.deadlines[i] else 0.0
            else:
                pre = ((i, left - 1), *pre[1:])
        elif main > 0:
            main -= 1
            gain += p.main_value if main == 0 else 0.0
        elif que:
            i, left = que[0]
            if left == 1:
                que = que[1:]
                gain += p.values[i] if t + 1 <= p.deadlines[i] else 0.0
            else:
                que = ((i, left - 1), *que[1:])
        t += 1
    return (t, main, pre, que), gain


def answer(
    p: SwitchingProblem, state: SwitchState, k: int, c: SwitchChoice
) -> tuple[SwitchState, float]:
    """Apply answer ``c`` to interruption ``k`` (arriving now); return the state and its cost."""
    t, main, pre, que = state
    if c is SwitchChoice.QUEUE:
        return (t, main, pre, (*que, (k, p.handling[k]))), 0.0
    if c is SwitchChoice.PREEMPT:
        pre = (*pre, (k, p.handling[k]))
        if main > 0:
            return (t, main + p.resume_costs[k], pre, que), -p.switch_cost
        return (t, main, pre, que), 0.0
    return state, 0.0


@dataclass(frozen=True)
class SwitchingOracle:
    """Exact results of one switching problem.

    Attributes:
        v_star: Best utility over every decision vector.
        u_random: Expected utility of answering each interruption uniformly at random.
        optimal: Every optimal decision vector (answering order).
    """

    v_star: float
    u_random: float
    optimal: tuple[tuple[SwitchChoice, ...], ...]


def switching_oracle(problem: SwitchingProblem) -> SwitchingOracle:
    """Value a switching problem exactly by dynamic programming over the answers.

    Raises:
        ProblemTooLargeError: more than :data:`MAX_INTERRUPTIONS` interruptions.
    """
    p = problem
    if p.n > MAX_INTERRUPTIONS:
        raise ProblemTooLargeError(
            f"{p.n} interruptions is more than the {MAX_INTERRUPTIONS} valued exactly"
        )

    @cache
    def best(k: int, state: SwitchState) -> tuple[float, float]:
        """(max, uniform-random mean) of the utility still to come from ``state``."""
        if k == p.n:
            _, gain = advance(p, state, p.horizon)
            return gain, gain
        moved, gain = advance(p, state, p.arrivals[k])
        outs = []
        for c in CHOICES:
            nxt, g = answer(p, moved, k, c)
            b, r = best(k + 1, nxt)
            outs.append((g + b, g + r))
        return gain + max(o[0] for o in outs), gain + sum(o[1] for o in outs) / len(outs)

    def optimal_from(k: int, state: SwitchState) -> list[tuple[SwitchChoice, ...]]:
        if k == p.n:
            return [()]
        moved, _ = advance(p, state, p.arrivals[k])
        scored = []
        for c in CHOICES:
            nxt, g = answer(p, moved, k, c)
            scored.append((g + best(k + 1, nxt)[0], c, nxt))
        top = max(s for s, _, _ in scored)
        return [
            (c, *rest)
            for s, c, nxt in scored
            if s >= top - _TOL
            for rest in optimal_from(k + 1, nxt)
        ]

    start = start_state(p)
    v_star, u_random = best(0, start)
    return SwitchingOracle(v_star, u_random, tuple(optimal_from(0, start)))


def brute_force(problem: SwitchingProblem) -> SwitchingOracle:
    """The same results by simulating every one of the 3ⁿ decision vectors (for tests)."""
    utilities = {
        d: simulate(problem, d).utility for d in itertools.product(CHOICES, repeat=problem.n)
    }
    v_star = max(utilities.values())
    return SwitchingOracle(
        v_star,
        sum(utilities.values()) / len(utilities),
        tuple(d for d, u in utilities.items() if u >= v_star - _TOL),
    )


def thrashes(problem: SwitchingProblem, decisions: Sequence[SwitchChoice]) -> list[int]:
    """Indices of preemptions whose value did not cover their switch (document 000 §25).

    A preemption thrashes when answering it with the better of stay and queue instead (every
    other answer unchanged) would have earned at least as much.
    """
    base = simulate(problem, decisions).utility
    out = []
    for i, c in enumerate(decisions):
        if c is not SwitchChoice.PREEMPT:
            continue
        alts = [
            simulate(problem, [*decisions[:i], alt, *decisions[i + 1 :]]).utility
            for alt in (SwitchChoice.STAY, SwitchChoice.QUEUE)
        ]
        if max(alts) >= base - _TOL:
            out.append(i)
    return out


def switch_accuracy(oracle: SwitchingOracle, decisions: Sequence[SwitchChoice]) -> float | None:
    """Share of answers that agree with the closest optimal decision vector (``None``: none)."""
    if not decisions:
        return None
    best = max(sum(a == b for a, b in zip(opt, decisions, strict=True)) for opt in oracle.optimal)
    return best / len(decisions)
