"""Following the docs works in a checkout: the MCP client's path, the engine's journal file."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_mcp_python_client_finds_the_venvs_heedful() -> None:
    text = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    (code,) = [b for b in blocks if "StdioServerParameters" in b]
    assert 'command="heedful"' not in code
    # Run the lines that name the command (not the client itself) with this test's Python.
    setup = "\n".join(
        line
        for line in code.splitlines()
        if line.startswith(("import sys", "from pathlib", "HEEDFUL"))
    )
    scope: dict[str, object] = {}
    exec(setup, scope)
    assert Path(str(scope["HEEDFUL"])).is_absolute()
    assert Path(str(scope["HEEDFUL"])).exists()


@pytest.mark.skipif(shutil.which("git") is None, reason="no git")
def test_the_engine_journal_beside_a_store_is_ignored_by_git() -> None:
    inside = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--is-inside-work-tree"],
        capture_output=True,
        text=True,
    )
    if inside.returncode != 0:
        pytest.skip("not a git checkout")
    for name in ("memory.db", "memory.db.journal.jsonl", "agent.db.journal.jsonl"):
        done = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", name])
        assert done.returncode == 0, name
