"""Default ports that need no outside service: plan executor, graph research, decomposition."""

from __future__ import annotations

from engine_builders import NOW, add_act_region, add_goal, add_learn_region, clock

from heedful.engine import Engine, EngineConfig, InMemoryGraph
from heedful.engine.config import AutonomyLevel, TriageConfig
from heedful.engine.records import EdgeRecord, NodeRecord
from heedful.model import EdgeType, OutcomeStatus
from heedful.model.goal import GoalSource, GoalStatus

ACT = EngineConfig(autonomy=AutonomyLevel.ACT)


def test_plan_steps_run_one_per_cycle_and_complete_the_goal(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    plan = [
        {"do": "add_node", "id": "r1", "content": "deploy released", "why": "release"},
        {"do": "add_edge", "source": "r1", "target": "d0", "type": "supports"},
    ]
    add_goal(graph, "g", "deploy", metadata={"plan": plan})
    engine = Engine(graph, ACT, clock=clock)
    first = engine.run_cycle()["dispatches"][0]
    assert first["reason"] == "step 1/2: release" and graph.get_goal("g").progress == 0.5
    second = engine.run_cycle()["dispatches"][0]
    assert second["reason"].startswith("step 2/2: link r1 -supports-> d0")
    assert EdgeRecord("r1", "d0", EdgeType.SUPPORTS) in graph.edges
    assert graph.get_goal("g").status == GoalStatus.COMPLETED


def test_bad_plan_step_is_a_failure_outcome_naming_the_step(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g", "deploy", metadata={"plan": [{"do": "delete_everything"}]})
    (dispatch,) = Engine(graph, ACT, clock=clock).run_cycle()["dispatches"]
    assert dispatch["result"] == "failed"
    assert "goal g plan[0].do: unknown step 'delete_everything'" in dispatch["reason"]
    assert graph.outcomes_for("g", [])[-1].status == OutcomeStatus.FAILURE


def test_plan_edge_to_an_unknown_node_fails_without_writing(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    add_goal(
        graph,
        "g",
        "deploy",
        metadata={"plan": [{"do": "add_edge", "source": "d0", "target": "zz"}]},
    )
    nodes = len(graph.nodes)
    (dispatch,) = Engine(graph, ACT, clock=clock).run_cycle()["dispatches"]
    assert "unknown node(s) zz" in dispatch["reason"] and len(graph.nodes) == nodes


def test_goal_without_plan_activates_its_proposed_sub_goals(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g", "deploy")
    add_goal(graph, "g.sub", "sub", status=GoalStatus.PROPOSED, metadata={"parent_goal": "g"})
    (dispatch,) = Engine(graph, ACT, clock=clock).run_cycle()["dispatches"]
    assert dispatch["result"] == "ok" and "g.sub" in dispatch["reason"]
    assert graph.get_goal("g.sub").status == GoalStatus.ACTIVE


def test_goal_without_plan_or_sub_goals_is_deferred_honestly(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g", "deploy")
    result = Engine(graph, ACT, clock=clock).run_cycle()
    assert result["dispatches"][0]["result"] == "deferred"
    assert "nothing to execute" in result["dispatches"][0]["reason"]
    assert result["budget_used"]["action_dispatches"] == 0


def test_graph_research_links_retrieved_nodes_instead_of_copying(graph: InMemoryGraph) -> None:
    add_learn_region(graph, "c", "churn")
    # Outside the goal's region (search limit 2) but found by the gap's word.
    graph.add_node(NodeRecord(id="far", content="competitors cut prices", updated_at=NOW))
    add_goal(graph, "g", "churn pricing competitors")
    cfg = ACT.with_overrides(region_search_limit=0, triage=TriageConfig(explore_below_coverage=0.9))
    nodes = len(graph.nodes)
    (dispatch,) = Engine(graph, cfg, clock=clock).run_cycle()["dispatches"][:1]
    assert dispatch["mode"] == "explore"
    assert "far" in dispatch["details"]["retrieved_nodes"]
    assert "far" in graph.get_goal("g").linked_node_ids
    assert len(graph.nodes) == nodes + 1  # only the exploration trace is new


def test_too_broad_goal_gets_proposed_sub_goals_once(graph: InMemoryGraph) -> None:
    add_goal(graph, "g", "quantum widgets lattice cryptography")
    cfg = ACT.with_overrides(governance={"auto_activate_proposed": False})
    engine = Engine(graph, cfg, clock=clock)
    first = engine.run_cycle()["dispatches"][0]
    subs = first["details"]["sub_goals"]
    assert len(subs) == 3
    for sub_id in subs:
        sub = graph.get_goal(sub_id)
        assert sub.status == GoalStatus.PROPOSED and sub.source == GoalSource.INFERRED
        assert sub.metadata["parent_goal"] == "g"
    second = engine.run_cycle()["dispatches"][0]
    assert second["details"]["sub_goals"] == []


def test_explore_merges_duplicate_nodes_reversibly(graph: InMemoryGraph) -> None:
    graph.add_node(
        NodeRecord(id="a", content="Churn rose in March.", confidence=0.4, updated_at=NOW)
    )
    graph.add_node(
        NodeRecord(id="b", content="churn rose in march", confidence=0.3, updated_at=NOW)
    )
    graph.add_node(NodeRecord(id="c", content="pricing changed", updated_at=NOW))
    graph.add_edge(EdgeRecord("b", "c", EdgeType.CAUSAL))
    add_goal(graph, "g", "churn march", linked=["a", "b"])
    cfg = ACT.with_overrides(triage={"explore_below_coverage": 0.9})  # learn → explore
    engine = Engine(graph, cfg, clock=clock)
    before = graph.digest()
    (dispatch,) = engine.run_cycle()["dispatches"]
    assert dispatch["mode"] == "explore" and dispatch["details"]["merged"] == [["a", "b"]]
    assert graph.get_nodes(["b"])[0].metadata["merged_into"] == "a"
    assert EdgeRecord("a", "c", EdgeType.CAUSAL) in graph.edges
    (item,) = [i for i in engine.survey()["attention_items"] if i["goal_id"] == "g"]
    assert "b" not in item["region_node_ids"]
    engine.undo(dispatch["details"]["journal_entry"])
    assert graph.digest() == before


def test_idle_cycle_consolidates_duplicates(graph: InMemoryGraph) -> None:
    # No active goal; a well-covered goal-less region (gap <= 0.3) is IDLE (§2.1: "no active
    # goals + no coverage gaps → IDLE: run Consolidator").
    graph.add_node(NodeRecord(id="a", content="cache warm", confidence=0.45, updated_at=NOW))
    graph.add_node(NodeRecord(id="b", content="Cache warm.", confidence=0.45, updated_at=NOW))
    graph.add_edge(EdgeRecord("a", "b", EdgeType.SUPPORTS))
    engine = Engine(graph, ACT, clock=clock)
    assert [i.dispatch_mode.value for i in engine.attention_map()] == ["idle"]
    (dispatch,) = engine.run_cycle()["dispatches"]
    assert dispatch["mode"] == "idle" and dispatch["details"]["merged"] == [["a", "b"]]
    assert graph.get_nodes(["b"])[0].metadata["merged_into"] == "a"
    assert dispatch["details"]["journal_entry"]  # reversible like every other write
