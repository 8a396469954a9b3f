"""Two rows, one behaviour (issue 36, item 3): policies that read the same sources in every
trial of a run share one row of the ranked table and of the README table, with the reason
printed; policies that read differently keep their own rows."""

from __future__ import annotations

import pytest
from rich.console import Console

from heedful.bench import run_benchmark
from heedful.bench.report.table import (
    markdown_scores,
    neighbour_differences,
    print_tables,
    ranked_table,
    twins,
)
from heedful.bench.results import Results
from heedful.bench.worlds.families import generate_suite


@pytest.fixture(scope="module")
def results() -> Results:
    scenarios = generate_suite(["G", "B"], 3, 0)
    policies = ["voc", "voc-no-switch-cost", "voc-model", "voc-default", "random"]
    return run_benchmark(scenarios, policies, trials=2, seed=0, progress=False)


def test_policies_that_read_the_same_sources_in_every_trial_are_twins(results: Results) -> None:
    groups = twins(results)
    # The switch cost is zero in an inspection trial; voc-default never explores before its
    # tenth selection, and a trial's budget is at most five.
    assert groups == {"voc-default": ["voc-model"], "voc": ["voc-no-switch-cost"]} or groups == {
        "voc-model": ["voc-default"],
        "voc": ["voc-no-switch-cost"],
    }


def test_policies_that_read_differently_are_not_folded(results: Results) -> None:
    folded = {p for others in twins(results).values() for p in others}
    assert "random" not in folded and "random" not in twins(results)


def test_the_ranked_table_shows_one_row_and_says_why(results: Results) -> None:
    console = Console(width=100, record=True, color_system=None)
    print_tables(results, console)
    text = console.export_text()
    assert "voc=voc-no-switch-cost" in text
    assert "voc-no-switch-cost read the same sources as voc in all 12 trials: one row" in text
    table, note = ranked_table(results)
    assert table.row_count == 3 and "one row" in note


def test_neighbour_differences_skip_a_folded_policy(results: Results) -> None:
    names = {n for a, b, _ in neighbour_differences(results) for n in (a, b)}
    assert "voc-no-switch-cost" not in names


def test_the_readme_table_shares_a_row_between_twins(results: Results) -> None:
    rows = markdown_scores(results).splitlines()[2:]
    assert len(rows) == 3
    assert any(r.startswith("| `voc` = `voc-no-switch-cost` |") for r in rows)


def test_a_sealed_run_has_no_records_and_folds_nothing(results: Results) -> None:
    sealed = results.model_copy(update={"trials": [], "scenarios": [], "sealed": True})
    assert twins(sealed) == {}
