"""Document 002 §6 integration tests (``attention_integration_test.exs``)."""

from __future__ import annotations

import asyncio

from engine_builders import (
    NOW,
    add_act_region,
    add_cyclic_region,
    add_goal,
    add_learn_region,
    clock,
)
from engine_fakes import ListNotifier, RecordingActions, StaticResearch

from heedful.engine.config import (
    AutonomyLevel,
    BudgetConfig,
    EngineConfig,
    GovernanceConfig,
    TriageConfig,
)
from heedful.engine.engine import Engine
from heedful.engine.governance import config_from_ampersand
from heedful.engine.memgraph import InMemoryGraph
from heedful.engine.records import EdgeRecord, NodeRecord
from heedful.model import EdgeType
from heedful.model.goal import GoalSource, GoalStatus


def test_e2e_goal_then_heartbeat_detects_gap_and_explore_enriches_graph(
    graph: InMemoryGraph,
) -> None:
    add_learn_region(graph, "c", "churn")
    add_goal(graph, "g", "churn pricing competitors")
    engine = Engine(
        graph,
        EngineConfig(
            autonomy=AutonomyLevel.ACT,
            heartbeat_ms=10,
            triage=TriageConfig(explore_below_coverage=0.6),  # the learn region explores
            governance=GovernanceConfig(max_level=AutonomyLevel.ACT),
        ),
        research=StaticResearch(),
        clock=clock,
    )
    before = len(graph.nodes)
    completed = []
    engine.subscribe(
        lambda e: completed.append(engine.last_cycle) if e.name == "cycle_complete" else None
    )

    async def main() -> None:
        engine.activate()
        while not completed:
            await asyncio.sleep(0.005)
        engine.deactivate()

    asyncio.run(main())
    cycle = completed[0]
    assert cycle is not None and cycle.trigger == "start"  # the first cycle runs at start
    (dispatch,) = cycle.dispatches
    assert dispatch.item.coverage.gaps  # the gap was detected
    assert dispatch.mode.value == "explore" and dispatch.result == "ok"
    assert len(graph.nodes) > before
    assert dispatch.details["new_node_ids"]
    assert set(dispatch.details["new_node_ids"]) <= set(graph.get_goal("g").linked_node_ids)
    assert dispatch.details["trace_node_id"] in graph.nodes


def test_e2e_cyclic_knowledge_focus_crystallizes_and_lowers_effective_kappa(
    graph: InMemoryGraph,
) -> None:
    add_cyclic_region(graph, "m", "market")
    add_goal(graph, "g", "market")
    engine = Engine(
        graph,
        EngineConfig(
            autonomy=AutonomyLevel.ACT, governance=GovernanceConfig(max_level=AutonomyLevel.ACT)
        ),
        clock=clock,
    )
    (before,) = engine.survey()["attention_items"]
    result = engine.run_cycle()
    (after,) = engine.survey()["attention_items"]
    assert before["max_kappa"] == 1 and before["dispatch_mode"] == "focus"
    assert result["dispatches"][0]["kappa_after"] == 0
    assert after["max_kappa"] == 0 and after["routing"] == "fast"
    assert after["dispatch_mode"] == "act"


def test_member_revised_after_crystallization_reopens_the_cycle(graph: InMemoryGraph) -> None:
    ids = add_cyclic_region(graph, "m", "market")
    add_goal(graph, "g", "market")
    engine = Engine(
        graph,
        EngineConfig(
            autonomy=AutonomyLevel.ACT, governance=GovernanceConfig(max_level=AutonomyLevel.ACT)
        ),
        clock=lambda: NOW,
    )
    engine.run_cycle()
    # A member changes after the conclusion: it no longer settles that member.
    later = graph.nodes[ids[0]]
    graph.add_node(
        NodeRecord(later.id, later.type, later.content + " revised", 0.9, NOW.replace(hour=13))
    )
    assert engine.survey()["attention_items"][0]["max_kappa"] == 1


def test_e2e_act_blocked_by_delegatic_policy_is_downgraded_to_advise(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g", "deploy")
    ampersand = {"governance": {"autonomy": {"level": "act", "heartbeat_seconds": 300}}}
    cfg = config_from_ampersand(ampersand, org_max="advise")
    actions, notifier = RecordingActions(), ListNotifier()
    engine = Engine(graph, cfg, actions=actions, notifier=notifier, clock=clock)
    assert engine.autonomy_level == AutonomyLevel.ADVISE
    result = engine.run_cycle()
    assert result["autonomy_level"] == "advise"
    assert actions.requests == []
    assert [n.kind for n in notifier.notices] == ["proposal"]
    assert result["dispatches"][0]["result"] == "deferred"


def test_e2e_goal_proposal_from_gap_without_active_goals(graph: InMemoryGraph) -> None:
    graph.add_node(
        NodeRecord(id="a", content="billing outage reports", confidence=0.4, updated_at=NOW)
    )
    graph.add_node(
        NodeRecord(id="b", content="billing retries failing", confidence=0.3, updated_at=NOW)
    )
    graph.add_edge(EdgeRecord("a", "b", EdgeType.CONTRADICTS))
    add_goal(graph, "user-goal", "reliable billing", status=GoalStatus.BLOCKED)
    cfg = EngineConfig(
        autonomy=AutonomyLevel.ACT,
        governance=GovernanceConfig(max_level=AutonomyLevel.ACT, auto_activate_proposed=False),
    )
    engine = Engine(graph, cfg, clock=clock)
    first = engine.run_cycle()
    second = engine.run_cycle()
    (proposed_id,) = first["proposed_goal_ids"]
    goal = graph.get_goal(proposed_id)
    assert goal.source == GoalSource.INFERRED and goal.status == GoalStatus.PROPOSED
    assert goal.metadata["related_goals"] == ["user-goal"]
    # The same gap is not proposed twice.
    assert second["proposed_goal_ids"] == []
    assert second["dispatches"][0]["reason"] == f"already proposed as {proposed_id}"


def test_e2e_multiple_cycles_update_the_attention_map(graph: InMemoryGraph) -> None:
    add_learn_region(graph, "c", "churn")
    add_goal(graph, "g-explore", "churn pricing competitors")
    add_cyclic_region(graph, "m", "market")
    add_goal(graph, "g-focus", "market")
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g-act", "deploy")
    cfg = EngineConfig(
        autonomy=AutonomyLevel.ACT,
        budget=BudgetConfig(max_items_per_cycle=3),
        governance=GovernanceConfig(max_level=AutonomyLevel.ACT),
    )
    engine = Engine(graph, cfg, research=StaticResearch(), actions=RecordingActions(), clock=clock)
    maps = []
    for _ in range(3):
        maps.append({i["goal_id"]: i for i in engine.survey()["attention_items"]})
        engine.run_cycle()
    maps.append({i["goal_id"]: i for i in engine.survey()["attention_items"]})
    # Cycle 1: the act goal completes and leaves the map; focus crystallises (κ 1 → 0).
    assert set(maps[0]) == {"g-explore", "g-focus", "g-act"}
    assert "g-act" not in maps[1]
    assert maps[0]["g-focus"]["max_kappa"] == 1 and maps[1]["g-focus"]["max_kappa"] == 0
    # Exploration raises coverage from cycle to cycle.
    scores = [m["g-explore"]["coverage_score"] for m in maps if "g-explore" in m]
    assert scores[1] > scores[0]
    assert graph.get_goal("g-act").status == GoalStatus.COMPLETED


def test_governance_cap_applies_to_configured_level(graph: InMemoryGraph) -> None:
    cfg = EngineConfig(
        autonomy=AutonomyLevel.ACT, governance=GovernanceConfig(max_level=AutonomyLevel.OBSERVE)
    )
    engine = Engine(graph, cfg, clock=clock)
    assert engine.autonomy_level == AutonomyLevel.OBSERVE
    assert engine.status()["requested_level"] == "act"
