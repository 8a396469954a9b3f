"""Per-token sessions of the HTTP transport, at the backend level (issue 25)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from heedful.errors import UnknownNameError
from heedful.integrations.mcp.backend import SessionBackends, open_backend
from heedful.integrations.mcp.tools import call_tool


def _setup(backend: Any, deploy_setup: Any) -> dict[str, Any]:
    for name, arguments in deploy_setup:
        call_tool(backend, name, arguments)
    return call_tool(backend, "attention_rank", {"budget": 2})


@pytest.mark.parametrize("shared", [False, True])
def test_one_session_never_resolves_another_s_candidate(
    tmp_path: Path, seeded_db: Path, deploy_setup: Any, shared: bool
) -> None:
    sessions = SessionBackends(open_backend(seeded_db), "alice", seeded_db, shared_store=shared)
    try:
        alice, bob = sessions.get("alice"), sessions.get("bob")
        assert sessions.get("bob") is bob
        ranked = _setup(alice, deploy_setup)
        chosen = ranked["next"]["candidate"]["id"]
        with pytest.raises(UnknownNameError):
            bob.resolve(chosen, True, {"dep_version": "4.2"}, None, None, None)
        bob_health = call_tool(bob, "attention_health", {})
        assert all(row["selected"] == 0 for row in bob_health["funnel"])
        resolved = alice.resolve(chosen, True, {"dep_version": "4.2"}, None, None, None)
        assert resolved["candidate_id"] == chosen
        alice_health = call_tool(alice, "attention_health", {})
        assert alice_health["funnel"][-1]["selected"] >= 1
    finally:
        sessions.close()
    assert (tmp_path / "heedful.bob.db").exists() is not shared


def test_shared_sessions_share_the_memory_but_not_the_turn(
    seeded_db: Path, deploy_setup: Any
) -> None:
    sessions = SessionBackends(open_backend(seeded_db), "alice", seeded_db, shared_store=True)
    try:
        alice = sessions.get("alice")
        _setup(alice, deploy_setup)
        bob = sessions.get("bob")  # opened after alice's writes: it sees her sources
        bob_rank = call_tool(bob, "attention_rank", {"budget": 1})
        assert bob_rank["candidates"] >= 1
        assert bob.controller is not alice.controller and bob.engine is alice.engine
    finally:
        sessions.close()
