"""The shipped example goal graph loads and drives a cycle from the command line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from heedful.cli import app

SEED = Path(__file__).resolve().parents[2] / "examples" / "engine" / "seed.yaml"


def test_example_seed_loads_and_surveys_with_a_feedback_loop(tmp_path: Path) -> None:
    db = str(tmp_path / "e.db")
    runner = CliRunner()
    loaded = runner.invoke(app, ["engine", "load", str(SEED), "--db", db])
    assert loaded.exit_code == 0, loaded.output
    survey = runner.invoke(app, ["engine", "survey", "--db", db, "--json"])
    assert survey.exit_code == 0, survey.output
    items = {i["goal_id"]: i for i in json.loads(survey.output)["attention_items"]}
    assert set(items) == {"ship-billing-v2", "cut-cloud-cost"}
    # schema → backfill → invoices → schema is one strongly connected component with κ = 1.
    assert items["ship-billing-v2"]["max_kappa"] == 1
    assert items["ship-billing-v2"]["routing"] == "deliberate"
    assert items["ship-billing-v2"]["dispatch_mode"] == "focus"


def test_example_seed_cycle_in_observe_mode_dispatches_nothing(tmp_path: Path) -> None:
    db = str(tmp_path / "e.db")
    runner = CliRunner()
    assert runner.invoke(app, ["engine", "load", str(SEED), "--db", db]).exit_code == 0
    cycle = runner.invoke(app, ["engine", "cycle", "--db", db, "--autonomy", "observe", "--json"])
    assert cycle.exit_code == 0, cycle.output
    result = json.loads(cycle.output)
    assert all(d["result"] == "deferred" for d in result["dispatches"])


def _seeded(tmp_path: Path) -> str:
    db = str(tmp_path / "e.db")
    loaded = CliRunner().invoke(app, ["engine", "load", str(SEED), "--db", db])
    assert loaded.exit_code == 0, loaded.output
    return db


def test_example_seed_act_cycle_is_refused_under_the_default_ceiling(tmp_path: Path) -> None:
    db = _seeded(tmp_path)
    cycle = CliRunner().invoke(app, ["engine", "cycle", "--db", db, "--autonomy", "act"])
    assert cycle.exit_code == 2
    assert "ceiling 'observe'" in cycle.output and "--max-autonomy" in cycle.output
    journal = CliRunner().invoke(app, ["engine", "journal", "--db", db])
    assert "is empty" in journal.output


def test_example_seed_act_cycles_make_no_junk_sub_goal_and_say_what_they_found(
    tmp_path: Path,
) -> None:
    # Issue 25: "Cut cloud cost by 10 percent" once became "Learn about cost / cut / percent".
    from heedful.engine import open_engine

    db = _seeded(tmp_path)
    args = ["engine", "cycle", "--db", db, "--autonomy", "act", "--max-autonomy", "act", "--json"]
    for _ in range(3):
        cycle = CliRunner().invoke(app, args)
        assert cycle.exit_code == 0, cycle.output
        result = json.loads(cycle.output)
        assert result["autonomy_level"] == "act" and result["dispatches"]
        for d in result["dispatches"]:
            # Each dispatch found something or says why it did not.
            assert d["reason"], d
            if d["mode"] == "explore":
                assert "finding(s)" in d["reason"] and d["details"]["sub_goals"] == []
    engine = open_engine(db, must_exist=True)
    try:
        goals = {g.id for g in engine.graph.list_goals()}
    finally:
        engine.close()
    assert goals == {"ship-billing-v2", "cut-cloud-cost"}
