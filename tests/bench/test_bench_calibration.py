"""Predicted-VOC calibration: exact realised values, the reliability table, the report."""

from __future__ import annotations

from pathlib import Path

import pytest

from heedful import decision
from heedful.bench.policies.voc import ControllerPolicy
from heedful.bench.policy import get_policy
from heedful.bench.report.page import render_html
from heedful.bench.run.calibration import calibrate, calibration_row, pairs_of
from heedful.bench.suite import run_to_folder
from heedful.bench.worlds.families import generate_family


def test_realised_values_telescope_to_the_value_of_the_chosen_set() -> None:
    for scenario in generate_family("G", 4, seed=2):
        policy = get_policy("voc")
        assert isinstance(policy, ControllerPolicy)
        pairs = pairs_of(policy, scenario)
        chosen = list(policy.controller.inspected)
        problem = decision.compile_problem(scenario.view, scenario.truth)
        total = decision.value(problem, sorted(chosen)) - decision.value(problem, [])
        assert sum(r for _, r in pairs) == pytest.approx(total, abs=1e-9)
        assert len(pairs) == len(chosen)


def test_perfect_predictions_have_slope_one_and_no_error() -> None:
    pairs = [(v, v) for v in (0.1, 0.2, 0.4, 0.8, 1.6, 0.05)]
    row = calibration_row("p", pairs)
    assert row is not None
    assert row.slope == pytest.approx(1.0) and row.ece == pytest.approx(0.0)
    assert sum(b.n for b in row.buckets) == 6


def test_overconfident_predictions_show_a_shallow_slope_and_inflation() -> None:
    pairs = [(1.0, 0.1), (0.95, 0.0), (0.97, 0.2), (0.1, 0.05), (0.2, 0.1)]
    row = calibration_row("p", pairs)
    assert row is not None
    assert row.slope is not None and row.slope < 0.5
    assert row.inflation_share == pytest.approx(3 / 5)
    assert row.ece > 0.3


def test_only_value_predicting_controller_policies_are_calibrated() -> None:
    rows = calibrate(generate_family("B", 3, seed=1), ["voc", "random", "goal-only", "voc-model"])
    assert [r.policy for r in rows] == ["voc", "voc-model"]


def test_a_run_reports_calibration_and_draws_the_reliability_diagram(tmp_path: Path) -> None:
    out = run_to_folder(
        families="G", count=3, policies="voc,random", trials=1, out=tmp_path, progress=False
    )
    assert [r.policy for r in out.results.calibration] == ["voc"]
    html = render_html(out.results)
    assert "Predicted-VOC calibration" in html and "reliability diagram of voc" in html


def test_large_runs_are_calibrated_on_an_even_sample() -> None:
    scenarios = generate_family("B", 6, seed=3)
    few = calibrate(scenarios, ["voc"], max_scenarios=2)
    every = calibrate(scenarios, ["voc"])
    assert few[0].n < every[0].n


def test_calibration_table_keeps_policy_names_whole_at_80_columns() -> None:
    from rich.console import Console

    from heedful.bench.report.calibration import calibration_table

    pairs = [(v, v / 2) for v in (0.1, 0.2, 0.4, 0.8, 1.6, 0.05)]
    names = ["voc-no-switch-cost", "voc-no-authority", "voc"]
    rows = [r for r in (calibration_row(n, pairs) for n in names) if r is not None]
    console = Console(width=80, record=True, color_system=None)
    console.print(calibration_table(rows))
    text = console.export_text()
    assert all(name in text for name in names)
    assert max(len(line) for line in text.splitlines()) <= 80
