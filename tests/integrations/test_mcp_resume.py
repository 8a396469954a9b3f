"""A selection outlives its server process: attention_rank in one process, attention_resolve
in the next, on one store (stdio with a process per call, as the MCP Inspector's CLI runs it,
or an HTTP server restarted in between)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from heedful.integrations.mcp.backend import open_backend
from heedful.integrations.mcp.tools import ToolFailure, call_tool
from heedful.memory import Store

OBSERVED = {"dep_version": "4.2"}


def _params(db: Path) -> StdioServerParameters:
    env = {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}
    args = ["-m", "heedful.cli", "mcp", "serve", "--db", str(db), "--no-engine"]
    return StdioServerParameters(command=sys.executable, args=args, env=env)


def _text(result: Any) -> str:
    return "".join(block.text for block in result.content)


def _calls(bounded: Any, db: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """The calls, in order, on one server process."""

    async def go() -> list[Any]:
        async with Client(stdio_client(_params(db))) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return bounded(go)


def _each_in_its_process(bounded: Any, db: Path, calls: list[tuple[str, dict[str, Any]]]):
    return [_calls(bounded, db, [call])[0] for call in calls]


def _ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, _text(result)
    return result.structured_content


def _chosen(result: Any) -> str:
    return _ok(result)["next"]["candidate"]["id"]


def _what(step: dict[str, Any]) -> tuple[Any, ...]:
    """A step without the ids a process gives (the computation, not its name)."""
    if step["action"] == "stop":
        return ("stop", step["reason"])
    c = step["candidate"]
    return ("execute", c["kind"], c["target"], tuple(c["claim_ids"]))


def test_register_belief_rank_resolve_check_claim_each_in_a_new_process(
    bounded: Any, tmp_path: Path, deploy_setup: Any
) -> None:
    db = tmp_path / "agent.db"
    _calls(bounded, db, deploy_setup)
    (rank,) = _each_in_its_process(bounded, db, [("attention_rank", {"budget": 2})])
    chosen = _chosen(rank)
    resolve_args = {"candidate_id": chosen, "observations": OBSERVED}
    (resolved,) = _each_in_its_process(bounded, db, [("attention_resolve", resolve_args)])
    body = _ok(resolved)
    assert body["candidate_id"] == chosen
    assert body["resolution"]["belief_changed"] is True
    assert body["budget_left"] == 1
    (claim,) = _each_in_its_process(
        bounded, db, [("attention_check_claim", {"claim_id": "dep_version"})]
    )
    verdict = _ok(claim)  # the read resolved by the other process is its evidence
    assert verdict["ok"] is True and verdict["evidence_id"] is not None


def _loop(db: Path, setup: list[Any], per_call: bool) -> list[dict[str, Any]]:
    """Setup, rank with a budget of 2, then resolve each selection until a stop — through one
    backend, or through a new backend (what a new server process opens) for every call."""
    held: list[Any] = []

    def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
        if not held:
            held.append(open_backend(db))
        try:
            return call_tool(held[0], name, args)
        finally:
            if per_call:
                held.pop().close()

    for name, args in setup:
        call(name, args)
    out = [call("attention_rank", {"budget": 2})]
    while out[-1]["next"]["action"] == "execute":
        args = {"candidate_id": out[-1]["next"]["candidate"]["id"], "observations": OBSERVED}
        out.append(call("attention_resolve", args))
    for backend in held:
        backend.close()
    return out


@pytest.mark.wall_clock  # beliefs age by the store's clock, as in a server
def test_a_new_backend_per_call_answers_as_one_backend_does(
    tmp_path: Path, deploy_setup: Any
) -> None:
    one = _loop(tmp_path / "one.db", deploy_setup, per_call=False)
    many = _loop(tmp_path / "many.db", deploy_setup, per_call=True)
    assert len(one) == len(many) >= 2  # rank, then each read until the controller stops
    assert [_what(r["next"]) for r in one] == [_what(r["next"]) for r in many]
    assert [r.get("resolution") for r in one] == [r.get("resolution") for r in many]
    assert [r.get("budget_left") for r in one] == [r.get("budget_left") for r in many]
    assert many[1]["budget_left"] == 1  # the budget of 2 the rank began, less the read
    # The turn continued: one turn, not a new one per process.
    assert one[0]["turn_id"] == many[0]["turn_id"] == "turn-1"


@pytest.mark.wall_clock
def test_candidate_ids_continue_after_the_stored_ones(tmp_path: Path, deploy_setup: Any) -> None:
    db = tmp_path / "agent.db"
    first = open_backend(db)
    try:
        for name, args in deploy_setup:
            call_tool(first, name, args)
        ranked = call_tool(first, "attention_rank", {})
    finally:
        first.close()
    second = open_backend(db)
    try:
        again = call_tool(second, "attention_rank", {})
    finally:
        second.close()
    issued = {c["candidate"]["id"] for c in ranked["ranking"]}
    assert issued and issued.isdisjoint({c["candidate"]["id"] for c in again["ranking"]})
    assert again["turn_id"] == "turn-2"


def test_a_selection_resolved_by_one_live_process_is_refused_by_the_other(
    bounded: Any, tmp_path: Path, deploy_setup: Any
) -> None:
    db = tmp_path / "agent.db"
    _calls(bounded, db, deploy_setup)

    async def go() -> tuple[Any, Any, Any, Any]:
        async with (
            Client(stdio_client(_params(db))) as first,
            Client(stdio_client(_params(db))) as second,
        ):
            rank = await first.call_tool("attention_rank", {"budget": 2})
            args = {"candidate_id": _chosen(rank), "observations": OBSERVED}
            by_second = await second.call_tool("attention_resolve", args)
            again = await first.call_tool("attention_resolve", args)
            claim = await first.call_tool("attention_check_claim", {"claim_id": "dep_version"})
            rank_again = await first.call_tool("attention_rank", {"budget": 1})
            return by_second, again, claim, rank_again

    by_second, again, claim, rank_again = bounded(go)
    assert _ok(by_second)["budget_left"] == 1
    assert again.is_error
    assert "already resolved" in _text(again) and "in flight in this session" in _text(again)
    # The first process caught up with the store: the second's read is the claim's evidence,
    # and its next turn follows the session's.
    assert _ok(claim)["ok"] is True
    assert _ok(rank_again)["turn_id"] == "turn-2"


def _fresh_call(db: Path, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """One call on a backend opened for it, as a new server process would."""
    backend = open_backend(db)
    try:
        return call_tool(backend, name, args)
    finally:
        backend.close()


def _ranked(db: Path, setup: list[Any]) -> str:
    for name, args in setup:
        _fresh_call(db, name, args)
    return _fresh_call(db, "attention_rank", {"budget": 2})["next"]["candidate"]["id"]


@pytest.mark.wall_clock
def test_an_unknown_candidate_is_refused_naming_what_is_in_flight(
    tmp_path: Path, deploy_setup: Any
) -> None:
    db = tmp_path / "agent.db"
    chosen = _ranked(db, deploy_setup)
    with pytest.raises(ToolFailure) as refused:
        _fresh_call(db, "attention_resolve", {"candidate_id": "attn-999"})
    assert "'attn-999' was not selected or is already resolved" in str(refused.value)
    assert f"in flight in this session: {chosen};" in str(refused.value)


@pytest.mark.wall_clock
def test_a_turn_stored_by_another_layout_is_a_clear_error_and_a_new_rank_replaces_it(
    tmp_path: Path, deploy_setup: Any
) -> None:
    db = tmp_path / "agent.db"
    chosen = _ranked(db, deploy_setup)
    with Store.open(db) as store:
        found = store.session_state("")
        assert found is not None
        store.put_session_state("", {**found[1], "format": 99})
    args = {"candidate_id": chosen, "observations": OBSERVED}
    with pytest.raises(ToolFailure) as refused:
        _fresh_call(db, "attention_resolve", args)
    text = str(refused.value)
    assert text.startswith("ResumeError: ") and "layout 99" in text
    assert "start a new turn with attention_rank" in text
    assert _fresh_call(db, "attention_rank", {"budget": 1})["next"]["action"] == "execute"


@pytest.mark.wall_clock
def test_health_reads_a_turn_resumed_by_other_processes_as_one_sessions(
    tmp_path: Path, deploy_setup: Any
) -> None:
    db = tmp_path / "agent.db"
    chosen = _ranked(db, deploy_setup)
    _fresh_call(db, "attention_resolve", {"candidate_id": chosen, "observations": OBSERVED})
    assert _fresh_call(db, "attention_rank", {"budget": 1})["turn_id"] == "turn-2"
    health = _fresh_call(db, "attention_health", {"window_turns": 10})
    assert health["turns"] == 2
    # The selection of one process and its resolve in the next count as one read, used.
    stale = next(row for row in health["funnel"] if row["trigger"] == "stale_belief")
    assert (stale["selected"], stale["succeeded"], stale["used"]) == (1, 1, 1)
