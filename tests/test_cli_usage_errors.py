"""Usage errors of the console entry point: one stderr line naming the problem, exit code 2."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "heedful.cli", *args], capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (("mcp", "serve"), "--db"),
        (("salience",), "TEXT"),
        (("engine", "run", "--db", "x.db", "--cycles", "0"), "--cycles"),
        (("mcp", "serve", "--db", "x.db", "--port", "abc"), "--port"),
        (("engine", "survey", "--db", "x.db", "--bogus"), "--bogus"),
        (("no-such-command",), "no-such-command"),
    ],
)
def test_usage_error_is_one_line_naming_the_problem_and_exit_2(
    args: tuple[str, ...], names: str
) -> None:
    proc = _cli(*args)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ") and names in lines[0]


def test_bare_command_group_prints_its_help_and_exits_2() -> None:
    proc = _cli("engine")
    assert proc.returncode == 2
    assert "survey" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_successful_command_exits_0() -> None:
    proc = _cli("salience", "about Docker")
    assert proc.returncode == 0, proc.stderr
    assert "Docker" in proc.stdout


def test_help_exits_0() -> None:
    proc = _cli("engine", "run", "--help")
    assert proc.returncode == 0
    assert "--cycles" in proc.stdout


@pytest.mark.parametrize("where", ["dir", "missing/parent.yaml", "file/child.yaml"])
def test_scenario_generate_to_an_unwritable_out_is_one_line(tmp_path: object, where: str) -> None:
    from pathlib import Path

    base = Path(str(tmp_path))
    (base / "file").write_text("x")
    (base / "dir").mkdir()
    out = str(base / where)
    proc = _cli("scenario", "generate", "--family", "G", "--count", "1", "--out", out)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ") and out in lines[0]
