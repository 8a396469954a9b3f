"""Document 002 §5 ("The Complete Autonomous Cycle") reproduced, and the act-mode example.

§5: Goal A "Increase market share" coverage 0.54, κ=1 → FOCUS; Goal B "Reduce churn" coverage
0.31, κ=0 → EXPLORE; Goal C "Ship feature X" coverage 0.88, κ=0 → ACT; triage B > A > C; all
three dispatched (budget 3); reflect: B's coverage rises, A's κ drops (crystallised), C's action
succeeds and the goal completes. §3.1.2's rules alone send B (coverage 0.31 < learn's 0.45,
hence decision ``escalate``) to ESCALATE; docs/engine.md explains the resolution tested here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from engine_builders import NOW
from typer.testing import CliRunner

from heedful.cli import app
from heedful.engine import open_engine
from heedful.engine.config import DispatchMode, TriageConfig
from heedful.engine.coverage import Coverage
from heedful.engine.topology import analyze
from heedful.engine.triage import AttentionItem, dispatch_mode
from heedful.model.goal import Goal, GoalStatus

EXAMPLE = Path(__file__).parents[2] / "examples" / "engine"


def _item(coverage: float, decision: str, cyclic: bool, risk: float = 0.3) -> AttentionItem:
    goal = Goal(id="g", title="g", status=GoalStatus.ACTIVE, due_at=NOW + timedelta(days=3))
    edges = [("a", "b"), ("b", "a")] if cyclic else [("a", "b")]
    return AttentionItem(
        "g",
        "g",
        ("a", "b"),
        Coverage(decision, 0.7, coverage, 0.3, risk, ()),
        analyze(["a", "b"], edges),
        goal=goal,
    )


@pytest.mark.parametrize(
    ("coverage", "decision", "cyclic", "mode"),
    [
        (0.54, "learn", True, DispatchMode.FOCUS),  # Goal A
        (0.31, "escalate", False, DispatchMode.EXPLORE),  # Goal B
        (0.88, "act", False, DispatchMode.ACT),  # Goal C
    ],
)
def test_section_5_modes_with_the_documents_numbers(
    coverage: float, decision: str, cyclic: bool, mode: DispatchMode
) -> None:
    assert dispatch_mode(_item(coverage, decision, cyclic), TriageConfig()) == mode


def test_low_coverage_with_high_risk_still_escalates() -> None:
    item = _item(0.31, "escalate", False, risk=0.9)
    assert dispatch_mode(item, TriageConfig()) == DispatchMode.ESCALATE


def _load(tmp_path: Path) -> str:
    db = str(tmp_path / "act.db")
    result = CliRunner().invoke(app, ["engine", "load", str(EXAMPLE / "act_seed.yaml"), "--db", db])
    assert result.exit_code == 0, result.output
    return db


def test_section_5_cycle_reproduces_on_the_example(tmp_path: Path) -> None:
    engine = open_engine(_load(tmp_path), EXAMPLE / "act_config.yaml")
    try:
        survey = engine.survey()["attention_items"]
        assert [(i["goal_id"], i["dispatch_mode"]) for i in survey] == [
            ("goal-b", "explore"),
            ("goal-a", "focus"),
            ("goal-c", "act"),
        ]
        cycle = engine.run_cycle()
    finally:
        engine.close()
    d = {x["goal_id"]: x for x in cycle["dispatches"]}
    assert len(d) == 3 and all(x["result"] == "ok" for x in d.values())
    assert d["goal-b"]["coverage_after"] > d["goal-b"]["coverage_before"]
    assert (d["goal-a"]["kappa_before"], d["goal-a"]["kappa_after"]) == (1, 0)
    assert d["goal-c"]["reason"] == "step 1/2: deploy feature branch"


def test_engine_run_act_on_the_example_changes_the_graph_and_can_undo(tmp_path: Path) -> None:
    db = _load(tmp_path)
    runner = CliRunner()
    run = runner.invoke(
        app,
        [
            "engine",
            "run",
            "--db",
            db,
            "--autonomy",
            "act",
            "--cycles",
            "3",
            "--heartbeat-ms",
            "10",
            "--config",
            str(EXAMPLE / "act_config.yaml"),
            "--json",
        ],
    )
    assert run.exit_code == 0, run.output
    cycles = [json.loads(line) for line in run.output.splitlines() if line.startswith("{")]
    assert cycles[0]["trigger"] == "start" and len(cycles) == 3
    journal = runner.invoke(app, ["engine", "journal", "--db", db, "--json"])
    entries = [json.loads(line) for line in journal.output.splitlines()]
    acts = [e for e in entries if e["mode"] == "act"]
    assert any("+ node x-release" in line for e in acts for line in e["changes"])
    newest = acts[-1]
    undo = runner.invoke(app, ["engine", "undo", newest["id"], "--db", db])
    assert undo.exit_code == 0, undo.output
    again = runner.invoke(app, ["engine", "journal", "--db", db])
    assert f"{newest['id']}" in again.output and "[undone" in again.output
    twice = runner.invoke(app, ["engine", "undo", newest["id"], "--db", db])
    assert twice.exit_code != 0


def test_cli_undo_of_unknown_entry_is_one_line_exit_2(tmp_path: Path) -> None:
    db = _load(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "heedful.cli", "engine", "undo", "j-nope", "--db", db],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "j-nope" in proc.stderr


def test_governance_file_from_the_cli_caps_and_escalates(tmp_path: Path) -> None:
    db = _load(tmp_path)
    gov = tmp_path / "ampersand.json"
    gov.write_text(
        json.dumps(
            {
                "governance": {
                    "escalate_when": {"confidence_below": 0.99},
                    "autonomy": {"level": "advise"},
                }
            }
        ),
        encoding="utf-8",
    )
    result = CliRunner().invoke(
        app, ["engine", "survey", "--db", db, "--governance", str(gov), "--json"]
    )
    assert result.exit_code == 0, result.output
    survey = json.loads(result.output)
    assert survey["autonomy_level"] == "advise"
    modes = {i["goal_id"]: i["dispatch_mode"] for i in survey["attention_items"]}
    assert modes["goal-c"] == "escalate"


def test_bad_governance_file_is_one_line_exit_2(tmp_path: Path) -> None:
    db = _load(tmp_path)
    gov = tmp_path / "ampersand.json"
    gov.write_text(
        '{"governance": {"escalate_when": {"vibes": 1}, "autonomy": {}}}', encoding="utf-8"
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "heedful.cli",
            "engine",
            "survey",
            "--db",
            db,
            "--governance",
            str(gov),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "escalate_when.vibes" in proc.stderr and proc.stderr.strip().count("\n") == 0


def test_example_script_runs_ten_cycles_and_undoes(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE / "run_act.py"), "--db", str(tmp_path / "ex.db")],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "COLUMNS": "80"},
    )
    assert proc.returncode == 0, proc.stderr
    assert "cycle 10" in proc.stdout and "undid j-" in proc.stdout
    assert "goal-c         completed" in proc.stdout
    # Reads at 80 columns, escalations in line with their cycle (not as 140-column log lines).
    lines = [line for line in proc.stdout.splitlines() if str(tmp_path) not in line]
    assert max(len(line) for line in lines) <= 80
    assert "! escalation (focus)" in proc.stdout and proc.stderr == ""


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
