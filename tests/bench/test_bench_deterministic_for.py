"""Exact adaptive values for a randomised policy where its randomness cannot act (issue 36,
item 2): ``voc-default`` explores only from a controller's 10th selection on, so on every task
with a budget under 10 it is deterministic — its adaptive value is exact, equal to
``voc-model``'s, and ``check_policy`` checks the claim."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest

from heedful.attention import SelectorConfig
from heedful.bench import run_benchmark
from heedful.bench.policies.voc import first_exploring_selection
from heedful.bench.policy import Observation, Policy, get_policy, register_policy
from heedful.bench.validity.checks import CheckError, check_policy
from heedful.bench.views import policy_view
from heedful.bench.worlds.families import generate_family, generate_suite
from heedful.model import TaskView


def test_the_first_selection_that_may_explore_is_the_tenth_when_paced() -> None:
    assert first_exploring_selection(SelectorConfig()) == 10
    assert first_exploring_selection(SelectorConfig(explore_paced=False)) == 1
    assert first_exploring_selection(SelectorConfig(exploration_rate=0.0)) == math.inf


def test_voc_default_is_deterministic_below_a_budget_of_ten_only() -> None:
    policy = get_policy("voc-default")
    view = policy_view(generate_family("G", 1, 0)[0])
    assert not policy.deterministic and policy.deterministic_for(view)
    assert not policy.deterministic_for(view.model_copy(update={"budget": 10}))


def test_voc_default_adaptive_values_are_exact_and_equal_voc_models() -> None:
    scenarios = generate_suite(["G", "B"], 2, 0)
    res = run_benchmark(
        scenarios, ["voc-default", "voc-model"], trials=2, seed=0, adaptive=True, progress=False
    )
    by = {(t.policy, t.scenario_id, t.trial): t for t in res.trials}
    for t in res.trials:
        assert t.value_kind == "exact"
        if t.policy == "voc-default":
            assert t.value == pytest.approx(by[("voc-model", t.scenario_id, t.trial)].value)


@register_policy("test-deterministic-for-liar")
class _Liar(Policy):
    """Claims to be deterministic on every task but draws its first read from the rng."""

    deterministic = False
    in_default_suite = False

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        self._pick = str(rng.choice(list(view.source_ids)))
        self._done = False

    def next(self, history: Sequence[Observation]) -> str | None:
        if self._done:
            return None
        self._done = True
        return self._pick

    def deterministic_for(self, view: TaskView) -> bool:
        return True


def test_check_policy_catches_a_false_deterministic_for_claim() -> None:
    with pytest.raises(CheckError, match="deterministic_for is True on a task"):
        check_policy(get_policy("test-deterministic-for-liar"))
