"""The consolidator's second half: stale edges decay, journaled and undoable (issue 15 item 1)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from engine_builders import NOW, add_goal, clock, node

from heedful.engine import Engine, EngineConfig, InMemoryGraph
from heedful.engine.config import AutonomyLevel, EdgeDecayConfig, GovernanceConfig
from heedful.engine.coverage import assess
from heedful.engine.decay import StaleEdgeDecay
from heedful.engine.records import EdgeRecord, NodeRecord
from heedful.engine.store_adapter import StoreGraph
from heedful.errors import InvalidArgumentError
from heedful.memory import Store
from heedful.model import EdgeType

ACT = EngineConfig(
    autonomy=AutonomyLevel.ACT, governance=GovernanceConfig(max_level=AutonomyLevel.ACT)
)
EXPLORE = ACT.with_overrides(triage={"explore_below_coverage": 0.9})  # learn → explore
WEEK_H = 168.0  # semantic half-life


def _weight(graph: object, source: str, target: str, kind: EdgeType) -> float:
    (edge,) = [
        e
        for e in graph.edges_among([source, target])  # type: ignore[attr-defined]
        if (e.source, e.target, e.type) == (source, target, kind)
    ]
    return float(edge.weight)


def test_stale_edge_decay_caps_weight_at_freshness_and_is_idempotent() -> None:
    old_a, old_b = node("a", "x", age_h=3 * WEEK_H), node("b", "y", age_h=2 * WEEK_H)
    fresh = node("c", "z", age_h=1.0)
    edges = [
        EdgeRecord("a", "b", EdgeType.SUPPORTS),  # newer end 2 half-lives old → cap 0.25
        EdgeRecord("a", "c", EdgeType.SUPPORTS),  # fresh end → not stale
        EdgeRecord("b", "a", EdgeType.CONTRADICTS),  # contradictions never decay
        EdgeRecord("b", "a", EdgeType.DERIVED_FROM),  # provenance never decays
        EdgeRecord("b", "a", EdgeType.CAUSAL, weight=0.2),  # already below the cap
    ]
    port = StaleEdgeDecay()
    assert port.decay([old_a, old_b, fresh], edges, NOW) == [(edges[0], 0.25)]
    decayed = [EdgeRecord("a", "b", EdgeType.SUPPORTS, 0.25), *edges[1:]]
    assert port.decay([old_a, old_b, fresh], decayed, NOW) == []
    # Unknown age is never stale; a switched-off decay does nothing.
    unknown = NodeRecord("a", content="x")
    assert port.decay([unknown, old_b], edges[:1], NOW) == []
    assert StaleEdgeDecay(EdgeDecayConfig(enabled=False)).decay([old_a, old_b], edges, NOW) == []
    # Floor: a very old edge keeps the floor weight, nothing is deleted.
    ancient = [node("a", "x", age_h=50 * WEEK_H), node("b", "y", age_h=50 * WEEK_H)]
    assert port.decay(ancient, edges[:1], NOW) == [(edges[0], 0.05)]


def test_decayed_support_counts_less_in_coverage() -> None:
    nodes = [node("a", "churn rose", age_h=1.0), node("b", "pricing changed", age_h=1.0)]
    strong = assess("churn", nodes, [EdgeRecord("a", "b", EdgeType.SUPPORTS)], [], now=NOW)
    weak = assess("churn", nodes, [EdgeRecord("a", "b", EdgeType.SUPPORTS, 0.25)], [], now=NOW)
    assert weak.coverage_score < strong.coverage_score


def _stale_region(graph: object) -> None:
    for node_id, text in (("a", "churn rose in march"), ("b", "pricing changed in march")):
        graph.add_node(node(node_id, text, confidence=0.6, age_h=3 * WEEK_H))  # type: ignore[attr-defined]
    graph.add_edge(EdgeRecord("a", "b", EdgeType.SUPPORTS))  # type: ignore[attr-defined]


def test_explore_decays_stale_edges_in_the_journal_and_undo_restores_them(
    graph: InMemoryGraph,
) -> None:
    _stale_region(graph)
    add_goal(graph, "g", "churn march", linked=["a", "b"])
    engine = Engine(graph, EXPLORE, clock=clock)
    before = graph.digest()
    (dispatch,) = engine.run_cycle()["dispatches"]
    assert dispatch["mode"] == "explore"
    assert dispatch["details"]["decayed_edges"] == [["a", "b", "supports", 1.0, 0.125]]
    assert _weight(graph, "a", "b", EdgeType.SUPPORTS) == 0.125
    (entry,) = engine.journal_entries()
    assert "~ edge a -supports-> b: weight 1.00→0.12" in entry.describe()
    engine.undo(entry.id)
    assert _weight(graph, "a", "b", EdgeType.SUPPORTS) == 1.0
    assert graph.digest() == before


def test_observe_and_advise_never_decay(graph: InMemoryGraph) -> None:
    _stale_region(graph)
    add_goal(graph, "g", "churn march", linked=["a", "b"])
    engine = Engine(graph, EXPLORE, clock=clock)
    before = graph.digest()
    for level in ("observe", "advise"):
        engine.run_cycle(level)
    assert graph.digest() == before


def test_idle_decays_stale_edges_once(graph: InMemoryGraph) -> None:
    # No active goal; goal-less regions that do not warrant a proposal are IDLE.
    for node_id in ("a", "b"):
        graph.add_node(node(node_id, f"cache {node_id}", confidence=0.45, age_h=3 * WEEK_H))
    graph.add_edge(EdgeRecord("a", "b", EdgeType.CAUSAL))
    cfg = ACT.with_overrides(triage={"propose_min_gap": 0.95})
    engine = Engine(graph, cfg, clock=clock)
    assert [i.dispatch_mode.value for i in engine.attention_map()] == ["idle"]
    (dispatch,) = engine.run_cycle()["dispatches"]
    assert dispatch["mode"] == "idle" and "decayed 1 stale edge" in dispatch["reason"]
    assert dispatch["details"]["journal_entry"]
    assert engine.run_cycle()["dispatches"] == []  # same time: nothing left to decay


def test_undo_of_a_decay_is_refused_when_the_edge_changed_since(graph: InMemoryGraph) -> None:
    _stale_region(graph)
    add_goal(graph, "g", "churn march", linked=["a", "b"])
    engine = Engine(graph, EXPLORE, clock=clock)
    (dispatch,) = engine.run_cycle()["dispatches"]
    graph.add_edge(EdgeRecord("a", "b", EdgeType.SUPPORTS, 0.9))  # changed by hand
    with pytest.raises(InvalidArgumentError, match="edge a -supports-> b changed since"):
        engine.undo(dispatch["details"]["journal_entry"])


def test_decay_and_undo_on_the_sqlite_store() -> None:
    written = [(NOW - timedelta(hours=3 * WEEK_H)).timestamp()]
    graph = StoreGraph(Store.open(":memory:", clock=lambda: written[0]))
    try:
        _stale_region(graph)
        add_goal(graph, "g", "churn march", linked=["a", "b"])
        written[0] = NOW.timestamp()
        engine = Engine(graph, EXPLORE, clock=clock)
        before = graph.digest()
        (dispatch,) = engine.run_cycle()["dispatches"]
        assert dispatch["details"]["decayed_edges"] == [["a", "b", "supports", 1.0, 0.125]]
        assert _weight(graph, "a", "b", EdgeType.SUPPORTS) == 0.125
        engine.undo(dispatch["details"]["journal_entry"])
        assert _weight(graph, "a", "b", EdgeType.SUPPORTS) == 1.0
        assert graph.digest() == before
    finally:
        graph.close()


def test_idle_consolidation_respects_require_approval_for(graph: InMemoryGraph) -> None:
    for node_id in ("a", "b"):
        graph.add_node(node(node_id, f"cache {node_id}", confidence=0.45, age_h=3 * WEEK_H))
    graph.add_edge(EdgeRecord("a", "b", EdgeType.CAUSAL))
    cfg = ACT.with_overrides(
        triage={"propose_min_gap": 0.95}, governance={"require_approval_for": ["idle"]}
    )
    engine = Engine(graph, cfg, clock=clock)
    before = graph.digest()
    assert engine.run_cycle()["dispatches"] == []
    assert graph.digest() == before
