"""The ``voc-default`` policy: the controller a user gets from ``Controller()`` (issue 24)."""

from __future__ import annotations

from pathlib import Path

import pytest

from heedful.bench.run.runner import run_benchmark
from heedful.bench.score.calibration import calibrate
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
    r = run_benchmark(scenarios, ["voc-default", "voc-model"], trials=1, seed=0, progress=False)
    chosen = {}
    for t in r.trials:
        chosen.setdefault(t.scenario_id, {})[t.policy] = t.inspected
    assert all(c["voc-default"] == c["voc-model"] for c in chosen.values())
    rows = {row.policy: row for row in calibrate(scenarios, ["voc-default", "voc-model"])}
    assert rows["voc-default"].n == rows["voc-model"].n
    assert rows["voc-default"].mean_predicted != rows["voc-model"].mean_predicted
