from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from heedful import __version__
from heedful.cli import app
from heedful.errors import ScenarioError


def test_version_command_prints_package_version() -> None:
    result = CliRunner().invoke(app, ["version"])
    assert result.exit_code == 0
    assert result.output.strip() == __version__


def test_unknown_command_exits_2_without_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "heedful.cli", "no-such-command"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr


def test_scenario_error_message_names_file_and_path() -> None:
    err = ScenarioError("must sum to 1", file="a.yaml", path="variables.x.prior")
    assert str(err) == "a.yaml:variables.x.prior: must sum to 1"


def test_heedful_error_in_any_command_is_one_line_even_without_main(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    result = CliRunner().invoke(app, ["scenario", "validate", str(missing)])
    assert result.exit_code == 2
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.output.count("\n") == 1 and result.output.startswith("error: ")


def test_version_flag_prints_the_version() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "heedful.cli", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == __version__
