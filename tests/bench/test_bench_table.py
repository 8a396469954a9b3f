"""The ranked table reads in an 80-column terminal; the README's first table fits 80 columns."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.console import Console

from heedful.bench.report.table import markdown_scores, print_tables
from heedful.bench.results import Results
from heedful.bench.run.benchmark import run_benchmark
from heedful.bench.worlds.families import generate_family

ROOT = Path(__file__).resolve().parents[2]
# Every built-in policy of the default suite (other test modules register more in the registry).
POLICIES = [
    "authority-first",
    "goal-only",
    "loudness",
    "oracle",
    "random",
    "recency",
    "risk-only",
    "salience-003",
    "staleness-only",
    "triage-002",
    "voc",
    "voc-model",
    "voc-no-authority",
    "voc-no-staleness",
    "voc-no-switch-cost",
]


@pytest.fixture(scope="module")
def results() -> Results:
    scenarios = [*generate_family("G", 2, 0), *generate_family("B", 2, 0)]
    return run_benchmark(scenarios, POLICIES, trials=1, seed=0, progress=False)


def _printed(results: Results, width: int) -> str:
    console = Console(width=width, record=True, color_system=None)
    print_tables(results, console)
    return console.export_text()


def test_ranked_table_at_80_columns_shows_every_policy_and_score_whole(results: Results) -> None:
    text = _printed(results, 80)
    lines = text.splitlines()
    assert max(len(line.rstrip()) for line in lines) <= 80
    assert "…" not in text
    for row in results.aggregates.rows:
        if row.family == "all" and row.score is not None:
            mean = f"{round(row.score.mean, 1) + 0.0:.1f}"
            # A policy that read what a better-ranked one read in every trial shares its row
            # ("voc=voc-no-switch-cost", issue 36): its name and its (equal) score are there.
            assert any(row.policy in ln and mean in ln for ln in lines), (row.policy, mean)


def test_every_table_row_is_one_line_at_80_columns(results: Results) -> None:
    text = _printed(results, 80)
    names = {r.policy for r in results.aggregates.rows}
    rows = [
        ln.split()
        for ln in text.splitlines()
        if re.match(r"^\s*\d+\s+\S", ln) and set(ln.split()[1].split("=")) <= names
    ]
    # Every policy in one row of each table (all families, then G and B), alone or sharing it
    # with the policies that read what it read in every trial.
    shown = [name for cells in rows for name in cells[1].split("=")]
    assert sorted(shown) == sorted(3 * list(names))
    assert all(len(cells) == 9 for cells in rows)  # "#", policy, score, CI (2), 4 more


def test_markdown_scores_fit_80_columns_in_run_order(results: Results) -> None:
    lines = markdown_scores(results).splitlines()
    assert lines[0] == "| policy | G | B |"
    assert all(len(line) <= 80 for line in lines)
    labels = [line.split(" | ")[0].removeprefix("| ") for line in lines[2:]]
    shown = [name.strip("`") for label in labels for name in label.split(" = ")]
    assert sorted(shown) == sorted({r.policy for r in results.aggregates.rows})


def _readme_first_table() -> list[str]:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
    return lines[start:end]


def test_readme_first_table_fits_80_columns() -> None:
    table = _readme_first_table()
    assert len(table) > 3
    too_long = [line for line in table if len(line) > 80]
    assert too_long == []


def test_readme_first_table_has_the_layout_the_command_prints(results: Results) -> None:
    header, rule = markdown_scores(results).splitlines()[:2]
    assert _readme_first_table()[:2] == [header, rule]


def test_bench_report_markdown_prints_the_readme_table(results: Results, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from heedful.bench.results import write_results
    from heedful.cli import app

    path = tmp_path / "results.json"
    write_results(results, path)
    out = CliRunner().invoke(app, ["bench", "report", str(path), "--markdown"])
    assert out.exit_code == 0, out.output
    assert out.output.strip() == markdown_scores(results)
    assert not (tmp_path / "report.html").exists()
