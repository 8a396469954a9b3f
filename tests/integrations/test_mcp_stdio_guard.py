"""Over stdio every request gets an answer, even one the SDK's parser refuses (issue 25)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from heedful.integrations.mcp.stdio_guard import unreadable_reply

HERE = Path(__file__).parent

DEEP = "[" * 300 + "]" * 300
SURROGATE = '"\\ud800"'


def _call(request_id: int, value: str) -> str:
    head = '{"jsonrpc":"2.0","id":' + str(request_id) + ',"method":"tools/call",'
    return head + '"params":{"name":"attention_survey","arguments":{"include_idle":' + value + "}}}"


def test_unreadable_requests_get_an_error_with_their_id() -> None:
    deep = unreadable_reply(_call(7, DEEP))
    assert deep is not None and deep.id == 7 and deep.error.code == -32600
    assert "nested too deeply" in deep.error.message
    lone = unreadable_reply(_call(8, SURROGATE))
    assert lone is not None and lone.id == 8 and "surrogate" in lone.error.message
    garbage = unreadable_reply("{not json")
    assert garbage is not None and garbage.id is None and garbage.error.code == -32700


def test_readable_messages_and_notifications_pass_untouched() -> None:
    assert unreadable_reply(_call(1, "true")) is None
    notification = '{"jsonrpc":"2.0","method":"notifications/x","params":{"a":' + DEEP + "}}"
    assert unreadable_reply(notification) is None


def test_heedful_mcp_serve_answers_deep_and_surrogate_requests(
    bounded: Any, tmp_path: Path, seeded_db: Path
) -> None:
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    args = [sys.executable, "-m", "heedful.cli", "mcp", "serve", "--db", str(seeded_db)]

    async def go() -> dict[int, dict[str, Any]]:
        with (tmp_path / "stderr.log").open("w") as errlog:
            async with await anyio.open_process(
                [*args, "--no-engine"], stderr=errlog, env=env
            ) as proc:
                assert proc.stdin is not None and proc.stdout is not None
                init = {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "raw", "version": "0"},
                    },
                }
                lines = [
                    json.dumps(init),
                    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
                    _call(2, DEEP),
                    _call(3, SURROGATE),
                    _call(4, "true"),
                ]
                await proc.stdin.send(("\n".join(lines) + "\n").encode())
                replies: dict[int, dict[str, Any]] = {}
                buffer = b""
                while len(replies) < 4:
                    buffer += await proc.stdout.receive()
                    *done, buffer = buffer.split(b"\n")
                    for raw in done:
                        if raw.strip():
                            message = json.loads(raw)
                            replies[message["id"]] = message
                await proc.stdin.aclose()
                await proc.wait()
                return replies

    replies = bounded(go)
    assert replies[2]["error"]["code"] == -32600
    assert "nested too deeply" in replies[2]["error"]["message"]
    assert replies[3]["error"]["code"] == -32600 and "surrogate" in replies[3]["error"]["message"]
    assert "result" in replies[4]  # the server kept serving
    assert "Traceback" not in (tmp_path / "stderr.log").read_text(encoding="utf-8")
