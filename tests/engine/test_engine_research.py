"""Research over the memory: graph retrieval plus the controller's beliefs and inspections."""

from __future__ import annotations

from pathlib import Path

from engine_builders import add_goal, clock
from engine_fakes import ListNotifier

from heedful.attention import Controller
from heedful.engine import Engine, EngineConfig, InMemoryGraph, open_engine
from heedful.engine.config import AutonomyLevel, GovernanceConfig
from heedful.engine.research import ControllerResearch

ACT = EngineConfig(
    autonomy=AutonomyLevel.ACT, governance=GovernanceConfig(max_level=AutonomyLevel.ACT)
)


def _controller() -> Controller:
    ctl = Controller(clock=clock)
    ctl.register_source("crm", reports=["churn_rate"], authority=0.9, cost={"tool_calls": 1})
    ctl.register_source("erp", reports=["pricing_table"], authority=0.8, cost={"tool_calls": 1})
    ctl.register_source("wiki", reports=["pricing_table"], authority=0.3, cost={"tool_calls": 2})
    ctl.record_belief("churn_rate", "rising", confidence=0.9, age_s=60.0)
    return ctl


def test_explore_uses_controller_beliefs_and_inspection_leads(graph: InMemoryGraph) -> None:
    ctl = _controller()
    add_goal(graph, "g", "churn pricing forecast budget")
    notifier = ListNotifier()
    engine = Engine(
        graph, ACT, clock=clock, notifier=notifier, research=ControllerResearch(graph, ctl)
    )
    turn, live = ctl.turn, len(ctl.candidates)
    (dispatch,) = engine.run_cycle()["dispatches"]
    assert dispatch["mode"] == "explore"
    details = dispatch["details"]
    # The belief is knowledge: written as a node and linked to the goal.
    belief = [n for n in graph.nodes.values() if n.content == "churn_rate is rising"]
    assert len(belief) == 1 and belief[0].id in graph.get_goal("g").linked_node_ids
    assert 0.0 < belief[0].confidence <= 0.9
    # Leads are where to look, never knowledge; best predicted VOC first per gap.
    sources = [lead["source_id"] for lead in details["inspection_leads"]]
    assert set(sources) == {"crm", "erp", "wiki"}
    leads = details["inspection_leads"]
    pricing = [lead for lead in leads if lead["claim_ids"] == ["pricing_table"]]
    assert pricing[0]["predicted_voc"] >= pricing[1]["predicted_voc"]
    assert not any(n.content.startswith("inspect ") for n in graph.nodes.values())
    # A lead does not fill its gap: pricing, forecast and budget stay unknown, so the goal is
    # decomposed, and the pricing sub-goal carries its inspections.
    sub = graph.get_goal("g.pricing_table")
    assert sub.title == "Establish pricing_table"
    inspect = sub.metadata["inspect"]
    assert isinstance(inspect, list)
    assert [lead["source_id"] for lead in inspect] == [lead["source_id"] for lead in pricing]
    assert "g.churn" not in graph.goals  # the belief answered it
    notices = [n for n in notifier.notices if n.kind == "inspection"]
    assert len(notices) == 1 and "erp" in notices[0].message
    # The controller was only read: no turn started, no candidate admitted.
    assert (ctl.turn, len(ctl.candidates)) == (turn, live)


def test_second_explore_links_the_belief_instead_of_copying_it(graph: InMemoryGraph) -> None:
    ctl = _controller()
    research = ControllerResearch(graph, ctl)
    engine = Engine(graph, ACT, clock=clock, research=research)
    add_goal(graph, "g", "churn")
    engine.run_cycle()
    add_goal(graph, "h", "churn outlook")
    engine.run_cycle()
    copies = [n for n in graph.nodes.values() if n.content == "churn_rate is rising"]
    assert len(copies) == 1


def test_research_ignores_gaps_that_match_no_claim(graph: InMemoryGraph) -> None:
    research = ControllerResearch(graph, _controller())
    engine = Engine(graph, ACT, clock=clock, research=research)
    add_goal(graph, "g", "weather tomorrow")
    (dispatch,) = engine.run_cycle()["dispatches"]
    assert dispatch["details"]["inspection_leads"] == []


def test_open_engine_researches_with_a_controller_over_the_same_store(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    ctl = Controller(str(db), clock=clock)
    ctl.register_source("crm", reports=["churn_rate"], authority=0.9)
    assert ctl.store is not None
    ctl.store.close()
    engine = open_engine(db, ACT, clock=clock)
    try:
        assert isinstance(engine.research, ControllerResearch)
        assert engine.research._controller is None  # opened only when explore needs it
        add_goal(engine.graph, "g", "churn")
        (dispatch,) = engine.run_cycle()["dispatches"]
        assert [lead["source_id"] for lead in dispatch["details"]["inspection_leads"]] == ["crm"]
    finally:
        engine.close()
