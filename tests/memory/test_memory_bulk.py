"""Batched reads return exactly what the one-at-a-time reads return, in the same order."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memory_fakes import FakeClock

from heedful.errors import InvalidArgumentError
from heedful.memory import MIGRATIONS, SCHEMA_VERSION, Store
from heedful.memory.schema import _statements
from heedful.model.claim import Outcome, OutcomeStatus
from heedful.model.graph import Edge, EdgeType, Node, NodeType

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "café",
    "naïve",
    "über",
    "x_y",
    "AND",
    "NOT",
]


def _random_store(seed: int, n: int = 120) -> Store:
    rng = random.Random(seed)
    clock = FakeClock()
    store = Store.open(":memory:", clock=clock)
    with store.transaction():
        for i in range(n):
            clock.now += rng.uniform(0, 100)
            store.add_node(
                Node(
                    id=f"n{i}",
                    node_type=rng.choice(list(NodeType)),
                    content=" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8))),
                    confidence=rng.random(),
                    metadata={"k": i} if rng.random() < 0.3 else {},
                )
            )
        for _ in range(3 * n):
            a, b = rng.randrange(n), rng.randrange(n)
            store.add_edge(Edge(src=f"n{a}", dst=f"n{b}", edge_type=rng.choice(list(EdgeType))))
        for _ in range(n // 3):
            store.add_outcome(
                Outcome(
                    status=rng.choice(list(OutcomeStatus)),
                    confidence=rng.random(),
                    node_ids=tuple(f"n{rng.randrange(n)}" for _ in range(rng.randint(0, 3))),
                    at=rng.uniform(0, 1e6),
                )
            )
    return store


QUERIES = [
    "alpha",
    "beta gamma",
    "café über",
    "cafe",
    'AND OR NOT "quoted" (parens) NEAR(alpha beta)',
    "x_y",
    "",
    "   ",
    "nothing-matches-this",
    "alpha beta gamma delta epsilon zeta eta theta",
]


@pytest.mark.parametrize("limit", [0, 1, 3, 20, 500])
def test_search_many_equals_one_search_per_query(limit: int) -> None:
    with _random_store(1) as store:
        expected = [[hit.node_id for hit in store.search(q, limit=limit)] for q in QUERIES]
        assert store.search_many(QUERIES, limit) == expected
        assert any(len(hits) > 1 for hits in expected) or limit <= 1


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(max_size=30), max_size=6), st.integers(0, 15))
def test_search_many_equals_search_on_any_text(queries: list[str], limit: int) -> None:
    with _random_store(2, n=40) as store:
        expected = [[hit.node_id for hit in store.search(q, limit=limit)] for q in queries]
        assert store.search_many(queries, limit) == expected


def test_search_many_rejects_a_negative_limit() -> None:
    with Store.open() as store, pytest.raises(InvalidArgumentError, match="limit"):
        store.search_many(["alpha"], -1)


@pytest.mark.parametrize("seed", range(3))
def test_bulk_rows_equal_the_model_reads(seed: int) -> None:
    rng = random.Random(seed)
    with _random_store(seed) as store:
        ids = [f"n{rng.randrange(150)}" for _ in range(60)]  # some do not exist
        nodes = [
            (n.id, n.node_type.value, n.content, n.confidence, n.updated_at, n.metadata)
            for n in store.nodes(ids)
        ]
        rows = store.node_rows(ids)
        assert [(*r[:5], r.metadata) for r in rows] == [
            (*n[:5], json.dumps(n[5], sort_keys=True, separators=(",", ":"))) for n in nodes
        ]
        edges = [(e.src, e.dst, e.edge_type.value, e.weight) for e in store.edges(ids)]
        assert [tuple(r) for r in store.edge_rows_among(ids)] == edges
        assert edges
        outcomes = [
            (o.id, o.status.value, o.confidence, o.goal_id, o.at, o.description, o.node_ids)
            for o in store.outcomes_for(None, ids)
        ]
        assert [tuple(r) for r in store.outcome_rows_for([], ids)] == outcomes
        assert outcomes


def test_gap_candidates_stop_early_without_changing_the_prefix() -> None:
    with _random_store(4) as store:
        everything = store.gap_candidates(10_000)
        assert len(everything) > 40
        for limit in (0, 1, 2, 7, 40, len(everything) + 5):
            assert store.gap_candidates(limit) == everything[:limit]


def test_edges_among_thousands_of_ids_reads_each_source_once() -> None:
    with _random_store(3) as store:
        plan = " ".join(
            str(row[3])
            for row in store._conn.execute(
                "EXPLAIN QUERY PLAN SELECT * FROM edges WHERE src IN"
                " (SELECT value FROM json_each(?)) AND +dst IN (SELECT value FROM json_each(?))",
                ("[]", "[]"),
            )
        )
        assert "(src=?)" in plan and "dst=?" not in plan


def test_a_version_3_store_gains_the_survey_indexes_and_keeps_its_data(tmp_path: Path) -> None:
    path = tmp_path / "v3.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for migration in MIGRATIONS[:3]:
        for statement in _statements(migration):
            conn.execute(statement)
    conn.execute(
        "INSERT INTO nodes (id, node_type, content, confidence, created_at, updated_at,"
        " metadata) VALUES ('a', 'semantic', 'old knowledge', 0.2, 1, 1, '{}')"
    )
    conn.execute("PRAGMA user_version = 3")
    conn.close()
    with Store.open(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        indexes = {r[0] for r in store._conn.execute("SELECT name FROM sqlite_master")}
        assert {"edges_type", "nodes_confidence", "outcomes_status"} <= indexes
        assert store.search_many(["knowledge"], 5) == [["a"]]
        assert store.gap_candidates(5) == ["a"]
