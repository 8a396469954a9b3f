"""Speed of the engine's two hot paths, as ratios against baselines measured in the same run.

Run: ``.venv/bin/python benchmarks/engine_speed.py [--store]``.

1. Exact κ of one 2,000-node strongly connected component (goal ≤ 2 s). The graph is the union of
   four random Hamiltonian cycles, so every vertex has in- and out-degree ≥ 2 and κ must be
   certified by max-flow, not by a degree bound. Baseline: the SCC decomposition (Tarjan) of
   the same graph.
2. Survey + triage of 1,000 active goals over a 100,000-node graph (goal ≤ 2 s). Baseline: the
   raw graph-port reads the survey needs (region search, nodes, edges, outcomes per goal), with
   no coverage, topology or triage. ``--store`` runs the same on the SQLite memory store (slow to
   build: 100k inserts).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from heedful.engine import EngineConfig
from heedful.engine.memgraph import InMemoryGraph
from heedful.engine.ports import GraphPort
from heedful.engine.records import EdgeRecord, EdgeType, NodeRecord
from heedful.engine.survey import goal_region, survey
from heedful.engine.topology import analyze, strongly_connected_components
from heedful.engine.triage import triage
from heedful.model.goal import Goal, GoalPriority, GoalStatus

NOW = datetime(2026, 3, 21, tzinfo=UTC)


def _time(fn: Callable[[], Any], repeats: int = 3) -> tuple[float, Any]:
    best, value = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def bench_kappa(n: int = 2000, cycles: int = 4, seed: int = 7) -> None:
    """κ of one large component vs. its SCC decomposition."""
    rng = random.Random(seed)
    nodes = [f"n{i}" for i in range(n)]
    edges: set[tuple[str, str]] = set()
    for _ in range(cycles):
        order = list(range(n))
        rng.shuffle(order)
        edges |= {(nodes[order[i]], nodes[order[(i + 1) % n]]) for i in range(n)}
    pos = {x: i for i, x in enumerate(nodes)}
    succ: list[list[int]] = [[] for _ in nodes]
    for s, t in edges:
        succ[pos[s]].append(pos[t])
    base, comps = _time(lambda: strongly_connected_components(n, succ))
    took, topo = _time(lambda: analyze(nodes, edges))
    assert len(comps) == 1 and topo.scc_count == 1
    print(f"kappa: {n} nodes, {len(edges)} edges, κ = {topo.max_kappa}")
    verdict = "met" if took <= 2 else "MISSED"
    print(f"  exact κ      {took * 1000:9.1f} ms   (goal ≤ 2000 ms: {verdict})")
    print(f"  baseline SCC {base * 1000:9.1f} ms")
    print(f"  ratio κ/SCC  {took / base:9.1f}")


def build_graph(graph: GraphPort, n_nodes: int, n_goals: int, seed: int = 11) -> None:
    """Random knowledge graph with a 5,000-word vocabulary and goals on random topics."""
    rng = random.Random(seed)
    vocab = [f"w{i:04d}" for i in range(5000)]
    for i in range(n_nodes):
        graph.add_node(
            NodeRecord(
                id=f"n{i}",
                content=" ".join(rng.sample(vocab, 5)),
                confidence=rng.uniform(0.3, 1.0),
                updated_at=NOW - timedelta(hours=rng.uniform(0, 500)),
            )
        )
    types = list(EdgeType)
    for _ in range(2 * n_nodes):
        a, b = rng.randrange(n_nodes), rng.randrange(n_nodes)
        if a != b:
            graph.add_edge(EdgeRecord(f"n{a}", f"n{b}", rng.choice(types)))
    for g in range(n_goals):
        graph.add_goal(
            Goal(
                id=f"g{g}",
                title=" ".join(rng.sample(vocab, 3)),
                status=GoalStatus.ACTIVE,
                priority=rng.choice(list(GoalPriority)),
                due_at=NOW + timedelta(days=rng.uniform(-1, 10)),
                linked_node_ids=[f"n{rng.randrange(n_nodes)}" for _ in range(5)],
            )
        )


def bench_survey(graph: GraphPort, label: str) -> None:
    """Survey + triage of every active goal vs. the raw reads it needs."""
    config = EngineConfig()
    goals = graph.list_goals(GoalStatus.ACTIVE)

    def raw_reads() -> int:
        total = 0
        for goal in graph.list_goals(GoalStatus.ACTIVE):
            region = goal_region(graph, goal, config.region_search_limit)
            ids = [n.id for n in graph.get_nodes(region)]
            total += len(graph.edges_among(ids)) + len(graph.outcomes_for(goal.id, ids))
        return total

    def full() -> int:
        return len(triage(survey(graph, NOW, config), NOW, config.triage))

    base, _ = _time(raw_reads)
    took, count = _time(full)
    print(f"survey+triage [{label}]: {count} goals of {len(goals)} active")
    verdict = "met" if took <= 2 else "MISSED"
    print(f"  survey+triage {took * 1000:9.1f} ms   (goal ≤ 2000 ms: {verdict})")
    print(f"  baseline reads {base * 1000:8.1f} ms")
    print(f"  ratio          {took / base:8.2f}")


def main() -> None:
    """Run both benchmarks and print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--store", action="store_true", help="also run on the SQLite store")
    args = parser.parse_args()
    bench_kappa()
    start = time.perf_counter()
    graph = InMemoryGraph(clock=lambda: NOW)
    build_graph(graph, 100_000, 1_000)
    print(f"(built in-memory graph in {time.perf_counter() - start:.1f} s)")
    bench_survey(graph, "in-memory")
    if args.store:
        from heedful.engine.store_adapter import StoreGraph
        from heedful.memory import Store

        start = time.perf_counter()
        store_graph = StoreGraph(Store.open(":memory:", clock=NOW.timestamp))
        build_graph(store_graph, 100_000, 1_000)
        print(f"(built SQLite store in {time.perf_counter() - start:.1f} s)")
        bench_survey(store_graph, "sqlite store")
        store_graph.close()


if __name__ == "__main__":
    main()
