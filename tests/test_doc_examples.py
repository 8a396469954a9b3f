"""The Python examples of docs/*.md run as written, each page's blocks in order in one fresh
interpreter (a later block may use names an earlier one defined, as a reader would).

Left out: docs/learn.md (its one example is the Gymnasium environment, tested in
tests/integrations/gym), docs/ray.md (it connects to a running Ray cluster) and docs/inspect.md
(it calls a model provider; tests/integrations/inspect_eval runs the same tasks on the mock model).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIP = {"learn.md", "ray.md", "inspect.md"}
PAGES = {
    p.name: re.findall(r"```python\n(.*?)```", p.read_text(), flags=re.S)
    for p in sorted((ROOT / "docs").glob("*.md"))
    if p.name not in SKIP
}
PAGES = {name: blocks for name, blocks in PAGES.items() if blocks}


def test_docs_have_python_examples() -> None:
    assert {"controller.md", "memory.md", "salience.md", "benchmark.md"} <= set(PAGES)


@pytest.mark.parametrize("page", sorted(PAGES))
def test_doc_python_examples_run_as_written(page: str, tmp_path: Path) -> None:
    # Run where the examples may write their files (agent.db, memory.db), with the repository's
    # example scenarios at the relative path the pages use, and `heedful` on PATH (mcp.md
    # spawns it as a server).
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    proc = subprocess.run(
        [sys.executable, "-c", "\n".join(PAGES[page])],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
