"""The operator's autonomy ceiling (observe by default) and advise-mode proposals (issue 25)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_builders import add_act_region, add_goal, clock
from engine_fakes import ListNotifier, RecordingActions
from typer.testing import CliRunner

from heedful.cli import app
from heedful.engine import Engine, EngineConfig, InMemoryGraph, Journal
from heedful.engine.config import AutonomyLevel, GovernanceConfig
from heedful.engine.governance import config_from_ampersand, with_ceiling
from heedful.errors import GovernanceError, InvalidArgumentError, UnknownNameError

ADVISE = EngineConfig(
    autonomy=AutonomyLevel.ADVISE, governance=GovernanceConfig(max_level=AutonomyLevel.ADVISE)
)


def test_default_ceiling_is_observe_and_refuses_advise_and_act(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g", "deploy")
    actions = RecordingActions()
    engine = Engine(graph, actions=actions, clock=clock)
    assert engine.status()["governance_max_level"] == "observe"
    for level in ("advise", "act"):
        with pytest.raises(GovernanceError) as caught:
            engine.run_cycle(autonomy_override=level)
        message = str(caught.value)
        assert f"'{level}' exceeds the operator's autonomy ceiling 'observe'" in message
        assert "--max-autonomy" in message and "governance.max_level" in message
    assert engine.run_cycle(autonomy_override="observe")["autonomy_level"] == "observe"
    assert actions.requests == [] and engine.cycles_run == 1


def test_a_configured_level_above_the_ceiling_is_downgraded(graph: InMemoryGraph) -> None:
    engine = Engine(graph, EngineConfig(autonomy=AutonomyLevel.ACT), clock=clock)
    assert engine.autonomy_level == AutonomyLevel.OBSERVE
    engine.configure(with_ceiling(engine.config, "act"))
    assert engine.autonomy_level == AutonomyLevel.ACT


def test_the_governance_file_s_level_is_the_ceiling() -> None:
    cfg = config_from_ampersand({"governance": {"autonomy": {"level": "advise"}}})
    assert (cfg.autonomy, cfg.governance.max_level) == (AutonomyLevel.ADVISE,) * 2
    capped = config_from_ampersand({"governance": {"autonomy": {"level": "act"}}}, org_max="advise")
    assert capped.governance.max_level == AutonomyLevel.ADVISE


def _advise_engine(graph: InMemoryGraph, **kw: object) -> tuple[Engine, RecordingActions]:
    add_act_region(graph, "d", "deploy")
    add_goal(
        graph,
        "g",
        "deploy",
        metadata={"plan": [{"do": "add_node", "id": "r1", "content": "deploy released"}]},
    )
    actions = RecordingActions()
    return Engine(graph, ADVISE, clock=clock, notifier=ListNotifier(), **kw), actions  # type: ignore[arg-type]


def test_advise_queues_one_proposal_per_item_and_approval_runs_it(graph: InMemoryGraph) -> None:
    engine, _ = _advise_engine(graph)
    first = engine.run_cycle()["dispatches"][0]
    assert first["mode"] == "act" and first["result"] == "deferred"
    proposal_id = first["details"]["proposal_id"]
    assert "r1" not in graph.nodes  # advise never executes
    again = engine.run_cycle()["dispatches"][0]
    assert again["details"]["proposal_id"] == proposal_id  # not queued twice
    assert [p.id for p in engine.pending_proposals()] == [proposal_id]
    response = engine.approve(proposal_id, by="tester")
    assert response["cycle"]["trigger"] == "approval"
    assert response["cycle"]["autonomy_level"] == "act"
    assert "r1" in graph.nodes  # the plan step ran, once
    decided = engine.proposals.get(proposal_id)
    assert decided.status == "approved" and decided.decided_by == "tester"
    assert response["cycle"]["journal_entry_ids"][0] in decided.detail
    with pytest.raises(InvalidArgumentError, match="already approved"):
        engine.approve(proposal_id)
    assert engine.pending_proposals() == []


def test_rejected_proposal_never_runs_and_is_journaled(graph: InMemoryGraph) -> None:
    journal = Journal()
    engine, _ = _advise_engine(graph, journal=journal)
    proposal_id = engine.run_cycle()["dispatches"][0]["details"]["proposal_id"]
    engine.reject(proposal_id, reason="not this week")
    assert "r1" not in graph.nodes
    decisions = [r for r in journal.records() if r["kind"] == "decision"]
    assert decisions[0]["status"] == "rejected" and decisions[0]["detail"] == "not this week"
    with pytest.raises(InvalidArgumentError, match="already rejected"):
        engine.approve(proposal_id)
    with pytest.raises(UnknownNameError, match="no proposal 'p-nope'"):
        engine.reject("p-nope")


def test_an_mcp_approval_needs_the_act_ceiling(graph: InMemoryGraph) -> None:
    engine, _ = _advise_engine(graph)
    proposal_id = engine.run_cycle()["dispatches"][0]["details"]["proposal_id"]
    with pytest.raises(GovernanceError, match="ceiling 'advise'"):
        engine.approve(proposal_id, by="mcp", within_ceiling=True)
    assert "r1" not in graph.nodes and engine.pending_proposals()


def test_a_proposal_whose_item_moved_on_is_stale_and_runs_nothing(graph: InMemoryGraph) -> None:
    engine, _ = _advise_engine(graph)
    proposal_id = engine.run_cycle()["dispatches"][0]["details"]["proposal_id"]
    graph.update_goal(graph.get_goal("g").model_copy(update={"status": "abandoned"}))
    with pytest.raises(InvalidArgumentError, match="is stale"):
        engine.approve(proposal_id)
    assert engine.proposals.get(proposal_id).status == "stale"
    assert "r1" not in graph.nodes


def test_cli_approve_and_reject_act_on_the_queue(tmp_path: Path) -> None:
    seed = tmp_path / "seed.yaml"
    seed.write_text(
        "goals:\n"
        "  - {id: g, title: deploy feature, status: active, priority: high,\n"
        "     linked_node_ids: [a, b, c],\n"
        "     metadata: {plan: [{do: add_node, id: r1, content: deploy released}]}}\n"
        "nodes:\n"
        "  - {id: a, type: semantic, content: deploy pipeline ready, confidence: 0.95}\n"
        "  - {id: b, type: semantic, content: deploy checklist approved, confidence: 0.95}\n"
        "  - {id: c, type: semantic, content: deploy window open, confidence: 0.95}\n",
        encoding="utf-8",
    )
    db = str(tmp_path / "m.db")
    runner = CliRunner()
    assert runner.invoke(app, ["engine", "load", str(seed), "--db", db]).exit_code == 0
    advise = ["--autonomy", "advise", "--max-autonomy", "advise", "--json"]
    cycle = runner.invoke(app, ["engine", "cycle", "--db", db, *advise])
    assert cycle.exit_code == 0, cycle.output
    listed = runner.invoke(app, ["engine", "proposals", "--db", db, "--json"])
    proposals = [json.loads(line) for line in listed.output.splitlines() if line.strip()]
    assert proposals and all(p["status"] == "pending" for p in proposals)
    first, *rest = [p["id"] for p in proposals]
    approved = runner.invoke(app, ["engine", "approve", first, "--db", db])
    assert approved.exit_code == 0, approved.output
    assert f"approved {first}" in approved.output
    for other in rest:
        assert runner.invoke(app, ["engine", "reject", other, "--db", db]).exit_code == 0
    again = runner.invoke(app, ["engine", "approve", first, "--db", db])
    assert again.exit_code == 2 and "already approved" in again.output
    assert "Traceback" not in again.output
    journal = runner.invoke(app, ["engine", "journal", "--db", db, "--json"])
    assert any(
        json.loads(line)["cycle_id"] in approved.output for line in journal.output.splitlines()
    )
