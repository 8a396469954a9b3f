"""The knowledge graph: nodes, edges, outcomes, FTS5 search, digest."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memory_fakes import FakeClock

from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.memory import Edge, EdgeType, Node, NodeType, Store, fts_query
from heedful.model.claim import Outcome, OutcomeStatus
from heedful.model.goal import Goal


def _graph(store: Store) -> None:
    texts = {
        "market": "Q2 market share is falling in the mid-size segment",
        "revenue": "Revenue depends on market share and pricing",
        "pricing": "Competitor pricing is unknown",
        "deploy": "Deploy configuration B requires version 4.2",
    }
    for nid, text in texts.items():
        store.add_node(Node(id=nid, content=text, node_type=NodeType.SEMANTIC))
    store.add_edge(Edge(src="market", dst="revenue", edge_type=EdgeType.CAUSAL))
    store.add_edge(Edge(src="pricing", dst="revenue", edge_type=EdgeType.CAUSAL))
    store.add_edge(Edge(src="revenue", dst="market", edge_type=EdgeType.SUPPORTS, weight=0.5))


def test_node_round_trips_with_clock_timestamps(store: Store, clock: FakeClock) -> None:
    node = store.add_node(Node(id="n", content="hello", metadata={"k": 1}))
    assert node.created_at == node.updated_at == clock.now
    assert store.get_node("n") == node


def test_duplicate_node_is_rejected(store: Store) -> None:
    store.add_node(Node(id="n"))
    with pytest.raises(InvalidArgumentError, match="already exists"):
        store.add_node(Node(id="n"))


def test_unknown_node_raises_unknown_name(store: Store) -> None:
    with pytest.raises(UnknownNameError, match="ghost"):
        store.get_node("ghost")


def test_edge_to_unknown_node_is_rejected(store: Store) -> None:
    store.add_node(Node(id="n"))
    with pytest.raises(UnknownNameError, match="ghost"):
        store.add_edge(Edge(src="n", dst="ghost"))


def test_edges_between_keeps_only_internal_edges(store: Store) -> None:
    _graph(store)
    pairs = {(e.src, e.dst) for e in store.edges(["market", "revenue"])}
    assert pairs == {("market", "revenue"), ("revenue", "market")}
    assert len(store.edges()) == 3


def test_edges_touching_includes_boundary_edges(store: Store) -> None:
    _graph(store)
    assert {(e.src, e.dst) for e in store.edges_touching(["pricing"])} == {("pricing", "revenue")}


def test_neighbourhood_follows_edges_both_ways(store: Store) -> None:
    _graph(store)
    assert store.neighbourhood(["pricing"], depth=1) == {"pricing", "revenue"}
    assert store.neighbourhood(["pricing"], depth=2) == {"pricing", "revenue", "market"}
    assert store.neighbourhood(["pricing"], depth=0) == {"pricing"}


def test_neighbourhood_can_filter_edge_types(store: Store) -> None:
    _graph(store)
    only_supports = store.neighbourhood(["revenue"], edge_types=[EdgeType.SUPPORTS])
    assert only_supports == {"revenue", "market"}


def test_search_ranks_relevant_nodes_first(store: Store) -> None:
    _graph(store)
    hits = store.search("market share segment", limit=5)
    assert hits[0].node_id == "market"
    assert {h.node_id for h in hits} == {"market", "revenue"}
    assert hits[0].score >= hits[1].score > 0


def test_search_respects_limit(store: Store) -> None:
    _graph(store)
    assert len(store.search("market share pricing revenue", limit=2)) == 2


def test_search_sees_updated_content(store: Store) -> None:
    _graph(store)
    store.update_node("deploy", content="zebra crossing")
    assert [h.node_id for h in store.search("zebra")] == ["deploy"]
    assert store.search("configuration") == []


def test_search_forgets_deleted_nodes(store: Store) -> None:
    _graph(store)
    store.delete_node("pricing")
    assert store.search("competitor") == []
    assert all("pricing" not in (e.src, e.dst) for e in store.edges())


@pytest.mark.parametrize(
    "query",
    ['"', "AND OR NOT", "market*", "NEAR(a b)", "col:market", "(", "'; DROP TABLE nodes; --", ""],
)
def test_search_never_raises_on_fts_syntax(store: Store, query: str) -> None:
    _graph(store)
    store.search(query)


@settings(max_examples=60, deadline=None)
@given(query=st.text(max_size=40))
def test_search_accepts_any_text(query: str) -> None:
    with Store.open() as store:
        store.add_node(Node(id="n", content="some content here"))
        hits = store.search(query)
        assert all(h.node_id == "n" for h in hits)


def test_fts_query_quotes_each_token() -> None:
    assert fts_query('Market "share" OR x*') == '"market" OR "share" OR "or" OR "x"'
    assert fts_query("!!!") is None


def test_digest_is_unchanged_by_reads(store: Store) -> None:
    _graph(store)
    before = store.graph_digest()
    store.search("market")
    store.neighbourhood(["market"], depth=3)
    store.edges(["market", "revenue"])
    assert store.graph_digest() == before


@pytest.mark.parametrize(
    "mutate",
    [
        lambda s: s.update_node("market", confidence=0.5),
        lambda s: s.add_edge(Edge(src="deploy", dst="market")),
        lambda s: s.add_edge(Edge(src="market", dst="revenue", weight=0.2)),
        lambda s: s.add_outcome(Outcome(status=OutcomeStatus.FAILURE, at=1.0)),
        lambda s: s.add_goal(Goal(id="g2", title="new goal")),
    ],
)
def test_digest_changes_on_any_write(store: Store, mutate: object) -> None:
    _graph(store)
    before = store.graph_digest()
    mutate(store)  # type: ignore[operator]
    assert store.graph_digest() != before


def test_digest_is_independent_of_insertion_order(clock: FakeClock) -> None:
    digests = []
    for order in (["a", "b"], ["b", "a"]):
        with Store.open(clock=clock) as s:
            for nid in order:
                s.add_node(Node(id=nid, content=nid))
            digests.append(s.graph_digest())
    assert digests[0] == digests[1]


def test_goal_region_is_linked_nodes_then_title_matches(store: Store) -> None:
    _graph(store)
    store.add_goal(Goal(id="g", title="pricing", linked_node_ids=["deploy", "ghost"]))
    assert store.goal_region("g") == ["deploy", "pricing", "revenue"]


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
