"""The streamable HTTP transport: a real server process on 127.0.0.1, one bounded call."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

HERE = Path(__file__).parent
STARTUP_TIMEOUT_S = 30.0


def free_port() -> int:
    """Return a loopback port that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def wait_for_port(proc: subprocess.Popen[bytes], port: int) -> None:
    """Wait until something accepts connections on ``port``; fail if ``proc`` exits first."""
    with anyio.fail_after(STARTUP_TIMEOUT_S):
        while True:
            if proc.poll() is not None:
                raise AssertionError(f"server exited with {proc.returncode} before listening")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    return
            except OSError:
                await anyio.sleep(0.1)


def run_http_server(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    """Start ``python ARGS`` with its output in ``log``."""
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, *args], cwd=HERE, stdout=out, stderr=subprocess.STDOUT
        )


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Terminate ``proc``, then kill it if it does not exit within a few seconds."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def write_tokens(path: Path, **tokens: str) -> Path:
    """A token file (mode 600) with ``NAME TOKEN`` lines."""
    path.write_text("".join(f"{n} {t}\n" for n, t in tokens.items()), encoding="utf-8")
    path.chmod(0o600)
    return path


@contextlib.asynccontextmanager
async def token_client(url: str, token: str | None) -> AsyncIterator[Client]:
    """An SDK client that sends ``Authorization: Bearer <token>`` (nothing when ``None``)."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else None
    async with (
        create_mcp_http_client(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


def test_heedful_mcp_serve_http_on_loopback_answers_a_call(
    bounded: Any, tmp_path: Path, seeded_db: Path
) -> None:
    port = free_port()
    token = "t0-" + "x" * 30
    args = ["-m", "heedful.cli", "mcp", "serve", "--db", str(seeded_db), "--token", token]
    args += ["--transport", "http", "--host", "127.0.0.1", "--port", str(port)]
    proc = run_http_server(args, tmp_path / "server.log")
    try:

        async def go() -> Any:
            await wait_for_port(proc, port)
            async with token_client(f"http://127.0.0.1:{port}/mcp", token) as client:
                return await client.call_tool("attention_survey", {"include_idle": True})

        result = bounded(go)
    finally:
        stop(proc)
    assert not result.is_error, (tmp_path / "server.log").read_text()
    assert result.structured_content["attention_items"][0]["goal_id"] == "goal-deploy"
