"""The ``voc-default`` policy: the controller a user gets from ``Controller()`` (issue 24)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from heedful.attention.config import SelectorConfig
from heedful.bench.policies.voc import ControllerPolicy
from heedful.bench.policy import get_policy
from heedful.bench.run.benchmark import run_benchmark
from heedful.bench.run.calibration import pairs_of
from heedful.bench.run.runner import collect_choices
from heedful.bench.views import policy_view
from heedful.bench.worlds.families import generate_family
from heedful.model import load_scenarios

EXAMPLE = Path(__file__).parents[2] / "examples" / "scenarios" / "deploy_a_or_b.yaml"


def _scores(results: object, policy: str) -> list[float]:
    return [t.score for t in results.trials if t.policy == policy]  # type: ignore[attr-defined]


def test_the_worked_example_scores_100_with_the_default_controller() -> None:
    scenarios = load_scenarios(EXAMPLE)
    r = run_benchmark(scenarios, ["voc-default", "voc"], trials=1, seed=0, progress=False)
    assert _scores(r, "voc-default") == [pytest.approx(100.0)]
    (trial,) = [t for t in r.trials if t.policy == "voc-default"]
    assert set(trial.inspected) == {"registry", "compat_matrix"}
    assert _scores(r, "voc")[0] < 100.0  # the heuristic reads the registry and stops


def test_calibration_changes_what_is_said_not_what_is_chosen() -> None:
    scenarios = generate_family("G", 4, seed=5) + generate_family("C", 3, seed=5)
    calibrated, raw = ControllerPolicy(estimator="default"), ControllerPolicy(estimator="model")
    moved = 0
    for scenario in scenarios:
        a, b = pairs_of(calibrated, scenario), pairs_of(raw, scenario)
        assert list(calibrated.controller.inspected) == list(raw.controller.inspected)
        assert [r for _, r in a] == [r for _, r in b]  # the same reads, the same realised values
        assert all((p > 0) == (q > 0) for (p, _), (q, _) in zip(a, b, strict=True))
        moved += sum(p != q for (p, _), (q, _) in zip(a, b, strict=True))
    assert moved > 0


def test_voc_default_explores_as_a_user_gets_it() -> None:
    """The user's selector (exploration paced by the selections made, SelectorConfig's
    default): in a trial's one short turn exploration stays within 10 % of the selections."""
    policy = get_policy("voc-default")
    assert isinstance(policy, ControllerPolicy) and not policy.deterministic
    scenarios = generate_family("G", 8, seed=3)
    r = run_benchmark(scenarios, ["voc-default"], trials=4, seed=0, progress=False)
    assert r.trials  # runs within budget like any policy
    picks: Counter[str] = Counter()
    for scenario in scenarios:
        for trial in range(4):
            policy.reset(policy_view(scenario), np.random.default_rng([trial, 7]))
            assert policy.controller.config.selector == SelectorConfig()
            collect_choices(policy, policy_view(scenario), None)
            reasons = [
                e.reason_code
                for e in policy.controller.trace
                if e.event.value == "candidate_selected"
            ]
            assert reasons.count("exploration") <= 0.1 * len(reasons)
            picks.update(reasons)
    assert picks["highest_net_voc"] > 0
