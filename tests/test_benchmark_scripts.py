"""Every benchmark script answers ``--help`` with its purpose instead of running the measurement."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = sorted(p.name for p in BENCHMARKS.glob("*.py") if not p.name.startswith("_"))
# The scripts a quick look should not have to wait minutes for; each says what --quick trims.
QUICK = {
    "bench_runner.py",
    "bench_salience.py",
    "controller_speed.py",
    "memory_speed.py",
    "oracle_speed.py",
    "otel_overhead.py",
}


def _help(script: str) -> str:
    # A script without argparse runs its whole measurement here: the timeout turns that into
    # a failure instead of a suite that seems to hang (it is not a speed goal).
    try:
        proc = subprocess.run(
            [sys.executable, str(BENCHMARKS / script), "--help"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{script} --help ran the measurement instead of printing help")
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("script", SCRIPTS)
def test_help_prints_usage_and_the_docstrings_first_line(script: str) -> None:
    doc = ast.get_docstring(ast.parse((BENCHMARKS / script).read_text(encoding="utf-8")))
    assert doc
    text = _help(script)
    assert text.startswith(f"usage: {script}")
    assert " ".join(doc.splitlines()[0].split()) in " ".join(text.split())


@pytest.mark.parametrize("script", sorted(QUICK))
def test_quick_is_offered_and_documented(script: str) -> None:
    assert "--quick" in _help(script)
    assert "``--quick``" in (BENCHMARKS / script).read_text(encoding="utf-8")
