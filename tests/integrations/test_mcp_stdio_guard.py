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

from heedful.integrations.mcp.stdio_guard import not_utf8_reply, unreadable_reply

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


def _not_utf8(raw: bytes) -> UnicodeDecodeError:
    with pytest.raises(UnicodeDecodeError) as caught:
        raw.decode("utf-8")
    return caught.value


def test_bytes_that_are_not_utf8_are_refused_with_their_offset() -> None:
    raw = _call(9, '"ok"').encode().replace(b'"ok"', b'"\xff"')
    reply = not_utf8_reply(raw, _not_utf8(raw))
    assert reply is not None and reply.id == 9 and reply.error.code == -32600
    offset = raw.index(b"\xff")
    assert f"byte {offset} " in reply.error.message
    assert "0xff" in reply.error.message
    # An id the bad bytes touch is not echoed back; a notification gets no reply.
    bad_id = b'{"jsonrpc":"2.0","id":"a\xfe","method":"tools/list"}'
    touched = not_utf8_reply(bad_id, _not_utf8(bad_id))
    assert touched is not None and touched.id is None
    note = b'{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"\xff"}}'
    assert not_utf8_reply(note, _not_utf8(note)) is None


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
                not_utf8 = _call(5, '"ok"').encode().replace(b'"ok"', b'"\xff\xfe"')
                await proc.stdin.send(("\n".join(lines) + "\n").encode() + not_utf8 + b"\n")
                await proc.stdin.send((_call(6, "true") + "\n").encode())
                replies: dict[int, dict[str, Any]] = {}
                buffer = b""
                while len(replies) < 6:
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
    assert replies[5]["error"]["code"] == -32600 and "not UTF-8" in replies[5]["error"]["message"]
    assert "result" in replies[6]
    assert "Traceback" not in (tmp_path / "stderr.log").read_text(encoding="utf-8")


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
