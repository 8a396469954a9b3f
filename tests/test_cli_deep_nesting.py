"""Deeply nested YAML/JSON is one line and exit 2 in every command that reads a file."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from heedful.cli import app

DEPTH = 600


def _deep(tmp_path: Path, style: str) -> Path:
    if style == "json":
        path = tmp_path / "deep.json"
        path.write_text("[" * DEPTH + "]" * DEPTH)
    elif style == "yaml-flow":
        path = tmp_path / "deep.yaml"
        path.write_text("a: " + "[" * DEPTH + "]" * DEPTH + "\n")
    else:
        path = tmp_path / "deep.yaml"
        path.write_text("".join(f"{'  ' * i}k:\n" for i in range(DEPTH)) + "  " * DEPTH + "v\n")
    return path


def _store(tmp_path: Path) -> str:
    seed = tmp_path / "seed.yaml"
    seed.write_text("nodes:\n  - {id: n, content: 'usage report', confidence: 0.8}\n")
    db = str(tmp_path / "m.db")
    assert CliRunner().invoke(app, ["engine", "load", str(seed), "--db", db]).exit_code == 0
    return db


COMMANDS = {
    "scenario validate": lambda f, db: ["scenario", "validate", f],
    "bench run": lambda f, db: ["bench", "run", "--scenarios", f, "--trials", "1"],
    "bench oracle": lambda f, db: ["bench", "oracle", f],
    "engine load": lambda f, db: ["engine", "load", f, "--db", db],
    "engine cycle --config": lambda f, db: ["engine", "cycle", "--db", db, "--config", f],
    "mcp serve --config": lambda f, db: ["mcp", "serve", "--db", db, "--config", f],
}


@pytest.mark.parametrize("style", ["json", "yaml-flow", "yaml-block"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_deeply_nested_file_is_one_line_and_exit_2(
    tmp_path: Path, command: str, style: str
) -> None:
    deep = _deep(tmp_path, style)
    result = CliRunner().invoke(app, COMMANDS[command](str(deep), _store(tmp_path)))
    assert result.exit_code == 2, (result.output, result.exception)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert "levels of nesting" in lines[0] and "HEEDFUL_MAX_INPUT_DEPTH" in lines[0]
    assert "deep." in lines[0]


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
