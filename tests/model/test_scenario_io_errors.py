from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from heedful.errors import ScenarioError
from heedful.model import load_scenarios


def test_file_that_is_not_utf8_is_a_scenario_error(tmp_path: Path) -> None:
    f = tmp_path / "latin1.yaml"
    f.write_bytes(b"format: heedful.scenario/v1\nid: caf\xe9\n")
    with pytest.raises(ScenarioError, match="UTF-8"):
        load_scenarios(f)


def test_validating_a_binary_file_exits_2_without_traceback(tmp_path: Path) -> None:
    f = tmp_path / "binary.yaml"
    f.write_bytes(b"\xff\xfe\x00\x01binary")
    proc = subprocess.run(
        [sys.executable, "-m", "heedful.cli", "scenario", "validate", str(f)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
