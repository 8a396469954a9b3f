"""``heedful mcp serve --engine``: the proactive engine beside the MCP tools (issue 15)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from heedful.cli import app
from heedful.engine import EngineConfig, open_engine
from heedful.engine.config import GovernanceConfig
from heedful.engine.journal import CONTENT_PREVIEW_CHARS
from heedful.engine.seed import load_seed_file
from heedful.integrations.mcp import open_backend

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "engine"


@pytest.fixture
def act_db(tmp_path: Path) -> Path:
    """A store holding the act-mode example graph (document 002 §5's three goals)."""
    db = tmp_path / "act.db"
    engine = open_engine(db)
    try:
        load_seed_file(engine.graph, EXAMPLE / "act_seed.yaml")
    finally:
        engine.close()
    return db


def _wait(predicate: Any, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("condition not reached in time")
        time.sleep(0.02)


def test_backend_heartbeat_runs_act_cycles_and_stops_on_close(act_db: Path) -> None:
    config = EngineConfig(heartbeat_ms=60_000.0, governance=GovernanceConfig(max_level="act"))
    backend = open_backend(act_db, config, heartbeat=True, autonomy="act")
    try:
        _wait(lambda: backend.engine.cycles_run >= 1)  # the first cycle runs at start
        status = backend.engine_status(recent=50)
        assert status["heartbeat_running"] and status["autonomy_level"] == "act"
        assert status["last_cycle"]["trigger"] == "start"
        assert status["journal"], "an act cycle on the example writes (and journals) changes"
        # The tools keep working while the heartbeat runs (one store, two threads).
        assert backend.survey(include_idle=True)["status"] == "ok"
        backend.register_source("crm", reports=["churn_rate"], authority=0.9)
    finally:
        backend.close()
    assert backend.heartbeat is not None and not backend.heartbeat.running


def test_engine_status_journal_has_each_written_nodes_full_content(act_db: Path) -> None:
    backend = open_backend(act_db, EngineConfig(governance=GovernanceConfig(max_level="act")))
    try:
        backend.run_cycle(autonomy_override="act")
        journal = backend.engine_status(recent=50)["journal"]
    finally:
        backend.close()
    nodes = {k: v for entry in journal for k, v in entry["nodes"].items()}
    assert any(len(content) > CONTENT_PREVIEW_CHARS for content in nodes.values())
    for entry in journal:
        for change in entry["changes"]:
            if change.startswith("+ node "):
                node_id, shown = change.removeprefix("+ node ").split(": ", 1)
                assert nodes[node_id].startswith(shown.removesuffix("…"))


def test_heartbeat_is_off_by_default_and_on_with_enabled(act_db: Path) -> None:
    backend = open_backend(act_db, EngineConfig())
    try:
        assert backend.heartbeat is None
        assert backend.engine_status(recent=5)["active"] is False
    finally:
        backend.close()
    backend = open_backend(act_db, EngineConfig(enabled=True, heartbeat_ms=60_000.0))
    try:
        _wait(lambda: backend.engine.cycles_run >= 1)
        # enabled alone keeps the configured level (observe): cycles run, nothing is written.
        assert backend.engine_status(recent=5)["autonomy_level"] == "observe"
        assert backend.engine_status(recent=5)["journal"] == []
    finally:
        backend.close()


def test_bad_autonomy_for_the_heartbeat_is_one_line_exit_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["mcp", "serve", "--db", str(tmp_path / "h.db"), "--engine", "--autonomy", "full"]
    )
    assert result.exit_code == 2
    assert "unknown autonomy level 'full'" in result.output
    assert "Traceback" not in result.output


def _child_env() -> dict[str, str]:
    return {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}


def test_agent_over_stdio_gets_the_proactive_engine(
    bounded: Any, tmp_path: Path, act_db: Path
) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "heedful.cli",
            "mcp",
            "serve",
            "--db",
            str(act_db),
            "--engine",
            "--autonomy",
            "act",
            "--heartbeat-ms",
            "60000",
            "--governance",
            str(EXAMPLE / "ampersand.json"),
        ],
        env=_child_env(),
    )

    async def go() -> dict[str, Any]:
        with (tmp_path / "stderr.log").open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                names = {tool.name for tool in (await client.list_tools()).tools}
                assert "attention_engine_status" in names
                while True:
                    result = await client.call_tool("attention_engine_status", {"recent": 50})
                    status = result.structured_content
                    if status["cycles_run"] >= 1:
                        break
                    await anyio.sleep(0.05)
                survey = await client.call_tool("attention_survey", {})
                assert not survey.is_error
                return status

    status = bounded(go)
    assert "Traceback" not in (tmp_path / "stderr.log").read_text(encoding="utf-8")
    assert status["active"] and status["heartbeat_running"]
    assert status["autonomy_level"] == "act" and status["last_cycle"]["trigger"] == "start"
    modes = {entry["mode"] for entry in status["journal"]}
    assert modes & {"explore", "focus", "act"}, status["journal"]
    assert any(change for entry in status["journal"] for change in entry["changes"])
    # The journal is the same one `heedful engine journal/undo` use: undo works from a shell.
    engine = open_engine(act_db, must_exist=True)
    try:
        entry = engine.journal_entries()[-1]
        assert engine.undo(entry.id).undone_at is not None
    finally:
        engine.close()
