"""The README's Python examples run as written (in a fresh interpreter, from the repo root)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)


def test_readme_has_python_examples() -> None:
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_example_runs(index: int) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", BLOCKS[index]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


def test_readme_opens_with_the_two_commands() -> None:
    head = (ROOT / "README.md").read_text().splitlines()[:8]
    assert any(line.strip().startswith("make run") for line in head)
    assert any(line.strip().startswith("make test") for line in head)
