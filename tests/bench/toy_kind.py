"""A toy scenario kind in one module, outside ``src/``: pick one of four boxes.

Each box has a PRIVATE value and a visible, noisy hint of it; a policy sees the hints only and
picks one box; the trial's value is the picked box's value, against the exact oracle (V* = the
best box, U_random = the mean box). It is the whole of a kind, as ``heedful.bench.kinds``'s
contract asks: its scenario, family ``T`` and its generator, the case with the exact oracle, one
trial, its policy protocol and policies, its record and row columns, its table and its oracle
record. ``tests/bench/test_bench_toy_kind.py`` registers it by importing this module.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from heedful.bench.config import DEFAULT_CONFIG, BenchConfig
from heedful.bench.kinds import (
    Column,
    KindCase,
    KindFamily,
    KindTable,
    MeanOf,
    ScenarioKindSpec,
    TrialJob,
    scenario_kind,
    share_ci_text,
    share_text,
    trial_head,
)
from heedful.bench.policy import KindPolicy, register_policy
from heedful.bench.results.kinds import KindRow, KindTrial
from heedful.bench.stats import Proportion, clustered_proportion

BOXES = 4


@dataclass(frozen=True)
class ToyView:
    """What a policy sees: the family and one hint per box."""

    family: str
    hints: tuple[float, ...]


@dataclass(frozen=True)
class ToyScenario:
    """A toy scenario: its id, its view and the PRIVATE value of each box."""

    id: str
    view: ToyView
    values: tuple[float, ...]


@dataclass(frozen=True)
class ToyOracle:
    """The exact oracle: the best box and the mean box."""

    v_star: float
    u_random: float
    best: int


def make_toy(rng: np.random.Generator, wording: np.random.Generator, sid: str) -> ToyScenario:
    """Family T's generator: values in [0, 1], hints = values + noise (rounded)."""
    values = tuple(round(float(v), 3) for v in rng.uniform(0.0, 1.0, BOXES))
    hints = tuple(round(v + float(rng.normal(0.0, 0.2)), 3) for v in values)
    return ToyScenario(sid, ToyView("T", hints), values)


class ToyPolicy(KindPolicy, ABC):
    """A policy of the toy kind: reset on the view, then asked for its box."""

    kind = "toy"

    @abstractmethod
    def reset(self, view: ToyView, rng: np.random.Generator) -> None:
        """Start a trial on the view (hints only)."""

    @abstractmethod
    def choose(self) -> int:
        """The box picked."""


@register_policy("oracle")
class ToyOraclePolicy(ToyPolicy):
    """Pick the best box (bound to the case: the one privileged path)."""

    def bind(self, case: ToyCase) -> None:
        self._best = case.oracle.best

    def reset(self, view: ToyView, rng: np.random.Generator) -> None:
        pass

    def choose(self) -> int:
        return self._best


@register_policy("random")
class ToyRandom(ToyPolicy):
    """Pick a box uniformly."""

    deterministic = False
    information_free = True

    def reset(self, view: ToyView, rng: np.random.Generator) -> None:
        self._rng = rng

    def choose(self) -> int:
        return int(self._rng.integers(BOXES))


@register_policy("toy-first")
class ToyFirst(ToyPolicy):
    """Always pick box 0."""

    information_free = True

    def reset(self, view: ToyView, rng: np.random.Generator) -> None:
        pass

    def choose(self) -> int:
        return 0


@register_policy("toy-hint")
class ToyHint(ToyPolicy):
    """Pick the box with the highest hint."""

    def reset(self, view: ToyView, rng: np.random.Generator) -> None:
        self._hints = view.hints

    def choose(self) -> int:
        return int(np.argmax(self._hints))


class ToyTrial(KindTrial):
    """One policy on one toy scenario in one trial."""

    kind: Literal["toy"] = "toy"
    choice: int
    followed_hint: bool


class ToyRow(KindRow):
    """The toy row: how often the policy picked the box with the highest hint."""

    followed_hint: Proportion | None = None


@dataclass(frozen=True)
class ToyCase(KindCase[ToyScenario, tuple[float, ...], ToyOracle]):
    """A toy scenario with its values and exact oracle."""


@scenario_kind
class Toy(ScenarioKindSpec[ToyCase, ToyTrial]):
    """The toy kind."""

    kind = "toy"
    scenario = ToyScenario
    policy_base = ToyPolicy
    trial_record = ToyTrial
    row = ToyRow
    families = (KindFamily("T", "toy", "toy", "T-v0", "pick the best of four boxes", make_toy),)
    table = KindTable(
        caption="opt.: optimal · hint: picked the highest hint",
        columns=(
            Column(
                "hint",
                "followed the best hint",
                lambda r: share_text(r.followed_hint),
                lambda r: share_ci_text(r.followed_hint),
            ),
        ),
    )

    def prepare(self, scenario: ToyScenario, key: int, job: TrialJob) -> ToyCase:
        values = scenario.values
        oracle = ToyOracle(max(values), sum(values) / len(values), int(np.argmax(values)))
        return ToyCase(scenario, values, oracle)

    def play(self, case: ToyCase, name: str, policy: Any, trial: int, job: TrialJob) -> ToyTrial:
        policy.reset(case.scenario.view, self.rng(case, name, trial, job))
        choice = policy.choose()
        value = case.problem[choice]
        head = trial_head(case, policy, value, 0, trial=trial, config=job.config)
        return ToyTrial(
            **head,
            failure=None if head["optimal"] else "ATTN_SELECTION_WRONG",
            choice=choice,
            followed_hint=choice == int(np.argmax(case.scenario.view.hints)),
        )

    def columns(
        self, trials: Sequence[ToyTrial], mean: MeanOf, clusters: list[str], config: BenchConfig
    ) -> dict[str, Any]:
        return {
            "followed_hint": clustered_proportion(
                [t.followed_hint for t in trials], clusters, config.ci_level
            )
        }

    def oracle_record(self, scenario: ToyScenario) -> dict[str, Any]:
        case = self.prepare(scenario, 0, TrialJob(1, 0, DEFAULT_CONFIG))
        return case.record("toy", best=case.oracle.best)

    def oracle_lines(self, record: dict[str, Any]) -> list[str]:
        return [f"best box: {record['best']}"]
