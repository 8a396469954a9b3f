"""A write sent again with the same request key applies once and gets the first answer (issue
37): the retry rule for a client whose answer was lost ("Connection closed", a timeout)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from heedful.integrations.mcp.backend import SessionBackends, open_backend
from heedful.integrations.mcp.tools import REQUEST_KEY, TOOLS, ToolFailure, call_tool
from heedful.memory import Store

HERE = Path(__file__).parent


def _setup(backend: Any, deploy_setup: Any) -> None:
    for name, arguments in deploy_setup:
        call_tool(backend, name, arguments)


def test_a_retried_write_with_the_same_key_applies_once(seeded_db: Path, deploy_setup: Any) -> None:
    backend = open_backend(seeded_db, heartbeat=False)
    try:
        _setup(backend, deploy_setup)
        first = call_tool(backend, "attention_rank", {"budget": 2, REQUEST_KEY: "rank-1"})
        again = call_tool(backend, "attention_rank", {"budget": 2, REQUEST_KEY: "rank-1"})
        after = call_tool(backend, "attention_rank", {"budget": 2})
    finally:
        backend.close()
    assert again == first and first["turn_id"] == "turn-1"
    assert after["turn_id"] == "turn-2"  # the retry began no turn of its own


def test_the_same_key_for_another_call_is_refused(seeded_db: Path, deploy_setup: Any) -> None:
    backend = open_backend(seeded_db, heartbeat=False)
    try:
        _setup(backend, deploy_setup)
        call_tool(backend, "attention_rank", {"budget": 2, REQUEST_KEY: "k"})
        with pytest.raises(ToolFailure, match="'k' was already used for another call"):
            call_tool(backend, "attention_rank", {"budget": 3, REQUEST_KEY: "k"})
        with pytest.raises(ToolFailure, match="already used"):
            call_tool(backend, "attention_run_cycle", {REQUEST_KEY: "k"})
    finally:
        backend.close()


def test_a_key_outlives_the_server(seeded_db: Path) -> None:
    answers = []
    for _ in range(2):  # two servers, one after the other, on the same store
        backend = open_backend(seeded_db, heartbeat=False)
        try:
            answers.append(call_tool(backend, "attention_run_cycle", {REQUEST_KEY: "cycle-1"}))
        finally:
            backend.close()
    assert answers[0] == answers[1] and answers[0]["cycle_id"].startswith("cycle-")


def test_a_failed_keyed_call_keeps_nothing(seeded_db: Path) -> None:
    backend = open_backend(seeded_db, heartbeat=False)
    try:
        for _ in range(2):  # refused both times: the refusal was not remembered as an answer
            with pytest.raises(ToolFailure, match="GovernanceError"):
                call_tool(
                    backend, "attention_run_cycle", {"autonomy_override": "act", REQUEST_KEY: "x"}
                )
    finally:
        backend.close()
    with Store.open(seeded_db) as store:
        assert store.remembered_reply("stdio", "x") is None


def test_sessions_on_one_store_keep_their_keys_apart(seeded_db: Path) -> None:
    sessions = SessionBackends(
        open_backend(seeded_db, heartbeat=False), "alice", seeded_db, shared_store=True
    )
    try:
        alice = call_tool(sessions.get("alice"), "attention_run_cycle", {REQUEST_KEY: "same"})
        bob = call_tool(sessions.get("bob"), "attention_run_cycle", {REQUEST_KEY: "same"})
    finally:
        sessions.close()
    assert alice["cycle_id"] != bob["cycle_id"]


def test_only_write_tools_take_a_request_key() -> None:
    for spec in TOOLS:
        assert (REQUEST_KEY in spec.input_schema()["properties"]) is (not spec.read_only)


def test_a_read_only_tool_refuses_a_request_key(seeded_db: Path) -> None:
    backend = open_backend(seeded_db, heartbeat=False)
    try:
        with pytest.raises(ToolFailure, match="unknown argument 'request_key'"):
            call_tool(backend, "attention_survey", {REQUEST_KEY: "k"})
    finally:
        backend.close()


def test_a_request_key_follows_the_id_rules(seeded_db: Path) -> None:
    backend = open_backend(seeded_db, heartbeat=False)
    try:
        with pytest.raises(ToolFailure, match="request_key"):
            call_tool(backend, "attention_run_cycle", {REQUEST_KEY: "k\u200b"})
        with pytest.raises(ToolFailure, match="request_key"):
            call_tool(backend, "attention_run_cycle", {REQUEST_KEY: 7})
    finally:
        backend.close()


# --- over stdio, the case the rule is for ---------------------------------------------------

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
_READY = {"jsonrpc": "2.0", "method": "notifications/initialized"}
_CALL = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "attention_run_cycle", "arguments": {REQUEST_KEY: "closed-1"}},
}


def _server(db: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "heedful.cli", "mcp", "serve", "--db", str(db), "--no-engine"],
        cwd=HERE,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def _lines(*messages: dict[str, Any]) -> str:
    return "".join(json.dumps(m) + "\n" for m in messages)


def test_a_write_lost_to_a_closed_stdin_is_answered_on_retry_without_applying_again(
    seeded_db: Path,
) -> None:
    # The client sends a keyed write and closes stdin at once: the server finishes the call it
    # started (the write is applied) but, its input gone, usually never answers — the client
    # sees "Connection closed" and cannot tell whether the write was applied.
    first = _server(seeded_db)
    out, _ = first.communicate(_lines(_INIT, _READY, _CALL), timeout=120)
    answers = [json.loads(line) for line in out.splitlines() if line.strip()]
    with Store.open(seeded_db) as store:
        kept = store.remembered_reply("stdio", "closed-1")
    assert kept is not None  # applied, and its answer kept
    for message in answers:  # an answer that did get out is that one
        if message.get("id") == 2:
            assert message["result"]["structuredContent"] == kept.reply
    # The retry, to a new server with the same key, gets the answer of the write applied.
    retry = _server(seeded_db)
    assert retry.stdin is not None and retry.stdout is not None
    retry.stdin.write(_lines(_INIT, _READY, _CALL))
    retry.stdin.flush()
    reply = None
    for line in retry.stdout:
        message = json.loads(line)
        if message.get("id") == 2:
            reply = message
            break
    retry.stdin.close()
    retry.wait(timeout=60)
    assert reply is not None
    assert reply["result"]["structuredContent"] == kept.reply


pytestmark = pytest.mark.usefixtures("fixed_clock")
