"""An MCP session over HTTP belongs to its token; the token file is followed while serving; a
bind others can reach says the token travels in clear text (issue 37).

Real server processes on 127.0.0.1 and plain HTTP requests, plus the middleware on its own.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from test_mcp_http import free_port, run_http_server, stop, wait_for_port, write_tokens

from heedful.integrations.mcp.auth import BearerAuth, TokenFile, add_token, is_loopback

ALICE = "alice-token-" + "a" * 24
BOB = "bob-token-" + "b" * 26

_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}


def _request(
    url: str,
    method: str,
    token: str,
    body: dict[str, Any] | None = None,
    session: str | None = None,
) -> tuple[int, dict[str, str], str]:
    headers = {
        "Authorization": f"Bearer {token}",
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
    }
    if session is not None:
        headers["mcp-session-id"] = session
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return (
                response.status,
                {k.lower(): v for k, v in response.headers.items()},
                (response.read().decode()),
            )
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read().decode()


def _open_session(url: str, token: str) -> str:
    status, headers, body = _request(url, "POST", token, _INIT)
    assert status == 200, body
    return headers["mcp-session-id"]


def _serve(tmp_path: Path, db: Path, tokens: Path, *, host: str = "127.0.0.1") -> Any:
    port = free_port()
    args = ["-m", "heedful.cli", "mcp", "serve", "--db", str(db), "--no-engine"]
    args += ["--transport", "http", "--host", host, "--port", str(port), "--token-file"]
    proc = run_http_server([*args, str(tokens)], tmp_path / "server.log")
    anyio.run(wait_for_port, proc, port)
    return proc, f"http://127.0.0.1:{port}/mcp"


def test_another_token_s_delete_does_not_end_a_session(tmp_path: Path, seeded_db: Path) -> None:
    tokens = write_tokens(tmp_path / "tokens", alice=ALICE, bob=BOB)
    proc, url = _serve(tmp_path, seeded_db, tokens)
    try:
        victim = _open_session(url, ALICE)
        bob_delete = _request(url, "DELETE", BOB, session=victim)[0]
        bob_post = _request(url, "POST", BOB, {"jsonrpc": "2.0", "method": "ping", "id": 2}, victim)
        alice_after = _request(
            url, "POST", ALICE, {"jsonrpc": "2.0", "method": "ping", "id": 3}, victim
        )
        alice_delete = _request(url, "DELETE", ALICE, session=victim)[0]
        gone = _request(url, "POST", ALICE, {"jsonrpc": "2.0", "method": "ping", "id": 4}, victim)
    finally:
        stop(proc)
    # Bob is told the session does not exist, for a DELETE and a POST alike...
    assert bob_delete == 404 and bob_post[0] == 404 and "Session not found" in bob_post[2]
    # ...and it still serves Alice, who alone can end it.
    assert alice_after[0] == 200, alice_after
    assert alice_delete == 200 and gone[0] == 404


def test_a_token_added_to_the_file_works_without_a_restart(tmp_path: Path, seeded_db: Path) -> None:
    tokens = write_tokens(tmp_path / "tokens", alice=ALICE)
    proc, url = _serve(tmp_path, seeded_db, tokens)
    try:
        before = _request(url, "POST", BOB, _INIT)[0]
        time.sleep(0.05)  # a modification time the file system can tell from the first one
        with tokens.open("a", encoding="utf-8") as fh:
            fh.write(f"bob {BOB}\n")
        after = _request(url, "POST", BOB, _INIT)[0]
        write_tokens(tokens, bob=BOB)  # alice removed: refused at once
        alice_removed = _request(url, "POST", ALICE, _INIT)[0]
    finally:
        stop(proc)
    assert (before, after, alice_removed) == (401, 200, 401)


def test_a_non_loopback_bind_warns_once_that_the_token_travels_in_clear_text(
    tmp_path: Path, seeded_db: Path
) -> None:
    tokens = write_tokens(tmp_path / "tokens", alice=ALICE)
    proc, _ = _serve(tmp_path, seeded_db, tokens, host="0.0.0.0")
    stop(proc)
    log = (tmp_path / "server.log").read_text(encoding="utf-8")
    assert log.count("is not a loopback address") == 1, log
    assert "clear text" in log and "--tls" in log


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("192.168.1.5", False),
        ("example.com", False),
    ],
)
def test_is_loopback_tells_local_binds(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


# --- the middleware on its own -------------------------------------------------------------


def _app(session_id: bytes) -> Any:
    """An ASGI app that opens session ``session_id`` on a POST without one, and answers 200."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        names = dict(scope["headers"])
        headers = [] if b"mcp-session-id" in names else [(b"mcp-session-id", session_id)]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"{}"})

    return app


def _call(auth: BearerAuth, method: str, token: str, session: bytes | None = None) -> int:
    headers = [(b"authorization", f"Bearer {token}".encode())]
    if session is not None:
        headers.append((b"mcp-session-id", session))
    scope = {"type": "http", "method": method, "headers": headers}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    anyio.run(auth, scope, receive, send)
    return int(sent[0]["status"])


def test_the_middleware_gives_a_session_to_the_token_that_opened_it() -> None:
    auth = BearerAuth(_app(b"s1"), {"alice": ALICE, "bob": BOB})
    assert _call(auth, "POST", ALICE) == 200
    assert auth.owners == {b"s1": "alice"}
    assert _call(auth, "DELETE", BOB, b"s1") == 404
    assert auth.owners == {b"s1": "alice"}
    assert _call(auth, "DELETE", ALICE, b"s1") == 200
    assert auth.owners == {}


def test_a_token_file_that_turns_unusable_keeps_the_tokens_read_before(tmp_path: Path) -> None:
    path = write_tokens(tmp_path / "tokens", alice=ALICE)
    followed = TokenFile(path)
    add_token(path, "carol")
    assert set(followed.current()) == {"alice", "carol"}
    path.chmod(0o644)  # readable by others: refused, the tokens read before stay
    assert set(followed.current()) == {"alice", "carol"}
    os.chmod(path, 0o600)
    path.write_text(f"bob {BOB}\n", encoding="utf-8")
    assert set(followed.current()) == {"bob"}


pytestmark = pytest.mark.usefixtures("fixed_clock")
