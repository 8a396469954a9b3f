"""User text in terminal tables is printed as written, never read as Rich markup.

Goal titles, scenario ids and family labels come from users' files; ``[/x]`` in one was a
MarkupError traceback and ``[bold]`` vanished.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from heedful.cli import app

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
TITLE = "Fix [urgent] login bug [/x] in [bold]v2[/bold]"


def test_engine_tables_print_bracketed_goal_titles_as_written(tmp_path: Path) -> None:
    seed = tmp_path / "seed.yaml"
    seed.write_text(yaml.safe_dump({"goals": [{"id": "g1", "title": TITLE, "status": "active"}]}))
    db = str(tmp_path / "m.db")
    assert runner.invoke(app, ["engine", "load", str(seed), "--db", db]).exit_code == 0
    for command in (
        ["survey", "--include-idle"],
        ["cycle", "--autonomy", "act", "--max-autonomy", "act"],
    ):
        # Piped with no COLUMNS (pytest-xdist's workers set COLUMNS=80, which the CLI honours).
        result = runner.invoke(app, ["engine", *command, "--db", db], env={"COLUMNS": None})
        assert result.exit_code == 0, result.output
        assert TITLE in result.output


def test_oracle_and_bench_print_bracketed_ids_and_families_as_written(tmp_path: Path) -> None:
    (doc,) = yaml.safe_load_all((ROOT / "examples/scenarios/deploy_a_or_b.yaml").read_text())
    first = {**doc, "id": "deploy[/x]", "family": "fam[/y]"}
    second = {**doc, "id": "deploy[bold]2", "family": "other"}
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump([first, second], sort_keys=False))
    oracle = runner.invoke(app, ["bench", "oracle", str(path)])
    assert oracle.exit_code == 0, oracle.output
    assert "deploy[/x]" in oracle.output and "deploy[bold]2" in oracle.output
    args = ["--policies", "random", "--trials", "1", "--out", str(tmp_path / "r")]
    run = runner.invoke(app, ["bench", "run", "--scenarios", str(path), *args])
    assert run.exit_code == 0, run.output
    assert "family fam[/y]" in run.output


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
