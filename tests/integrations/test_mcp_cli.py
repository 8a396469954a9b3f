"""``heedful mcp serve``: bad options and a missing extra are one line and exit code 2."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from heedful.cli import app


def _serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "heedful.cli", "mcp", "serve", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_unknown_transport_exits_2_with_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["mcp", "serve", "--db", str(tmp_path / "h.db"), "--transport", "sse"]
    )
    assert result.exit_code == 2
    assert "--transport must be 'stdio' or 'http'" in result.output


def test_port_out_of_range_exits_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["mcp", "serve", "--db", str(tmp_path / "h.db"), "--transport", "http", "--port", "0"]
    )
    assert result.exit_code == 2
    assert "--port must be between 1 and 65535" in result.output


def test_store_in_a_missing_directory_exits_2_without_traceback(tmp_path: Path) -> None:
    proc = _serve("--db", str(tmp_path / "missing" / "h.db"))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: --db ") and "does not exist" in proc.stderr


def test_unreadable_engine_config_exits_2_without_traceback(tmp_path: Path) -> None:
    proc = _serve("--db", str(tmp_path / "h.db"), "--config", str(tmp_path / "nope.yaml"))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: --config ") and "nope.yaml: cannot read" in proc.stderr


def _without(monkeypatch: Any, *modules: str) -> None:
    """Make ``import m`` fail as if not installed, for each of ``modules`` (and reload ours)."""
    for name in list(sys.modules):
        if name.split(".")[0] in modules or name.startswith("heedful.integrations.mcp"):
            monkeypatch.delitem(sys.modules, name)
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)


@pytest.mark.parametrize(
    "modules",
    [
        ("mcp",),
        # A venv with no extra (what `make run` installs): the SDK's own dependency anyio is
        # the first import that fails — it used to escape as a traceback.
        ("mcp", "anyio"),
    ],
)
def test_missing_mcp_extra_is_one_clear_line(
    tmp_path: Path, monkeypatch: Any, modules: tuple[str, ...]
) -> None:
    _without(monkeypatch, *modules)
    result = CliRunner().invoke(app, ["mcp", "serve", "--db", str(tmp_path / "h.db")])
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"error: the MCP server needs the 'mcp' extra ({modules[-1]} is not installed); "
        "install it with: .venv/bin/pip install -e '.[mcp]' (from the checkout's root)"
    )


def test_a_session_token_needs_no_mcp_sdk(tmp_path: Path, monkeypatch: Any) -> None:
    _without(monkeypatch, "mcp", "anyio", "starlette", "uvicorn")
    db = str(tmp_path / "h.db")
    first = CliRunner().invoke(app, ["mcp", "token", "--db", db])
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(app, ["mcp", "token", "--db", db])
    assert again.exit_code == 0 and again.stdout == first.stdout.splitlines()[-1] + "\n"


def test_stdio_server_exits_cleanly_when_stdin_closes(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    proc = _serve("--db", str(tmp_path / "h.db"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""


def test_http_port_in_use_exits_2_with_one_line(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = _serve("--db", str(tmp_path / "h.db"), "--transport", "http", "--port", str(port))
    assert proc.returncode == 2
    assert (
        proc.stderr.strip() == f"error: cannot listen on 127.0.0.1:{port}: Address already in use"
    )
