"""`bench` never imports an HTTP client; a missing `llm` extra is one clear error."""

from __future__ import annotations

import subprocess
import sys


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )


def test_the_bench_imports_no_http_client() -> None:
    proc = _run(
        "import pkgutil, importlib, sys, heedful.bench as b\n"
        "for m in pkgutil.walk_packages(b.__path__, 'heedful.bench.'):\n"
        "    importlib.import_module(m.name)\n"
        "clients = ('openai', 'httpx', 'httpx2', 'aiohttp', 'requests')\n"
        "bad = [n for n in clients if n in sys.modules]\n"
        "print(bad)"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_a_missing_llm_extra_names_the_extra_to_install() -> None:
    proc = _run(
        "import sys\n"
        "sys.modules['httpx2'] = None  # as if the extra were not installed\n"
        "from heedful.bench.agents.contract import agent_class\n"
        "from heedful.errors import InvalidArgumentError\n"
        "try:\n"
        "    agent_class('llm')\n"
        "except InvalidArgumentError as exc:\n"
        "    print(exc)\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert "needs the `llm` extra" in proc.stdout
    assert ".venv/bin/pip install -e '.[llm]' (from the checkout's root)" in proc.stdout
