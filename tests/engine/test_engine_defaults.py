"""Default ports that need no outside service: plan executor, graph research, decomposition."""

from __future__ import annotations

from engine_builders import NOW, add_act_region, add_goal, add_learn_region, clock

from heedful.attention import Controller
from heedful.engine import Engine, EngineConfig, InMemoryGraph
from heedful.engine.config import AutonomyLevel, GovernanceConfig, TriageConfig
from heedful.engine.records import EdgeRecord, NodeRecord
from heedful.engine.research import ControllerResearch
from heedful.model import EdgeType, OutcomeStatus
from heedful.model.goal import Goal, GoalSource, GoalStatus

ACT = EngineConfig(
    autonomy=AutonomyLevel.ACT, governance=GovernanceConfig(max_level=AutonomyLevel.ACT)
)


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
    add_goal(
        graph,
        "g.sub",
        "Confirm the deploy rollback window",
        status=GoalStatus.PROPOSED,
        metadata={"parent_goal": "g"},
    )
    (dispatch,) = Engine(graph, ACT, clock=clock).run_cycle()["dispatches"]
    assert dispatch["result"] == "ok" and "g.sub" in dispatch["reason"]
    assert graph.get_goal("g.sub").status == GoalStatus.ACTIVE


def test_incoherent_proposed_sub_goals_are_never_activated(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g", "deploy")
    for sub_id, title in (("g.the", "Learn about the"), ("g.deploy", "Learn about deploy")):
        add_goal(graph, sub_id, title, status=GoalStatus.PROPOSED, metadata={"parent_goal": "g"})
    (dispatch,) = Engine(graph, ACT, clock=clock).run_cycle()["dispatches"]
    assert dispatch["result"] == "deferred"
    assert graph.get_goal("g.the").status == GoalStatus.PROPOSED
    assert graph.get_goal("g.deploy").status == GoalStatus.PROPOSED


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


def test_too_broad_goal_gets_one_sub_goal_per_claim_research_found_once(
    graph: InMemoryGraph,
) -> None:
    ctl = Controller(clock=clock)
    ctl.register_source("erp", reports=["lattice_keys"], authority=0.8, cost={"tool_calls": 1})
    ctl.register_source("hsm", reports=["widget_stock"], authority=0.9, cost={"tool_calls": 1})
    add_goal(graph, "g", "quantum widgets lattice cryptography")
    cfg = ACT.with_overrides(governance={"max_level": "act", "auto_activate_proposed": False})
    engine = Engine(graph, cfg, clock=clock, research=ControllerResearch(graph, ctl))
    first = engine.run_cycle()["dispatches"][0]
    subs = first["details"]["sub_goals"]
    assert sorted(subs) == ["g.lattice_keys"]  # "widget" is not "widgets": no lead, no sub-goal
    sub = graph.get_goal("g.lattice_keys")
    assert sub.status == GoalStatus.PROPOSED and sub.source == GoalSource.INFERRED
    assert sub.metadata["parent_goal"] == "g" and sub.title == "Establish lattice_keys"
    assert [lead["source_id"] for lead in sub.metadata["inspect"]] == ["erp"]
    second = engine.run_cycle()["dispatches"][0]
    assert second["details"]["sub_goals"] == []


def test_too_broad_goal_with_nothing_in_memory_gets_no_sub_goal_and_says_why(
    graph: InMemoryGraph,
) -> None:
    # Document 002 §3.2.4: "Learn about cost / cut / percent" would be drift, not work.
    add_goal(graph, "g", "Cut cloud cost by 10 percent")
    (dispatch,) = Engine(graph, ACT, clock=clock).run_cycle()["dispatches"]
    assert dispatch["mode"] == "explore" and dispatch["details"]["sub_goals"] == []
    assert [g.id for g in graph.list_goals()] == ["g"]
    assert "nothing in memory answers: " in dispatch["reason"]
    assert {"cut", "cloud", "cost", "percent"} <= set(
        dispatch["reason"].rpartition(": ")[2].split(", ")
    )


def test_a_decomposer_s_junk_and_drift_is_refused_by_the_coherence_check(
    graph: InMemoryGraph,
) -> None:
    class Junk:
        def decompose(self, goal: Goal, gaps: object, now: object) -> list[Goal]:
            def sub(sub_id: str, title: str) -> Goal:
                return Goal(id=sub_id, title=title, metadata={"parent_goal": goal.id})

            return [
                sub("g.a", "Learn about the"),  # stop-words only
                sub("g.b", "Learn about percent"),  # one word of the parent
                sub("g.c", "Learn about kubernetes autoscaler flags"),  # unrelated: drift
                sub("g.d", "Price the idle percent of cloud clusters"),  # coherent
            ]

    add_goal(graph, "g", "Cut cloud cost by 10 percent")
    engine = Engine(graph, ACT, clock=clock, decomposer=Junk())
    (dispatch,) = engine.run_cycle()["dispatches"]
    assert dispatch["details"]["sub_goals"] == ["g.d"]
    refused = dispatch["details"]["refused_sub_goals"]
    assert len(refused) == 3
    assert "stop-words" in refused[0] and "only repeats words of its parent" in refused[1]
    assert "unrelated to any user or system goal" in refused[2]
    assert "3 sub-goal(s) refused by the coherence check" in dispatch["reason"]
    assert sorted(g.id for g in graph.list_goals()) == ["g", "g.d"]


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
