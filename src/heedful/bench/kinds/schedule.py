"""The schedule kind (family J, document 000 §16 J): obligations on several timescales share
the slots of a horizon.

Everything that makes it the schedule kind is here: its scenario
(:class:`~heedful.model.schedule.ScheduleScenario`, read by
:func:`heedful.model.kinds_io.any_scenario_from_dict`), family J's generator
(:func:`heedful.bench.worlds.schedule.generate_schedule`), the exact oracle
(:func:`heedful.decision.schedule.schedule_oracle`), one trial, the policy protocol
(:class:`SchedulePolicy`) and the oracle policy, the trial record and the row's columns, and its
table. Its baselines and the controller policy are in :mod:`heedful.bench.policies.baselines_dj`
and :mod:`heedful.bench.policies.voc_dj` (registered by ``@register_policy`` on a
:class:`SchedulePolicy`).

A trial: the policy picks an obligation for every slot among the arrived, unfinished ones; the
assignment is valued by :func:`heedful.decision.schedule.evaluate`. A pick that is not open counts
as a violation and the slot stays idle.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from pydantic import Field

from heedful.bench.config import BenchConfig
from heedful.bench.kinds.contract import (
    Column,
    KindCase,
    KindFamily,
    KindTable,
    MeanOf,
    ScenarioKindSpec,
    TrialJob,
    ci_text,
    mean_text,
    scenario_kind,
    trial_head,
)
from heedful.bench.policy import KindPolicy, register_policy
from heedful.bench.results.kinds import KindRow, KindTrial
from heedful.bench.stats import MeanCI
from heedful.bench.worlds.schedule import VERSION, generate_schedule
from heedful.decision import schedule as sched
from heedful.errors import InvalidArgumentError
from heedful.model.schedule import ObligationView, ScheduleFrame, ScheduleScenario, Timescale

__all__ = [
    "OracleSchedule",
    "Schedule",
    "ScheduleCase",
    "SchedulePolicy",
    "ScheduleRow",
    "ScheduleTrial",
    "collect_assignment",
    "run_schedule_trial",
]

_HORIZON_INDEX = {Timescale.MINUTES: 0, Timescale.HOURS: 1, Timescale.WEEK: 2}
_MISSED = ("minutes", "hours", "week")


class SchedulePolicy(KindPolicy, ABC):
    """A policy for ``kind: schedule`` scenarios (family J).

    It is ``reset`` on the scenario's frame (no obligation in it), then asked to ``pick`` the
    obligation for each slot among those that have arrived and are unfinished; it never sees a
    PRIVATE field.
    """

    kind = "schedule"

    @abstractmethod
    def reset(self, view: ScheduleFrame, rng: np.random.Generator) -> None:
        """Start a trial on the frame of the scenario (no obligation, no scenario id)."""

    @abstractmethod
    def pick(
        self, slot: int, open_obligations: Sequence[ObligationView], left: Mapping[str, int]
    ) -> str | None:
        """Return the id of the obligation that gets ``slot`` (``None``: leave it idle).

        Args:
            slot: The slot index.
            open_obligations: Arrived, unfinished obligations, in file order.
            left: Slots of work each of them still needs.
        """


class ScheduleTrial(KindTrial):
    """One policy on one schedule scenario in one trial.

    Attributes:
        assignment: Obligation id (or ``None``) per slot, as executed.
        worth_serving: Obligations whose omission makes the best schedule strictly worse.
        starved: Of those, how many got no slot at all.
        starvation_rate: ``starved / worth_serving`` (``None`` when none is worth serving).
        missed: Timescale → obligations worth serving not finished by their deadline.
        horizon_bias: Mean horizon index of the slots worked (minutes 0, hours 1, week 2) minus
            the oracle's; negative = myopic, positive = far-sighted.
    """

    kind: Literal["schedule"] = "schedule"
    assignment: list[str | None]
    worth_serving: int
    starved: int
    starvation_rate: float | None
    missed: dict[str, int]
    horizon_bias: float | None


class ScheduleRow(KindRow):
    """Aggregates of one policy on family J: the schedule columns (docs/metrics.md)."""

    # heedful.results/v2 writes every J row with the switching kind's three columns first,
    # empty (one row model served both kinds); kept so the file's bytes do not change.
    switch_accuracy: None = None
    thrashes: None = None
    completion: None = None
    starvation_rate: MeanCI | None = None
    horizon_bias: MeanCI | None = None
    missed: dict[str, float] = Field(default_factory=dict)


@dataclass(frozen=True)
class ScheduleCase(KindCase[ScheduleScenario, sched.ScheduleProblem, sched.ScheduleOracle]):
    """A schedule scenario with its compiled problem and oracle (PRIVATE)."""

    @classmethod
    def prepare(cls, scenario: ScheduleScenario) -> ScheduleCase:
        """Compile the scenario and run its oracle."""
        problem = sched.schedule_problem(scenario)
        return cls(scenario, problem, sched.schedule_oracle(problem))

    def oracle_record(self) -> dict[str, Any]:
        """V*, U_random, one optimal assignment (the obligation worked in each slot, ``None``
        idle) and the obligations worth serving."""
        ids, oracle = self.problem.ids, self.oracle
        return self.record(
            "schedule",
            assignment=[None if j is None else ids[j] for j in oracle.assignment],
            worth_serving=[i for i, w in zip(ids, oracle.worth_serving, strict=True) if w],
        )


@register_policy("oracle")
class OracleSchedule(SchedulePolicy):
    """Follow the oracle's optimal assignment.

    The one privileged path: the trial loop binds it to the scenario's PRIVATE case before the
    trials; no other policy is ever handed it.
    """

    def bind(self, case: ScheduleCase) -> None:
        """Hand the oracle the scenario's exact results (evaluator side only)."""
        ids = case.problem.ids
        self._plan = [ids[j] if j is not None else None for j in case.oracle.assignment]

    def reset(self, view: ScheduleFrame, rng: np.random.Generator) -> None:
        """Check it was bound."""
        if not hasattr(self, "_plan"):
            raise InvalidArgumentError("the oracle policy must be bound to a scenario first")

    def pick(
        self, slot: int, open_obligations: Sequence[ObligationView], left: Mapping[str, int]
    ) -> str | None:
        """The planned obligation of this slot."""
        return self._plan[slot]


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


@scenario_kind
class Schedule(ScenarioKindSpec[ScheduleCase, ScheduleTrial]):
    """The schedule kind (family J)."""

    kind = "schedule"
    scenario = ScheduleScenario
    reader = "heedful.model.kinds_io"
    policy_base = SchedulePolicy
    trial_record = ScheduleTrial
    row = ScheduleRow
    families = (
        KindFamily(
            "J",
            "schedule",
            "schedule",
            VERSION,
            "multi-timescale obligations: urgent-now vs important-hour vs important-week",
            generate_schedule,
        ),
    )
    policy_major = True
    table = KindTable(
        caption="opt.: optimal · starv.: starvation rate\n"
        "missed m/h/w: obligations missed per trial (minutes, hours, week)",
        columns=(
            Column(
                "starv.",
                "starvation rate",
                lambda r: mean_text(r.starvation_rate, 2),
                lambda r: ci_text(r.starvation_rate, 2),
            ),
            Column(
                "horizon\nbias",
                "horizon bias",
                lambda r: mean_text(r.horizon_bias, 2),
                lambda r: ci_text(r.horizon_bias, 2),
            ),
            Column(
                "missed\nm/h/w",
                "missed on time: minutes / hours / week",
                lambda r: "/".join(f"{r.missed.get(k, 0):.2f}" for k in _MISSED),
                lambda r: " / ".join(f"{r.missed.get(k, 0.0):.2f}" for k in _MISSED),
            ),
        ),
    )

    def prepare(self, scenario: ScheduleScenario, key: int, job: TrialJob) -> ScheduleCase:
        """Compile the scenario and run its oracle."""
        return ScheduleCase.prepare(scenario)

    def play(
        self, case: ScheduleCase, name: str, policy: Any, trial: int, job: TrialJob
    ) -> ScheduleTrial:
        """One trial, on the policy's own stream of the seed."""
        rng = self.rng(case, name, trial, job)
        return run_schedule_trial(case, policy, rng, trial=trial, config=job.config)

    def columns(
        self,
        trials: Sequence[ScheduleTrial],
        mean: MeanOf,
        clusters: list[str],
        config: BenchConfig,
    ) -> dict[str, Any]:
        """Starvation rate, horizon bias, obligations missed per trial per timescale."""
        return {
            "starvation_rate": mean(lambda t: t.starvation_rate),
            "horizon_bias": mean(lambda t: t.horizon_bias),
            "missed": {k: sum(t.missed[k] for t in trials) / len(trials) for k in trials[0].missed},
        }

    def oracle_record(self, scenario: ScheduleScenario) -> dict[str, Any]:
        """V*, U_random, one optimal assignment and the obligations worth serving."""
        return ScheduleCase.prepare(scenario).oracle_record()

    def oracle_lines(self, record: dict[str, Any]) -> list[str]:
        """The optimal schedule, slot by slot, and the obligations worth serving."""
        slots = ", ".join(o if o is not None else "idle" for o in record["assignment"])
        return [
            f"an optimal schedule (per slot): {slots}",
            "worth serving: " + (", ".join(record["worth_serving"]) or "none"),
        ]
