"""The graph's change counters (schema version 5) and the search memo they guard."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memory_fakes import FakeClock

from heedful.memory import MIGRATIONS, SCHEMA_VERSION, Store
from heedful.memory.schema import _statements
from heedful.model.claim import Outcome, OutcomeStatus
from heedful.model.goal import Goal
from heedful.model.graph import Edge, EdgeType, Node


def _store(path: str | Path = ":memory:") -> Store:
    store = Store.open(path, clock=FakeClock())
    with store.transaction():
        for i, text in enumerate(["alpha beta", "beta gamma", "gamma delta", "alpha alpha"]):
            store.add_node(Node(id=f"n{i}", content=text))
        store.add_edge(Edge(src="n0", dst="n1", edge_type=EdgeType.SUPPORTS))
    return store


def test_every_graph_write_moves_the_graph_counter_and_only_text_writes_move_text() -> None:
    with _store() as store:
        store.add_goal(Goal(id="g", title="alpha"))
        steps = [
            (lambda: store.add_node(Node(id="n9", content="new words")), True),
            (lambda: store.update_node("n9", content="other words"), True),
            (lambda: store.update_node("n9", confidence=0.1), False),
            (lambda: store.update_node("n9", metadata={"k": 1}), False),
            (lambda: store.add_edge(Edge(src="n9", dst="n0", edge_type=EdgeType.CAUSAL)), False),
            (
                lambda: store.add_edge(
                    Edge(src="n9", dst="n0", edge_type=EdgeType.CAUSAL, weight=0.5)
                ),
                False,
            ),
            (lambda: store.delete_edge("n9", "n0", EdgeType.CAUSAL), False),
            (
                lambda: store.add_outcome(
                    Outcome(status=OutcomeStatus.FAILURE, node_ids=("n1",), goal_id="g", at=5.0)
                ),
                False,
            ),
            (lambda: store.delete_goal("g"), False),  # the outcome's goal_id becomes NULL
            (lambda: store.delete_node("n9"), True),
        ]
        for step, text_moves in steps:
            before = store.graph_versions()
            step()
            after = store.graph_versions()
            assert after.graph > before.graph
            assert (after.text > before.text) is text_moves
            assert after.text >= before.text


def test_writes_outside_the_graph_leave_the_counters_alone() -> None:
    with _store() as store:
        before = store.graph_versions()
        store.add_goal(Goal(id="g", title="alpha"))
        store.append_trace("note", {"x": 1})
        assert store.graph_versions() == before


def test_a_rolled_back_write_leaves_the_counters_where_they_were() -> None:
    with _store() as store:
        before = store.graph_versions()
        with pytest.raises(RuntimeError), store.transaction():
            store.add_node(Node(id="n9", content="gamma gamma"))
            assert store.cache_versions() is None  # uncommitted: nothing may be cached
            raise RuntimeError("abort")
        assert store.graph_versions() == before == store.cache_versions()


def test_search_many_remembers_until_a_node_changes() -> None:
    with _store() as store:
        first = store.search_many(["gamma", "alpha"], 5)
        assert first == [["n1", "n2"], ["n3", "n0"]]
        # Served from the memo: the statement is not run again while the text is unchanged.
        calls: list[str] = []
        store._conn.set_trace_callback(calls.append)
        assert store.search_many(["alpha", "gamma"], 5) == [["n3", "n0"], ["n1", "n2"]]
        assert not any("nodes_fts" in sql for sql in calls)
        store._conn.set_trace_callback(None)
        store.update_node("n2", confidence=0.2)  # not text: the memo stands
        assert store.search_many(["gamma"], 5) == [["n1", "n2"]]
        store.update_node("n0", content="gamma gamma gamma")
        assert store.search_many(["gamma"], 5) == [[h.node_id for h in store.search("gamma", 5)]]
        assert store.search_many(["gamma"], 5)[0][0] == "n0"


def test_search_many_sees_another_connections_writes(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    with _store(path) as reader, Store.open(path) as writer:
        assert reader.search_many(["delta"], 5) == [["n2"]]
        writer.add_node(Node(id="n8", content="delta delta"))
        assert reader.search_many(["delta"], 5) == [["n8", "n2"]]


def test_search_many_inside_a_transaction_sees_its_own_writes_and_caches_nothing() -> None:
    with _store() as store:
        assert store.search_many(["delta"], 5) == [["n2"]]
        with pytest.raises(RuntimeError), store.transaction():
            store.add_node(Node(id="n8", content="delta delta"))
            assert store.search_many(["delta"], 5) == [["n8", "n2"]]
            raise RuntimeError("abort")
        assert store.search_many(["delta"], 5) == [["n2"]]


def test_a_version_4_store_gains_the_counters_and_keeps_its_data(tmp_path: Path) -> None:
    path = tmp_path / "v4.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for migration in MIGRATIONS[:4]:
        for statement in _statements(migration):
            conn.execute(statement)
    conn.execute(
        "INSERT INTO nodes (id, node_type, content, confidence, created_at, updated_at,"
        " metadata) VALUES ('a', 'semantic', 'old knowledge', 0.2, 1, 1, '{}')"
    )
    conn.execute("PRAGMA user_version = 4")
    conn.close()
    with Store.open(path, clock=FakeClock()) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.graph_versions() == (0, 0)
        assert store.search_many(["knowledge"], 5) == [["a"]]
        store.add_node(Node(id="b", content="new knowledge"))
        assert store.graph_versions() == (1, 1)
        assert store.search_many(["knowledge"], 5) == [
            [h.node_id for h in store.search("knowledge", 5)]
        ]
        assert sorted(store.search_many(["knowledge"], 5)[0]) == ["a", "b"]


def test_optimize_search_merges_the_index_and_keeps_every_result() -> None:
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
    with Store.open(":memory:", clock=FakeClock()) as store:
        for i in range(300):  # one commit each: many small index segments
            store.add_node(Node(id=f"n{i:03d}", content=" ".join(words[i % 6 : i % 6 + 1 + i % 4])))
        queries = [*words, "alpha gamma", "zeta beta delta"]
        before = [[h.node_id for h in store.search(q, 20)] for q in queries]
        versions = store.graph_versions()

        def segments() -> int:
            return int(store._conn.execute("SELECT count(*) FROM nodes_fts_data").fetchone()[0])

        fragmented = segments()
        store.optimize_search()
        assert segments() < fragmented
        assert [[h.node_id for h in store.search(q, 20)] for q in queries] == before
        assert store.search_many(queries, 20) == before
        assert store.graph_versions() == versions  # the graph itself did not change


_WORDS = ["alpha", "beta", "gamma", "delta"]
_STEP = st.one_of(
    st.tuples(st.just("add"), st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4)),
    st.tuples(st.just("reword"), st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4)),
    st.tuples(st.just("confidence"), st.floats(0.0, 1.0)),
    st.tuples(st.just("delete"), st.none()),
    st.tuples(st.just("edge"), st.none()),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(_STEP, max_size=12), st.integers(0, 2**16))
def test_remembered_searches_always_equal_fresh_ones(
    steps: list[tuple[str, object]], seed: int
) -> None:
    rng = random.Random(seed)
    queries = ["alpha", "beta gamma", "delta alpha beta", "gamma"]
    with _store() as store:
        for kind, arg in steps:
            ids = [n.id for n in store.nodes()]
            if kind == "add":
                store.add_node(Node(id=f"x{rng.randrange(10**9)}", content=" ".join(arg)))  # type: ignore[arg-type]
            elif ids and kind == "reword":
                store.update_node(rng.choice(ids), content=" ".join(arg))  # type: ignore[arg-type]
            elif ids and kind == "confidence":
                store.update_node(rng.choice(ids), confidence=float(arg))  # type: ignore[arg-type]
            elif ids and kind == "delete":
                store.delete_node(rng.choice(ids))
            elif len(ids) > 1 and kind == "edge":
                a, b = rng.sample(ids, 2)
                store.add_edge(Edge(src=a, dst=b, edge_type=EdgeType.SUPPORTS))
            fresh = [[h.node_id for h in store.search(q, 3)] for q in queries]
            assert store.search_many(queries, 3) == fresh


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
