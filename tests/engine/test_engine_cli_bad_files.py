"""Bad seed and config files on the engine CLI: one stderr line, exit 2, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "heedful.cli", *args], capture_output=True, text=True, check=False
    )


def _one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


@pytest.mark.parametrize("name", ["seed.yaml", "seed.json"])
def test_engine_load_of_a_non_utf8_file_is_one_line(tmp_path: Path, name: str) -> None:
    seed = tmp_path / name
    seed.write_bytes(b"\xff\xfe\x00 not text")
    line = _one_error_line(_cli("engine", "load", str(seed), "--db", str(tmp_path / "m.db")))
    assert name in line


def test_engine_load_of_unparsable_yaml_is_one_line_with_its_position(tmp_path: Path) -> None:
    seed = tmp_path / "seed.yaml"
    seed.write_text("goals: [\n  - : :\n")
    line = _one_error_line(_cli("engine", "load", str(seed), "--db", str(tmp_path / "m.db")))
    assert "seed.yaml" in line and "line" in line


def test_engine_config_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "engine.json"
    config.write_bytes(b"\xff\xfe\x00")
    _cli("engine", "load", "/dev/null", "--db", str(tmp_path / "m.db"))
    line = _one_error_line(
        _cli("engine", "survey", "--db", str(tmp_path / "m.db"), "--config", str(config))
    )
    assert "engine.json" in line


def test_engine_config_of_unparsable_yaml_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "engine.yaml"
    config.write_text(": : :\n")
    _cli("engine", "load", "/dev/null", "--db", str(tmp_path / "m.db"))
    line = _one_error_line(
        _cli("engine", "survey", "--db", str(tmp_path / "m.db"), "--config", str(config))
    )
    assert "engine.yaml" in line
