"""Parallel full-text searches of a file store: same results as one connection, one snapshot."""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from memory_fakes import FakeClock

import heedful.memory.bulk as bulk
from heedful.memory import Store
from heedful.model.claim import Outcome, OutcomeStatus
from heedful.model.goal import Goal
from heedful.model.graph import Edge, EdgeType, Node

WORDS = [f"w{i}" for i in range(40)]


def _fill(store: Store, rng: random.Random, n: int) -> None:
    with store.transaction():
        for i in range(n):
            words = rng.choices(WORDS, k=rng.randint(1, 6))
            store.add_node(Node(id=f"n{i:03d}", content=" ".join(words)))


def _queries(rng: random.Random, n: int) -> list[str]:
    return [" ".join(rng.sample(WORDS, rng.randint(1, 3))) for _ in range(n)]


def _parallel_used(store: Store) -> list[Any]:
    """Record every result of the parallel path (None: it fell back to one connection)."""
    used: list[Any] = []
    original = store._parallel_search

    def spy(matches: list[str], limit: int) -> Any:
        result = original(matches, limit)
        used.append(result)
        return result

    store._parallel_search = spy  # type: ignore[method-assign]
    return used


@pytest.mark.parametrize("seed", range(6))
def test_parallel_searches_equal_one_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    monkeypatch.setattr(bulk, "PARALLEL_MIN_SEARCHES", 2)
    rng = random.Random(seed)
    path = tmp_path / "p.db"
    with Store.open(path, clock=FakeClock()) as store, Store.open(":memory:") as serial:
        store.parallel_reads = True
        _fill(store, rng, rng.randint(20, 150))
        for node in store.nodes():
            serial.add_node(Node(id=node.id, content=node.content))
        used = _parallel_used(store)
        for limit in (1, 3, 20):
            queries = _queries(rng, rng.randint(2, 90))
            expected = [[h.node_id for h in serial.search(q, limit)] for q in queries]
            assert store.search_many(queries, limit) == expected
            assert serial.search_many(queries, limit) == expected
        assert used and all(result is not None for result in used)
        assert len(store._readers or []) == 1


def test_parallel_reads_can_be_turned_off_and_memory_stores_never_use_them(
    tmp_path: Path,
) -> None:
    with Store.open(tmp_path / "off.db") as off, Store.open(":memory:") as memory:
        off.parallel_reads = False
        memory.parallel_reads = True
        for store in (off, memory):
            _fill(store, random.Random(1), 100)
            used = _parallel_used(store)
            store.search_many(_queries(random.Random(2), 100), 5)
            assert used == [None]
            assert store._readers == []


def test_a_write_between_the_two_halves_never_mixes_snapshots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second half reads after another connection committed a node that changes every
    query's results: the halves disagree, so the searches run again, on one snapshot."""
    monkeypatch.setattr(bulk, "PARALLEL_MIN_SEARCHES", 2)
    path = tmp_path / "w.db"
    with Store.open(path, clock=FakeClock()) as store, Store.open(path) as writer:
        store.parallel_reads = True
        _fill(store, random.Random(3), 60)
        queries = [f"{a} {b}" for a, b in zip(WORDS[::2], WORDS[1::2], strict=True)]
        before = store.search_many(queries, 1000)
        first_half_done = threading.Event()
        written = threading.Event()
        original = bulk._snapshot_rows

        def interleaved(conn: Any, sql: str, params: Any) -> Any:
            if threading.current_thread() is threading.main_thread():
                result = original(conn, sql, params)
                first_half_done.set()
                assert written.wait(10)
                return result
            assert first_half_done.wait(10)
            if not written.is_set():
                writer.add_node(Node(id="zzz", content=" ".join(WORDS * 3)))
                written.set()
            return original(conn, sql, params)

        monkeypatch.setattr(bulk, "_snapshot_rows", interleaved)
        store.add_node(Node(id="tmp", content="w0"))  # the memo is stale: all searches run
        store.delete_node("tmp")
        used = _parallel_used(store)
        after = store.search_many(queries, 1000)
        # The halves read different counters: not used; the second try reads one snapshot.
        assert len(used) == 2 and used[0] is None and used[1] is not None
        monkeypatch.setattr(bulk, "_snapshot_rows", original)
        expected = [[h.node_id for h in store.search(q, 1000)] for q in queries]
        assert after == expected
        assert all("zzz" in hits for hits in after)  # every result is the newer snapshot's
        assert after != before


def test_concurrent_writers_never_yield_a_mixed_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer thread keeps adding nodes that match every query; each search_many must be the
    searches of one committed state: every result holds the same written nodes."""
    monkeypatch.setattr(bulk, "PARALLEL_MIN_SEARCHES", 2)
    path = tmp_path / "c.db"
    with Store.open(path, clock=FakeClock()) as store, Store.open(path) as writer:
        store.parallel_reads = True
        _fill(store, random.Random(4), 80)
        queries = [f"{a} {b}" for a, b in zip(WORDS[::2], WORDS[1::2], strict=True)]
        stop = threading.Event()

        def write() -> None:
            i = 0
            while not stop.is_set() and i < 2000:  # fewer than the search limit below
                writer.add_node(Node(id=f"z{i:05d}", content=" ".join(WORDS)))
                i += 1
                time.sleep(0.0005)

        thread = threading.Thread(target=write)
        thread.start()
        try:
            for _ in range(40):
                results = store.search_many(queries, 100_000)
                written = {frozenset(h for h in hits if h.startswith("z")) for hits in results}
                assert len(written) == 1, written
        finally:
            stop.set()
            thread.join()


def test_parallel_reads_are_allowed_only_before_any_connection_opens() -> None:
    code = (
        "import sqlite3, sys\n"
        "from heedful.memory._tuning import allow_parallel_reads\n"
        "if sys.argv[1] == 'open': conn = sqlite3.connect(':memory:')\n"
        "print(allow_parallel_reads())\n"
    )
    probe = (
        "import ctypes, _sqlite3\n"
        "lib = ctypes.PyDLL(_sqlite3.__file__)\n"
        "lib.sqlite3_memory_used.restype = ctypes.c_int64\n"
        "lib.sqlite3_malloc.restype = ctypes.c_void_p\n"
        "p = lib.sqlite3_malloc(64); print(lib.sqlite3_memory_used() > 0)\n"
    )

    def run(source: str, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", source, *args], capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    try:
        counting = run(probe) == "True"
    except subprocess.CalledProcessError:
        pytest.skip("SQLite's functions are not reachable through ctypes here")
    assert run(code, "fresh") == "True"
    # With a connection open the counting cannot be turned off (unless it already was).
    assert run(code, "open") == str(not counting)
    # HEEDFUL_SQLITE_PARALLEL=0: SQLite is left as it is (the counting stays on) and no store
    # reads in parallel.
    untouched = code + probe
    env = {**os.environ, "HEEDFUL_SQLITE_PARALLEL": "0"}
    done = subprocess.run(
        [sys.executable, "-c", untouched, "fresh"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    assert done.stdout.split() == ["False", str(counting)]


@pytest.mark.parametrize("writes", [1, bulk.SNAPSHOT_ATTEMPTS])
def test_one_connection_reads_again_when_a_write_lands_before_its_searches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writes: int
) -> None:
    """A write committed between reading the counter and searching: the memo's label would be
    older than the results, so they are read again (after every try fails: one statement)."""
    path = tmp_path / "s.db"
    with Store.open(path, clock=FakeClock()) as store, Store.open(path) as writer:
        store.parallel_reads = False
        _fill(store, random.Random(5), 40)
        queries = _queries(random.Random(6), 30)
        original = bulk._snapshot_rows
        calls: list[int] = []

        def late(conn: Any, sql: str, params: Any) -> Any:
            calls.append(1)
            if len(calls) <= writes:
                writer.add_node(Node(id=f"late{len(calls)}", content=" ".join(WORDS)))
            return original(conn, sql, params)

        monkeypatch.setattr(bulk, "_snapshot_rows", late)
        found = store.search_many(queries, 1000)
        assert len(calls) == min(writes + 1, bulk.SNAPSHOT_ATTEMPTS)
        monkeypatch.setattr(bulk, "_snapshot_rows", original)
        expected = [[h.node_id for h in store.search(q, 1000)] for q in queries]
        assert found == expected
        assert all(f"late{writes}" in hits for hits in found)
        assert store.search_many(queries, 1000) == expected  # and remembered correctly


def _graph(store: Store, rng: random.Random) -> None:
    n = rng.randint(10, 60)
    with store.transaction():
        for i in range(n):
            store.add_node(Node(id=f"n{i:03d}", content=" ".join(rng.sample(WORDS, 3))))
        for _ in range(rng.randint(0, 3 * n)):
            a, b = rng.randrange(n), rng.randrange(n)
            edge_type = rng.choice(list(EdgeType))
            store.add_edge(Edge(src=f"n{a:03d}", dst=f"n{b:03d}", edge_type=edge_type))
        for j in range(rng.randint(0, 10)):
            linked = tuple(f"n{rng.randrange(n):03d}" for _ in range(rng.randint(0, 3)))
            store.add_goal(Goal(id=f"g{j}", title=f"goal {j}"))
            store.add_outcome(
                Outcome(
                    status=rng.choice(list(OutcomeStatus)),
                    confidence=rng.random(),
                    node_ids=tuple(dict.fromkeys(linked)),
                    goal_id=rng.choice([None, f"g{j}"]),
                    at=float(rng.randint(0, 5)),
                    description=f"o{j}",
                )
            )


@pytest.mark.parametrize("seed", range(6))
def test_region_reads_equal_the_single_reads(tmp_path: Path, seed: int) -> None:
    with Store.open(tmp_path / "r.db", clock=FakeClock()) as store:
        _graph(store, random.Random(seed))
        rng = random.Random(seed + 100)
        node_ids = rng.sample([f"n{i:03d}" for i in range(80)], 50)  # some do not exist
        goal_ids = [f"g{j}" for j in range(0, 12, 2)]
        serial = (
            store.node_rows(node_ids),
            store.edge_rows_among([n.id for n in store.node_rows(node_ids)]),
            store.outcome_rows_for(goal_ids, [n.id for n in store.node_rows(node_ids)]),
        )
        version = store.graph_versions().graph
        together = store.region_rows(node_ids, goal_ids)
        assert (together.nodes, together.edges, together.outcomes) == serial
        assert together.version == version
        with store.transaction():  # inside a write: no version to remember the rows under
            inside = store.region_rows(node_ids, goal_ids)
        assert (inside.nodes, inside.edges, inside.outcomes, inside.version) == (*serial, None)


def test_region_reads_never_mix_states_under_a_concurrent_writer(tmp_path: Path) -> None:
    """Each write adds a node and an edge to it in one transaction: a region read must hold
    both or neither."""
    path = tmp_path / "rw.db"
    with Store.open(path, clock=FakeClock()) as store, Store.open(path) as writer:
        store.add_node(Node(id="hub", content="hub"))
        ids = ["hub", *(f"z{i:04d}" for i in range(600))]
        stop = threading.Event()

        def write() -> None:
            for i in range(600):
                if stop.is_set():
                    return
                with writer.transaction():
                    writer.add_node(Node(id=f"z{i:04d}", content="z"))
                    writer.add_edge(Edge(src="hub", dst=f"z{i:04d}", edge_type=EdgeType.SUPPORTS))
                time.sleep(0.0005)

        thread = threading.Thread(target=write)
        thread.start()
        try:
            for _ in range(60):
                rows = store.region_rows(ids, [])
                nodes = {n.id for n in rows.nodes} - {"hub"}
                assert nodes == {e.dst for e in rows.edges}
        finally:
            stop.set()
            thread.join()


def test_a_failing_read_only_connection_leaves_the_searches_to_the_store_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bulk, "PARALLEL_MIN_SEARCHES", 2)
    with Store.open(tmp_path / "f.db", clock=FakeClock()) as store:
        store.parallel_reads = True
        _fill(store, random.Random(7), 50)
        queries = _queries(random.Random(8), 20)
        expected = [[h.node_id for h in store.search(q, 5)] for q in queries]
        original = bulk._snapshot_rows

        def busy(conn: Any, sql: str, params: Any) -> Any:
            if threading.current_thread() is not threading.main_thread():
                raise sqlite3.OperationalError("database is locked")
            return original(conn, sql, params)

        monkeypatch.setattr(bulk, "_snapshot_rows", busy)
        used = _parallel_used(store)
        assert store.search_many(queries, 5) == expected
        assert used == [None]
        assert not store._conn.in_transaction


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
