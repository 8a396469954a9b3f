"""Install hints name the command that works from a checkout (heedful is on no package index)."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from heedful.cli import app
from heedful.extras import extra_hint, pip_hint

ROOT = Path(__file__).resolve().parents[1]
# `pip install 'heedful[mcp]'`, `pip install heedful[ray]`, `install heedful[ray]`: an index
# lookup that cannot succeed.
INDEX_HINT = re.compile(r"install\s+['\"]?heedful\[")


def test_no_source_file_tells_users_to_install_heedful_from_an_index() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted((ROOT / "src" / "heedful").rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if INDEX_HINT.search(line)
    ]
    assert offenders == []


def test_every_extra_hint_names_an_extra_pyproject_declares() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    for extra in ("mcp", "otel", "llm", "ray", "gym"):
        assert extra in declared
        assert extra_hint(extra).startswith(f".venv/bin/pip install -e '.[{extra}]'")


def test_pip_hint_uses_the_checkouts_pip() -> None:
    assert pip_hint("a", "b") == ".venv/bin/pip install a b"


def test_scripted_endpoint_without_the_llm_extra_is_one_line_exit_2(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in list(sys.modules):
        if name.startswith("heedful.integrations.llm"):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "httpx2", None)  # `import httpx2` fails as if not installed
    result = CliRunner().invoke(app, ["agent", "serve-scripted", "--port", "0"])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        "error: the scripted endpoint needs the `llm` extra (httpx2 is not installed): "
        ".venv/bin/pip install -e '.[llm]' (from the checkout's root)"
    ]
