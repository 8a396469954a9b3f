"""Deadline and surprise triggers end to end through ``heedful engine run``."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from typer.testing import CliRunner

from heedful.cli import app

runner = CliRunner()


def _db(tmp_path: Path, seed: str) -> str:
    path = tmp_path / "seed.yaml"
    path.write_text(seed, encoding="utf-8")
    db = str(tmp_path / "t.db")
    assert runner.invoke(app, ["engine", "load", str(path), "--db", db]).exit_code == 0
    return db


def _triggers(db: str, *extra: str) -> list[str]:
    result = runner.invoke(
        app,
        [
            "engine",
            "run",
            "--db",
            db,
            "--cycles",
            "2",
            "--heartbeat-ms",
            "600000",
            "--json",
            *extra,
        ],
    )
    assert result.exit_code == 0, result.output
    return [json.loads(line)["trigger"] for line in result.output.splitlines() if line.strip()]


def test_engine_run_fires_the_deadline_trigger(tmp_path: Path) -> None:
    due = (datetime.now(UTC) + timedelta(minutes=30)).isoformat()
    db = _db(
        tmp_path,
        f"goals:\n  - {{id: g, title: quantum widgets, status: active, due_at: '{due}'}}\n",
    )
    # The goal is due within the default one-hour lead: the second cycle comes at once, long
    # before the ten-minute heartbeat.
    assert _triggers(db) == ["start", "deadline"]


def test_engine_run_fires_the_surprise_trigger_after_a_failed_action(tmp_path: Path) -> None:
    seed = """
goals:
  - id: g
    title: deploy feature
    status: active
    priority: high
    metadata: {plan: [{do: launch_rockets}]}
nodes:
  - {id: d1, content: "deploy pipeline green", confidence: 0.95}
  - {id: d2, content: "deploy feature checklist approved", confidence: 0.95}
  - {id: d3, content: "deploy feature window open", confidence: 0.95}
edges:
  - {source: d1, target: d2, type: supports}
  - {source: d2, target: d3, type: supports}
outcomes:
  - {status: success, confidence: 1.0, goal_id: g, node_ids: [d1]}
"""
    db = _db(tmp_path, seed)
    assert _triggers(db, "--autonomy", "act", "--max-autonomy", "act") == ["start", "surprise"]
