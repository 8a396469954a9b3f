"""HTTP is authenticated and private (issue 25): bearer tokens, one session per token.

A real server process on 127.0.0.1 and the official SDK client over real HTTP.
"""

from __future__ import annotations

import json
import stat
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp.shared.exceptions import MCPError
from test_mcp_http import (
    free_port,
    run_http_server,
    stop,
    token_client,
    wait_for_port,
    write_tokens,
)
from typer.testing import CliRunner

from heedful.cli import app
from heedful.errors import InvalidArgumentError
from heedful.integrations.mcp.auth import BearerAuth, add_token, ensure_tokens, read_tokens

ALICE = "alice-token-" + "a" * 24
BOB = "bob-token-" + "b" * 26


def _walk(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [x for sub in exc.exceptions for x in _walk(sub)]
    return [exc, *(_walk(exc.__context__) if exc.__context__ is not None else [])]


def _post(url: str, headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    request = urllib.request.Request(
        url,
        data=body,
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            **headers,
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read().decode()


def _text(result: Any) -> str:
    return "".join(block.text for block in result.content)


def test_tokens_refuse_strangers_and_keep_sessions_apart(
    bounded: Any, tmp_path: Path, seeded_db: Path, deploy_setup: Any
) -> None:
    tokens = write_tokens(tmp_path / "tokens", alice=ALICE, bob=BOB)
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    args = ["-m", "heedful.cli", "mcp", "serve", "--db", str(seeded_db), "--no-engine"]
    args += ["--transport", "http", "--port", str(port), "--token-file", str(tokens)]
    proc = run_http_server(args, tmp_path / "server.log")
    try:

        async def go() -> dict[str, Any]:
            await wait_for_port(proc, port)
            out: dict[str, Any] = {}
            for token in (None, "not-a-token-" + "z" * 20):
                try:
                    async with token_client(url, token) as client:
                        await client.list_tools()
                    out.setdefault("let_in", []).append(token)
                except BaseException as exc:
                    out.setdefault("refused", []).extend(
                        x for x in _walk(exc) if isinstance(x, MCPError)
                    )
            async with token_client(url, ALICE) as alice:
                for name, arguments in deploy_setup:
                    assert not (await alice.call_tool(name, arguments)).is_error
                out["act"] = await alice.call_tool(
                    "attention_run_cycle", {"autonomy_override": "act"}
                )
                ranked = await alice.call_tool("attention_rank", {"budget": 2})
                out["alice_rank"] = ranked.structured_content
                async with token_client(url, BOB) as bob:
                    out["bob_rank"] = (await bob.call_tool("attention_rank", {})).structured_content
                    step = out["alice_rank"]["next"]
                    candidate = step["candidate"]["id"]
                    out["bob_resolve"] = await bob.call_tool(
                        "attention_resolve",
                        {"candidate_id": candidate, "observations": {"dep_version": "4.2"}},
                    )
                    out["bob_health"] = (
                        await bob.call_tool("attention_health", {})
                    ).structured_content
                    out["bob_belief"] = await bob.call_tool(
                        "attention_check_claim", {"claim_id": "dep_version"}
                    )
                out["alice_resolve"] = await alice.call_tool(
                    "attention_resolve",
                    {"candidate_id": candidate, "observations": {"dep_version": "4.2"}},
                )
            return out

        out = bounded(go)
        status, headers, body = _post(url, {})
        wrong_status, _, _ = _post(url, {"Authorization": "Bearer nope-" + "n" * 20})
    finally:
        stop(proc)
    log = (tmp_path / "server.log").read_text(encoding="utf-8")
    # Strangers are refused, by the SDK client and by a bare HTTP request alike.
    assert "let_in" not in out and out["refused"], log
    assert (status, wrong_status) == (401, 401)
    assert (
        headers.get("www-authenticate", headers.get("WWW-Authenticate")) == 'Bearer realm="heedful"'
    )
    assert "Authorization: Bearer" in body
    # Under the default ceiling an MCP client asking for act is refused, naming the ceiling.
    assert out["act"].is_error
    assert "ceiling 'observe'" in _text(out["act"]) and "--max-autonomy" in _text(out["act"])
    # Bob has his own session: none of Alice's sources, beliefs, turns or candidates.
    assert out["alice_rank"]["next"]["action"] == "execute"
    assert out["bob_rank"]["candidates"] == 0 and out["bob_rank"]["next"]["action"] == "stop"
    assert out["bob_resolve"].is_error
    assert out["bob_belief"].is_error and "unknown claim 'dep_version'" in _text(out["bob_belief"])
    assert all(row["fired"] == 0 for row in out["bob_health"]["funnel"]), out["bob_health"]
    # ...and Alice's candidate is still hers to resolve.
    assert not out["alice_resolve"].is_error, _text(out["alice_resolve"])
    assert (tmp_path / "heedful.bob.db").exists()
    assert "Traceback" not in log


def test_a_non_loopback_bind_still_refuses_requests_without_the_token(
    tmp_path: Path, seeded_db: Path
) -> None:
    port = free_port()
    args = ["-m", "heedful.cli", "mcp", "serve", "--db", str(seeded_db), "--no-engine"]
    args += ["--transport", "http", "--host", "0.0.0.0", "--port", str(port)]
    proc = run_http_server(args, tmp_path / "server.log")
    try:
        import anyio

        anyio.run(wait_for_port, proc, port)
        token = read_tokens(Path(f"{seeded_db}.mcp-tokens"))["default"]
        refused, _, _ = _post(f"http://127.0.0.1:{port}/mcp", {"Host": "example.com"})
        allowed, _, _ = _post(
            f"http://127.0.0.1:{port}/mcp",
            {"Host": "example.com", "Authorization": f"Bearer {token}"},
        )
    finally:
        stop(proc)
    assert refused == 401
    assert allowed != 401


def test_first_start_creates_a_private_token_file(tmp_path: Path) -> None:
    path = tmp_path / "agent.db.mcp-tokens"
    tokens, created = ensure_tokens(path)
    assert created and list(tokens) == ["default"] and len(tokens["default"]) >= 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert ensure_tokens(path) == (tokens, False)
    token, added = add_token(path, "bob")
    assert added and read_tokens(path) == {**tokens, "bob": token}
    assert add_token(path, "bob") == (token, False)


def test_a_token_file_others_can_read_is_refused(tmp_path: Path) -> None:
    path = write_tokens(tmp_path / "tokens", alice=ALICE)
    path.chmod(0o644)
    with pytest.raises(InvalidArgumentError, match="chmod 600"):
        read_tokens(path)


def test_mcp_token_command_prints_a_session_s_token(tmp_path: Path) -> None:
    db = str(tmp_path / "agent.db")
    runner = CliRunner()
    first = runner.invoke(app, ["mcp", "token", "--db", db, "--name", "bob"])
    assert first.exit_code == 0, first.output
    token = first.stdout.strip().splitlines()[-1]
    assert read_tokens(f"{db}.mcp-tokens")["bob"] == token
    bad = runner.invoke(app, ["mcp", "token", "--db", db, "--name", "../etc"])
    assert bad.exit_code == 2 and "token name" in bad.output


def test_a_short_token_is_refused_before_serving(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["mcp", "serve", "--db", str(tmp_path / "a.db"), "--transport", "http", "--token", "abc"],
    )
    assert result.exit_code == 2 and "at least 16" in result.output
    assert "Traceback" not in result.output


def test_bearer_auth_matches_only_exact_tokens() -> None:
    auth = BearerAuth(lambda *a: None, {"alice": ALICE, "bob": BOB})  # type: ignore[arg-type,return-value]
    assert auth.session_of(f"Bearer {ALICE}") == "alice"
    assert auth.session_of(f"bearer {BOB}") == "bob"
    for header in (None, "", ALICE, f"Basic {ALICE}", f"Bearer {ALICE}x", f"Bearer {ALICE[:-1]}"):
        assert auth.session_of(header) is None
