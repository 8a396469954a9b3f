"""The engine over the real memory store (SQLite) through :class:`StoreGraph`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from engine_builders import (
    NOW,
    add_act_region,
    add_cyclic_region,
    add_goal,
    add_learn_region,
    clock,
)
from engine_fakes import HangingAsyncActions, ListNotifier, RecordingActions, StaticResearch

from heedful.engine import Engine, EngineConfig, open_engine
from heedful.engine.config import AutonomyLevel, BudgetConfig, GovernanceConfig
from heedful.engine.ports import GraphPort
from heedful.engine.records import EdgeRecord, NodeRecord, OutcomeRecord
from heedful.engine.store_adapter import StoreGraph
from heedful.errors import UnknownNameError
from heedful.memory import Store
from heedful.model import EdgeType, OutcomeStatus
from heedful.model.goal import Goal, GoalSource, GoalStatus


@pytest.fixture
def store_graph() -> Iterator[StoreGraph]:
    graph = StoreGraph(Store.open(":memory:", clock=lambda: NOW.timestamp()))
    yield graph
    graph.close()


def _act(level: str = "act", **budget: float) -> EngineConfig:
    return EngineConfig(
        autonomy=AutonomyLevel(level),
        budget=BudgetConfig(**budget),
        governance=GovernanceConfig(max_level=AutonomyLevel(level)),
    )


def test_store_graph_satisfies_the_graph_port(store_graph: StoreGraph) -> None:
    assert isinstance(store_graph, GraphPort)


def test_store_survey_finds_all_four_modes(store_graph: StoreGraph) -> None:
    add_goal(store_graph, "g-explore", "churn pricing competitors")
    add_cyclic_region(store_graph, "m", "market")
    add_goal(store_graph, "g-focus", "market")
    add_act_region(store_graph, "d", "deploy")
    add_goal(store_graph, "g-act", "deploy")
    add_goal(store_graph, "g-escalate", "quantum widgets", metadata={"explore_stalls": 3})
    modes = {
        i["goal_id"]: i["dispatch_mode"]
        for i in Engine(store_graph, clock=clock).survey()["attention_items"]
    }
    assert modes == {
        "g-explore": "explore",
        "g-focus": "focus",
        "g-act": "act",
        "g-escalate": "escalate",
    }


def test_store_observe_cycle_leaves_digest_unchanged(store_graph: StoreGraph) -> None:
    add_cyclic_region(store_graph, "m", "market")
    add_goal(store_graph, "g", "market")
    before = store_graph.digest()
    Engine(store_graph, _act("observe"), clock=clock).run_cycle()
    assert store_graph.digest() == before


def test_store_act_cycle_writes_back_and_completes(store_graph: StoreGraph) -> None:
    add_learn_region(store_graph, "c", "churn")
    add_goal(store_graph, "g-explore", "churn pricing competitors")
    add_cyclic_region(store_graph, "m", "market")
    add_goal(store_graph, "g-focus", "market")
    add_act_region(store_graph, "d", "deploy")
    add_goal(store_graph, "g-act", "deploy")
    engine = Engine(
        store_graph,
        _act(max_items_per_cycle=3),
        research=StaticResearch(),
        actions=RecordingActions(),
        clock=clock,
    )
    result = engine.run_cycle()
    assert {d["goal_id"]: d["result"] for d in result["dispatches"]} == {
        "g-explore": "ok",
        "g-focus": "ok",
        "g-act": "ok",
    }
    assert store_graph.get_goal("g-act").status == GoalStatus.COMPLETED
    focus = next(d for d in result["dispatches"] if d["goal_id"] == "g-focus")
    assert focus["kappa_before"] == 1 and focus["kappa_after"] == 0
    outcomes = store_graph.outcomes_for("g-act", [])
    assert outcomes[-1].status == OutcomeStatus.SUCCESS


def test_store_timeout_outcome_round_trips(store_graph: StoreGraph) -> None:
    add_act_region(store_graph, "d", "deploy")
    add_goal(store_graph, "g", "deploy")
    result = Engine(
        store_graph, _act(total_timeout_ms=50), actions=HangingAsyncActions(), clock=clock
    ).run_cycle()
    assert result["timed_out"] is True
    assert [o.status for o in store_graph.outcomes_for("g", [])] == [OutcomeStatus.TIMEOUT]


def test_store_proposes_inferred_goal_from_gap(store_graph: StoreGraph) -> None:
    store_graph.add_node(NodeRecord(id="a", content="billing outage reports", confidence=0.4))
    store_graph.add_node(NodeRecord(id="b", content="billing retries failing", confidence=0.3))
    store_graph.add_edge(EdgeRecord("a", "b", EdgeType.CONTRADICTS))
    add_goal(store_graph, "anchor", "reliable billing", status=GoalStatus.BLOCKED)
    engine = Engine(store_graph, _act(), notifier=ListNotifier(), clock=clock)
    result = engine.run_cycle()
    (goal_id,) = result["proposed_goal_ids"]
    goal = store_graph.get_goal(goal_id)
    # Act level auto-activates the proposal (document 002 §3.2.4).
    assert goal.source == GoalSource.INFERRED and goal.status == GoalStatus.ACTIVE
    (entry_id,) = result["journal_entry_ids"]
    engine.undo(entry_id)
    with pytest.raises(UnknownNameError):
        store_graph.get_goal(goal_id)


def test_store_undo_reverses_an_action_and_its_outcome(store_graph: StoreGraph) -> None:
    add_act_region(store_graph, "d", "deploy")
    plan = [{"do": "add_node", "id": "shipped", "content": "deploy shipped", "supports": ["d0"]}]
    add_goal(store_graph, "g", "deploy", metadata={"plan": plan})
    engine = Engine(store_graph, _act(), clock=clock)
    before = store_graph.digest()
    result = engine.run_cycle()
    (dispatch,) = result["dispatches"]
    assert dispatch["mode"] == "act" and dispatch["result"] == "ok"
    assert (
        store_graph.get_nodes(["shipped"])
        and store_graph.get_goal("g").status == GoalStatus.COMPLETED
    )
    engine.undo(dispatch["details"]["journal_entry"])
    assert store_graph.get_nodes(["shipped"]) == []
    assert store_graph.get_goal("g").status == GoalStatus.ACTIVE
    assert store_graph.outcomes_for("g", []) == []
    assert store_graph.digest() == before


def test_store_gap_candidates_include_failed_outcome_nodes(store_graph: StoreGraph) -> None:
    store_graph.add_node(NodeRecord(id="a", content="cache warmup", confidence=0.9))
    store_graph.record_outcome(OutcomeRecord(OutcomeStatus.FAILURE, node_ids=("a",)))
    assert store_graph.gap_candidates(10) == ["a"]


def test_open_engine_on_a_file_persists_between_opens(tmp_path: Path) -> None:
    db = tmp_path / "mem.db"
    engine = open_engine(db, _act("observe"))
    engine.graph.add_goal(Goal(id="g", title="quantum widgets", status=GoalStatus.ACTIVE))
    engine.close()
    again = open_engine(db)
    try:
        assert [i["goal_id"] for i in again.survey()["attention_items"]] == ["g"]
    finally:
        again.close()


def test_escalation_cooldown_survives_a_new_engine_on_the_same_store(
    store_graph: StoreGraph,
) -> None:
    add_goal(store_graph, "g", "quantum widgets", metadata={"explore_stalls": 3})
    first, second = ListNotifier(), ListNotifier()
    Engine(store_graph, _act(), notifier=first, clock=clock).run_cycle()
    result = Engine(store_graph, _act(), notifier=second, clock=clock).run_cycle()
    assert len(first.notices) == 1 and second.notices == []
    assert "cooldown" in result["dispatches"][0]["reason"]
