"""The switching kind (family D, document 000 §16 D): stay, queue or preempt while mid-task.

Everything that makes it the switching kind is here: its scenario
(:class:`~heedful.model.switching.SwitchingScenario`, read by
:func:`heedful.model.kinds_io.any_scenario_from_dict`), family D's generator
(:func:`heedful.bench.worlds.switching.generate_switching`), the exact oracle
(:func:`heedful.decision.switching.switching_oracle`), one trial, the policy protocol
(:class:`SwitchingPolicy`) and the oracle policy, the trial record and the row's columns, and its
table. Its baselines and the controller policy are in :mod:`heedful.bench.policies.baselines_dj`
and :mod:`heedful.bench.policies.voc_dj` (registered by ``@register_policy`` on a
:class:`SwitchingPolicy`).

A trial: the policy is reset on the task view (no interruption in it), then each interruption is
handed to it at its arrival with the visible status of the trial; its answers are valued by
:func:`heedful.decision.switching.simulate`. A malformed answer counts as a violation and is
replaced by stay.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
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
    share_ci_text,
    share_text,
    trial_head,
)
from heedful.bench.policy import KindPolicy, register_policy
from heedful.bench.results.kinds import KindRow, KindTrial
from heedful.bench.stats import MeanCI, Proportion, clustered_proportion
from heedful.bench.worlds.switching import VERSION, generate_switching
from heedful.decision import switching as sw
from heedful.errors import InvalidArgumentError
from heedful.model.switching import (
    InterruptionView,
    SwitchChoice,
    SwitchingScenario,
    SwitchingStatus,
    SwitchingTaskView,
)

__all__ = [
    "OracleSwitching",
    "Switching",
    "SwitchingCase",
    "SwitchingPolicy",
    "SwitchingRow",
    "SwitchingTrial",
    "collect_answers",
    "run_switching_trial",
]


class SwitchingPolicy(KindPolicy, ABC):
    """A policy for ``kind: switching`` scenarios (family D).

    It is ``reset`` on the task view (no interruption in it), then ``answer``-ed one
    interruption at a time, at its arrival, with the trial's visible status; it never sees a
    PRIVATE field. Writing one::

        @register_policy("always-queue")
        class AlwaysQueue(SwitchingPolicy):
            def reset(self, view, rng):
                pass

            def answer(self, interruption, status):
                return SwitchChoice.QUEUE
    """

    kind = "switching"

    @abstractmethod
    def reset(self, view: SwitchingTaskView, rng: np.random.Generator) -> None:
        """Start a trial on the task (no interruption, no scenario id)."""

    @abstractmethod
    def answer(self, interruption: InterruptionView, status: SwitchingStatus) -> SwitchChoice:
        """Answer one interruption at its arrival: stay, queue or preempt."""


class SwitchingTrial(KindTrial):
    """One policy on one switching scenario in one trial.

    Attributes:
        decisions: Interruption id → stay / queue / preempt.
        switch_accuracy: Share of answers agreeing with the closest optimal answer vector.
        switches: Switches away from the unfinished task.
        thrashes: Switches whose value did not cover their cost (stay or queue would have
            earned at least as much, every other answer unchanged).
        completed: The task was finished within the horizon.
    """

    kind: Literal["switching"] = "switching"
    decisions: dict[str, str]
    switch_accuracy: float | None
    switches: int
    thrashes: int
    completed: bool


class SwitchingRow(KindRow):
    """Aggregates of one policy on family D: the switching columns (docs/metrics.md)."""

    switch_accuracy: MeanCI | None = None
    thrashes: MeanCI | None = None
    completion: Proportion | None = None
    # heedful.results/v2 writes every D row with the schedule kind's three columns too, empty
    # (one row model served both kinds); kept so the file's bytes do not change.
    starvation_rate: None = None
    horizon_bias: None = None
    missed: dict[str, float] = Field(default_factory=dict)


@dataclass(frozen=True)
class SwitchingCase(KindCase[SwitchingScenario, sw.SwitchingProblem, sw.SwitchingOracle]):
    """A switching scenario with its compiled problem and oracle (PRIVATE)."""

    @classmethod
    def prepare(cls, scenario: SwitchingScenario) -> SwitchingCase:
        """Compile the scenario and run its oracle."""
        problem = sw.switching_problem(scenario)
        return cls(scenario, problem, sw.switching_oracle(problem))

    def oracle_record(self) -> dict[str, Any]:
        """V*, U_random and every optimal answer vector (interruption id → stay / queue /
        preempt, in answering order)."""
        return self.record(
            "switching",
            optimal=[
                dict(zip(self.problem.ids, (c.value for c in vec), strict=True))
                for vec in self.oracle.optimal
            ],
        )


@register_policy("oracle")
class OracleSwitching(SwitchingPolicy):
    """Answer as the first optimal decision vector does.

    The one privileged path: the trial loop binds it to the scenario's PRIVATE case before the
    trials; no other policy is ever handed it.
    """

    def bind(self, case: SwitchingCase) -> None:
        """Hand the oracle the scenario's exact results (evaluator side only)."""
        self._answers = dict(zip(case.problem.ids, case.oracle.optimal[0], strict=True))

    def reset(self, view: SwitchingTaskView, rng: np.random.Generator) -> None:
        """Check it was bound."""
        if not hasattr(self, "_answers"):
            raise InvalidArgumentError("the oracle policy must be bound to a scenario first")

    def answer(self, interruption: InterruptionView, status: SwitchingStatus) -> SwitchChoice:
        """The optimal answer."""
        return self._answers[interruption.id]


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


@scenario_kind
class Switching(ScenarioKindSpec[SwitchingCase, SwitchingTrial]):
    """The switching kind (family D)."""

    kind = "switching"
    scenario = SwitchingScenario
    reader = "heedful.model.kinds_io"
    policy_base = SwitchingPolicy
    trial_record = SwitchingTrial
    row = SwitchingRow
    families = (
        KindFamily(
            "D",
            "switching",
            "switching",
            VERSION,
            "attention switching: stay / queue / preempt while mid-task",
            generate_switching,
        ),
    )
    policy_major = True
    table = KindTable(
        caption="opt.: optimal · switch acc.: switch accuracy · thrash: thrashes per trial\n"
        "compl.: completion",
        columns=(
            Column(
                "switch\nacc.",
                "switch accuracy",
                lambda r: mean_text(r.switch_accuracy, 2),
                lambda r: ci_text(r.switch_accuracy, 2),
            ),
            Column(
                "thrash",
                "thrashes / trial",
                lambda r: mean_text(r.thrashes, 2),
                lambda r: ci_text(r.thrashes, 2),
            ),
            Column(
                "compl.",
                "completion",
                lambda r: share_text(r.completion),
                lambda r: share_ci_text(r.completion),
            ),
        ),
    )

    def prepare(self, scenario: SwitchingScenario, key: int, job: TrialJob) -> SwitchingCase:
        """Compile the scenario and run its oracle."""
        return SwitchingCase.prepare(scenario)

    def play(
        self, case: SwitchingCase, name: str, policy: Any, trial: int, job: TrialJob
    ) -> SwitchingTrial:
        """One trial, on the policy's own stream of the seed."""
        rng = self.rng(case, name, trial, job)
        return run_switching_trial(case, policy, rng, trial=trial, config=job.config)

    def columns(
        self,
        trials: Sequence[SwitchingTrial],
        mean: MeanOf,
        clusters: list[str],
        config: BenchConfig,
    ) -> dict[str, Any]:
        """Switch accuracy, thrashes per trial, completion."""
        return {
            "switch_accuracy": mean(lambda t: t.switch_accuracy),
            "thrashes": mean(lambda t: float(t.thrashes)),
            "completion": clustered_proportion(
                [t.completed for t in trials], clusters, config.ci_level
            ),
        }

    def oracle_record(self, scenario: SwitchingScenario) -> dict[str, Any]:
        """V*, U_random and every optimal answer vector."""
        return SwitchingCase.prepare(scenario).oracle_record()

    def oracle_lines(self, record: dict[str, Any]) -> list[str]:
        """The first three optimal answer vectors."""
        lines = [
            "optimal: " + ", ".join(f"{i} {c}" for i, c in vec.items())
            for vec in record["optimal"][:3]
        ]
        if len(record["optimal"]) > 3:
            lines.append(f"(+{len(record['optimal']) - 3} more optimal answer vectors)")
        return lines
