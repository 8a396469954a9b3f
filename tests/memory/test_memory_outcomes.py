"""Outcomes and the coverage-gap signals drawn from them."""

from __future__ import annotations

import pytest

from heedful.errors import UnknownNameError
from heedful.memory import Edge, EdgeType, Node, Store
from heedful.model.claim import Outcome, OutcomeStatus
from heedful.model.goal import Goal


@pytest.fixture
def graph(store: Store) -> Store:
    for nid, conf in [("a", 1.0), ("b", 1.0), ("c", 0.2), ("d", 0.9), ("e", 0.4)]:
        store.add_node(Node(id=nid, content=nid, confidence=conf))
    store.add_goal(Goal(id="g", title="goal"))
    return store


def test_outcome_round_trips_with_several_nodes(graph: Store) -> None:
    stored = graph.add_outcome(
        Outcome(status=OutcomeStatus.UNEXPECTED, node_ids=("b", "a"), goal_id="g", at=10.0)
    )
    assert stored.id is not None
    assert graph.outcomes() == [stored.model_copy(update={"node_ids": ("a", "b")})]


def test_outcomes_filter_by_goal_node_status_and_time(graph: Store) -> None:
    first = graph.add_outcome(Outcome(status=OutcomeStatus.SUCCESS, node_ids=("a",), at=1.0))
    second = graph.add_outcome(Outcome(status=OutcomeStatus.FAILURE, goal_id="g", at=2.0))
    assert graph.outcomes(node_id="a") == [first]
    assert graph.outcomes(goal_id="g") == [second]
    assert graph.outcomes(since=1.5) == [second]
    assert graph.outcomes(status=OutcomeStatus.SUCCESS) == [first]


def test_outcomes_for_goal_or_nodes(graph: Store) -> None:
    on_a = graph.add_outcome(Outcome(status=OutcomeStatus.SUCCESS, node_ids=("a",), at=1.0))
    of_g = graph.add_outcome(Outcome(status=OutcomeStatus.FAILURE, goal_id="g", at=2.0))
    graph.add_outcome(Outcome(status=OutcomeStatus.FAILURE, node_ids=("d",), at=3.0))
    assert graph.outcomes_for("g", ["a"]) == [on_a, of_g]
    assert graph.outcomes_for(None, ["a"]) == [on_a]


def test_outcome_with_unknown_links_is_rejected(graph: Store) -> None:
    with pytest.raises(UnknownNameError, match="node"):
        graph.add_outcome(Outcome(status=OutcomeStatus.SUCCESS, node_ids=("x",), at=1.0))
    with pytest.raises(UnknownNameError, match="goal"):
        graph.add_outcome(Outcome(status=OutcomeStatus.SUCCESS, goal_id="x", at=1.0))
    assert graph.outcomes() == []


def test_deleting_a_node_unlinks_but_keeps_the_outcome(graph: Store) -> None:
    graph.add_outcome(Outcome(status=OutcomeStatus.SUCCESS, node_ids=("a", "b"), at=1.0))
    graph.delete_node("a")
    assert [o.node_ids for o in graph.outcomes()] == [("b",)]


def test_gap_candidates_order_contradicted_then_surprising_then_weak(graph: Store) -> None:
    graph.add_edge(Edge(src="a", dst="b", edge_type=EdgeType.CONTRADICTS))
    graph.add_outcome(Outcome(status=OutcomeStatus.TIMEOUT, node_ids=("d",), at=5.0))
    graph.add_outcome(Outcome(status=OutcomeStatus.SUCCESS, node_ids=("e",), at=6.0))
    assert graph.gap_candidates(10) == ["a", "b", "d", "c", "e"]
    assert graph.gap_candidates(2) == ["a", "b"]


def test_gap_candidates_empty_graph(store: Store) -> None:
    assert store.gap_candidates(5) == []
