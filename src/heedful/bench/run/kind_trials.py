"""Trial loops of the switching and schedule kinds, scored against their exact oracles.

Switching: the policy is reset on the task view, then each interruption is handed to it at its
arrival with the visible status of the trial; its answers are valued by
:func:`heedful.decision.switching.simulate`. Schedule: the policy picks an obligation for every
slot among the arrived, unfinished ones; the assignment is valued by
:func:`heedful.decision.schedule.evaluate`. A malformed answer counts as a violation and is
replaced by the do-nothing answer (stay / idle).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import numpy as np

from heedful.bench.config import BenchConfig
from heedful.bench.kind_policy import SchedulePolicy, SwitchingPolicy
from heedful.bench.results.kinds import ScheduleTrial, SwitchingTrial
from heedful.decision import schedule as sched
from heedful.decision import switching as sw
from heedful.model.schedule import ScheduleScenario, Timescale
from heedful.model.switching import SwitchChoice, SwitchingScenario

__all__ = [
    "KindCase",
    "ScheduleCase",
    "SwitchingCase",
    "run_schedule_trial",
    "run_switching_trial",
    "score_of",
    "trial_head",
]

_HORIZON_INDEX = {Timescale.MINUTES: 0, Timescale.HOURS: 1, Timescale.WEEK: 2}


def score_of(value: float, v_star: float, u_random: float, config: BenchConfig) -> float | None:
    """``100·(V − U_random)/(V* − U_random)``, never clipped (SPEC §3).

    ``None`` when the trial is uninformative (``V* − U_random`` below the configured gap).
    """
    gap = v_star - u_random
    return None if gap < config.uninformative_gap else 100.0 * (value - u_random) / gap


class _Oracle(Protocol):
    @property
    def v_star(self) -> float: ...
    @property
    def u_random(self) -> float: ...


Sc = TypeVar("Sc", SwitchingScenario, ScheduleScenario)
Pr = TypeVar("Pr")
Or = TypeVar("Or", bound=_Oracle)


@dataclass(frozen=True)
class KindCase(Generic[Sc, Pr, Or]):
    """A scenario with its compiled problem and exact oracle (PRIVATE; evaluator side)."""

    scenario: Sc
    problem: Pr
    oracle: Or

    def _record(self, kind: str, **optimal: Any) -> dict[str, Any]:
        """What ``heedful bench oracle`` prints: the id, the kind, V*, U_random and ``optimal``."""
        return {
            "id": self.scenario.id,
            "kind": kind,
            "v_star": self.oracle.v_star,
            "u_random": self.oracle.u_random,
            **optimal,
        }


@dataclass(frozen=True)
class SwitchingCase(KindCase[SwitchingScenario, sw.SwitchingProblem, sw.SwitchingOracle]):
    """A switching scenario with its compiled problem and oracle."""

    @classmethod
    def prepare(cls, scenario: SwitchingScenario) -> SwitchingCase:
        """Compile the scenario and run its oracle."""
        problem = sw.switching_problem(scenario)
        return cls(scenario, problem, sw.switching_oracle(problem))

    def oracle_record(self) -> dict[str, Any]:
        """V*, U_random and every optimal answer vector (interruption id → stay / queue /
        preempt, in answering order)."""
        return self._record(
            "switching",
            optimal=[
                dict(zip(self.problem.ids, (c.value for c in vec), strict=True))
                for vec in self.oracle.optimal
            ],
        )


@dataclass(frozen=True)
class ScheduleCase(KindCase[ScheduleScenario, sched.ScheduleProblem, sched.ScheduleOracle]):
    """A schedule scenario with its compiled problem and oracle."""

    @classmethod
    def prepare(cls, scenario: ScheduleScenario) -> ScheduleCase:
        """Compile the scenario and run its oracle."""
        problem = sched.schedule_problem(scenario)
        return cls(scenario, problem, sched.schedule_oracle(problem))

    def oracle_record(self) -> dict[str, Any]:
        """V*, U_random, one optimal assignment (the obligation worked in each slot, ``None``
        idle) and the obligations worth serving."""
        ids, oracle = self.problem.ids, self.oracle
        return self._record(
            "schedule",
            assignment=[None if j is None else ids[j] for j in oracle.assignment],
            worth_serving=[i for i, w in zip(ids, oracle.worth_serving, strict=True) if w],
        )


class _Named(Protocol):
    @property
    def name(self) -> str: ...


def trial_head(
    case: KindCase[Any, Any, Any],
    policy: _Named,
    value: float,
    violations: int,
    *,
    trial: int,
    config: BenchConfig,
) -> dict[str, Any]:
    """The fields every kind's trial record shares: value against the oracle, score, optimality."""
    oracle = case.oracle
    return {
        "scenario_id": case.scenario.id,
        "family": case.scenario.view.family,
        "policy": policy.name,
        "trial": trial,
        "value": value,
        "v_star": oracle.v_star,
        "u_random": oracle.u_random,
        "regret": oracle.v_star - value,
        "score": score_of(value, oracle.v_star, oracle.u_random, config),
        "uninformative": oracle.v_star - oracle.u_random < config.uninformative_gap,
        "optimal": value >= oracle.v_star - config.optimal_tolerance,
        "violations": violations,
    }


def collect_answers(
    case: SwitchingCase, policy: SwitchingPolicy, rng: np.random.Generator
) -> tuple[list[SwitchChoice], int]:
    """Run a switching policy online; return its answers (answering order) and violations."""
    p, view = case.problem, case.scenario.view
    by_id = {x.id: x for x in view.interruptions}
    policy.reset(view.task_view(), rng)
    state = sw.start_state(p)
    answers: list[SwitchChoice] = []
    violations = 0
    for k, xid in enumerate(p.ids):
        state, _ = sw.advance(p, state, p.arrivals[k])
        choice = policy.answer(by_id[xid], sw.status_of(state))
        if not isinstance(choice, SwitchChoice):
            try:
                choice = SwitchChoice(choice)
            except ValueError:
                violations += 1
                choice = SwitchChoice.STAY
        answers.append(choice)
        state, _ = sw.answer(p, state, k, choice)
    return answers, violations


def run_switching_trial(
    case: SwitchingCase,
    policy: SwitchingPolicy,
    rng: np.random.Generator,
    *,
    trial: int,
    config: BenchConfig,
) -> SwitchingTrial:
    """One trial of one policy on one switching scenario."""
    p, oracle = case.problem, case.oracle
    answers, violations = collect_answers(case, policy, rng)
    out = sw.simulate(p, answers)
    head = trial_head(case, policy, out.utility, violations, trial=trial, config=config)
    return SwitchingTrial(
        **head,
        failure=None if head["optimal"] else "ATTN_SWITCH_WRONG",
        decisions={xid: c.value for xid, c in zip(p.ids, answers, strict=True)},
        switch_accuracy=sw.switch_accuracy(oracle, answers),
        switches=out.switches,
        thrashes=len(sw.thrashes(p, answers)),
        completed=out.main_done,
    )


def collect_assignment(
    case: ScheduleCase, policy: SchedulePolicy, rng: np.random.Generator
) -> tuple[list[int | None], int]:
    """Run a schedule policy slot by slot; return its assignment and violations."""
    p, view = case.problem, case.scenario.view
    policy.reset(view.frame(), rng)
    left = list(p.work)
    index = {oid: j for j, oid in enumerate(p.ids)}
    assignment: list[int | None] = []
    violations = 0
    for t in range(p.slots):
        open_js = p.available(t, tuple(left))
        visible = [view.obligations[j] for j in open_js]
        pick = policy.pick(t, visible, {view.obligations[j].id: left[j] for j in open_js})
        j = index.get(pick) if isinstance(pick, str) else None
        if pick is not None and j not in open_js:
            violations += 1
            j = None
        assignment.append(j)
        if j is not None:
            left[j] -= 1
    return assignment, violations


def run_schedule_trial(
    case: ScheduleCase,
    policy: SchedulePolicy,
    rng: np.random.Generator,
    *,
    trial: int,
    config: BenchConfig,
) -> ScheduleTrial:
    """One trial of one policy on one schedule scenario."""
    p, oracle = case.problem, case.oracle
    assignment, violations = collect_assignment(case, policy, rng)
    out = sched.evaluate(p, assignment)
    head = trial_head(case, policy, out.utility, violations, trial=trial, config=config)
    worth = [j for j in range(p.n) if oracle.worth_serving[j]]
    starved = [j for j in worth if out.served[j] == 0]
    missed = {ts.value: 0 for ts in Timescale}
    for j in worth:
        if not out.on_time[j]:
            missed[p.timescales[j].value] += 1
    failure = None
    if starved:
        failure = "ATTN_STARVATION"
    elif not head["optimal"]:
        failure = "ATTN_SELECTION_WRONG"
    return ScheduleTrial(
        **head,
        failure=failure,
        assignment=[p.ids[j] if j is not None else None for j in out.assignment],
        worth_serving=len(worth),
        starved=len(starved),
        starvation_rate=len(starved) / len(worth) if worth else None,
        missed=missed,
        horizon_bias=_horizon_bias(p, out.assignment, oracle.assignment),
    )


def _horizon_bias(
    p: sched.ScheduleProblem, mine: tuple[int | None, ...], best: tuple[int | None, ...]
) -> float | None:
    def mean_index(assignment: tuple[int | None, ...]) -> float | None:
        worked = [_HORIZON_INDEX[p.timescales[j]] for j in assignment if j is not None]
        return sum(worked) / len(worked) if worked else None

    a, b = mean_index(mine), mean_index(best)
    return None if a is None or b is None else a - b
