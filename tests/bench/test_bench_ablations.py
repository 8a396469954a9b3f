"""The §21 ablation table: every runnable row is a registered policy; differences are vs voc."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from heedful.bench.ablations import (
    ABLATIONS,
    REFERENCE,
    UPPER_BOUND,
    ablation_differences,
    bound_difference,
    load_bounds,
    run_ablations,
)
from heedful.bench.policy import kind_policy_names, policy_names
from heedful.cli import app
from heedful.model.scenario import ScenarioKind


def test_every_runnable_row_is_a_registered_policy_of_some_kind() -> None:
    known = set(policy_names())
    known |= set(kind_policy_names(ScenarioKind.SWITCHING))
    known |= set(kind_policy_names(ScenarioKind.SCHEDULE))
    runnable = [a.policy for a in ABLATIONS if a.policy not in (None, UPPER_BOUND)]
    assert set(runnable) <= known
    assert {"voc-learned", "voc-bandit"} <= set(runnable)
    assert all(a.needs for a in ABLATIONS if a.policy is None)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> object:
    out = tmp_path_factory.mktemp("abl")
    return run_ablations(families="G,D", count=3, trials=2, seed=1, out=out, progress=False)


def test_differences_are_policy_minus_voc(small: object) -> None:
    results = small.results  # type: ignore[attr-defined]
    diffs = ablation_differences(results)
    score = {
        (r.policy, "inspection"): r.score.mean
        for r in results.aggregates.rows
        if r.family == "all" and r.score is not None
    }
    d = diffs["oracle"]["inspection"]
    assert d is not None
    assert d.mean == pytest.approx(
        score[("oracle", "inspection")] - score[(REFERENCE, "inspection")]
    )
    assert diffs["voc-no-switch-cost"]["D"] is not None
    assert "D" not in diffs.get("goal-only", {})


def test_no_goal_and_no_cost_ablations_run_the_controller(small: object) -> None:
    names = {r.policy for r in small.results.aggregates.rows}  # type: ignore[attr-defined]
    assert {"voc-no-goal", "voc-no-cost", "forced-authoritative"} <= names


def test_cli_prints_the_table(tmp_path: Path) -> None:
    res = CliRunner().invoke(
        app,
        [
            "bench",
            "ablations",
            "--family",
            "J",
            "--count",
            "2",
            "--trials",
            "1",
            "--out",
            str(tmp_path / "r"),
        ],
    )
    assert res.exit_code == 0, res.output
    assert "Ablations" in res.output and "voc-no-aging" in res.output
    assert "needs an LLM agent" in res.output


def test_table_fits_80_columns_with_every_policy_and_interval_whole(small: object) -> None:
    from rich.console import Console

    from heedful.bench.ablations import print_ablations

    results = small.results  # type: ignore[attr-defined]
    console = Console(width=80, record=True, color_system=None)
    print_ablations(results, console)
    text = console.export_text()
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 80, text
    for a in ABLATIONS:
        if a.policy != UPPER_BOUND:  # printed only with the bounds (see the next test)
            assert (a.policy or a.condition) in text
    d = ablation_differences(results)["oracle"]["inspection"]
    assert d is not None and f"[{d.lo:+.1f}, {d.hi:+.1f}]" in text


def test_a_row_that_cannot_differ_is_printed_as_inert_not_as_a_result(small: object) -> None:
    from rich.console import Console

    from heedful.bench.ablations import INERT, print_ablations

    results = small.results  # type: ignore[attr-defined]
    diffs = ablation_differences(results)["voc-no-switch-cost"]["inspection"]
    # It is identical to voc on every inspection trial: the term it removes is 0 there.
    assert diffs is None or diffs.a_better == diffs.b_better == 0
    console = Console(width=80, record=True, color_system=None)
    print_ablations(results, console)
    lines = console.export_text().splitlines()
    row = next(
        i for i, line in enumerate(lines) if line.lstrip("│ ").startswith("voc-no-switch-cost")
    )
    assert INERT.split("\n")[0] in lines[row]
    inert = [a for a in ABLATIONS if a.inert]
    assert [a.policy for a in inert] == ["voc-no-switch-cost"]


def test_the_upper_bound_row_is_at_least_the_oracle_and_voc(small: object) -> None:
    from rich.console import Console

    from heedful.bench.ablations import print_ablations

    results = small.results  # type: ignore[attr-defined]
    bounds = load_bounds(small.folder)  # type: ignore[attr-defined]
    assert bounds and all(v >= 100.0 - 1e-9 for v in bounds.values())
    d = bound_difference(results, bounds)
    oracle = ablation_differences(results)["oracle"]["inspection"]
    assert d is not None and oracle is not None
    assert d.mean >= oracle.mean - 1e-9 >= -1e-9  # bound ≥ oracle ≥ voc, on every trial
    assert d.b_better == 0
    console = Console(width=80, record=True, color_system=None)
    print_ablations(results, console, bounds=bounds)
    text = console.export_text()
    assert UPPER_BOUND in text and f"{d.mean:+.1f}" in text
    assert max(len(line) for line in text.splitlines()) <= 80
