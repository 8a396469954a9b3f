"""``heedful attention health --db`` and the ``attention_health`` MCP tool over a real store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from heedful.attention.controller import Controller, Stop
from heedful.cli import app
from heedful.integrations.mcp.backend import open_backend
from heedful.integrations.mcp.tools import ToolFailure, call_tool


@pytest.fixture
def agent_db(tmp_path: Path) -> Path:
    """A store whose trace holds three turns, with an opportunity no source can serve."""
    path = tmp_path / "agent.db"
    ctl = Controller(path)
    ctl.register_source("a", reports=["x"], authority=0.8, kind="log", cost={"tool_calls": 1})
    ctl.record_belief("x", "1", domain=["1", "2"], age_s=7200, confidence=0.8, volatility="high")
    ctl.record_belief("orphan", "v", domain=["v", "w"], age_s=86400, volatility="high")
    for _ in range(3):
        ctl.about_to_claim("x")
        ctl.begin_turn(2)
        while not isinstance(step := ctl.next(), Stop):
            ctl.resolve(step.id, succeeded=True, observations={"x": "2"})
    assert ctl.store is not None
    ctl.store.close()
    return path


def test_the_cli_prints_the_funnel_and_one_verdict_per_signature(agent_db: Path) -> None:
    result = CliRunner().invoke(app, ["attention", "health", "--db", str(agent_db)])
    assert result.exit_code == 0, result.output
    assert "opportunity" in result.output
    assert "warn  candidate_blindness" in result.output


def test_the_cli_json_window_reads_only_the_latest_turns(agent_db: Path) -> None:
    args = ["attention", "health", "--db", str(agent_db), "--window", "1", "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["turns"] == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--db", "missing.db"], "--db missing.db: no such file"),
        (["--window", "0"], "--window must be at least 1, not 0"),
    ],
)
def test_bad_cli_input_is_one_line_and_exit_2(
    agent_db: Path, args: list[str], message: str
) -> None:
    if "--db" not in args:
        args = ["--db", str(agent_db), *args]
    result = CliRunner().invoke(app, ["attention", "health", *args])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_the_mcp_tool_reports_the_same_funnel(agent_db: Path) -> None:
    backend = open_backend(agent_db)
    try:
        out = call_tool(backend, "attention_health", {"window_turns": 100})
        with pytest.raises(ToolFailure, match="window_turns"):
            call_tool(backend, "attention_health", {"window_turns": 0})
    finally:
        backend.close()
    cli = CliRunner().invoke(app, ["attention", "health", "--db", str(agent_db), "--json"])
    assert out["funnel"] == json.loads(cli.output)["funnel"]
    assert {s["name"]: s["verdict"] for s in out["signatures"]}["candidate_blindness"] == "warn"


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
