"""Random knowledge graphs for the survey equivalence tests, and a canonical dump of a survey.

``random_store`` fills a SQLite-backed :class:`StoreGraph` with everything the survey reads:
nodes of every type with varied text, confidence and age, edges of every type dense enough to
close cycles, crystallised conclusions, merged duplicates, engine traces, outcomes of every
status, and goals with descriptions, links (some dangling), priorities and deadlines.
``copy_to_memory`` rebuilds the same graph in an :class:`InMemoryGraph`.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

from heedful.engine.memgraph import InMemoryGraph
from heedful.engine.records import EdgeRecord, NodeRecord, OutcomeRecord
from heedful.engine.store_adapter import StoreGraph
from heedful.engine.survey import CRYSTALLIZES, ENGINE_TRACE, ENGINE_TRACE_KEY, MERGED_INTO
from heedful.engine.triage import AttentionItem
from heedful.memory import Store
from heedful.model import EdgeType, NodeType, OutcomeStatus
from heedful.model.goal import Goal, GoalPriority, GoalStatus

NOW = datetime(2026, 3, 21, 12, 0, tzinfo=UTC)

_WORDS = (
    "market pricing churn deploy latency cache index quorum ledger audit budget vendor "
    "contract renewal outage incident rollback schema migration tenant billing invoice "
    "forecast demand supply warehouse routing carrier freight customs tariff compliance "
    "privacy consent retention backup restore replica shard cluster kernel driver firmware "
    "café naïve the and with from über straße"
)
_VOCAB = tuple(_WORDS.split())


class _Clock:
    """A settable epoch clock for the store (nodes take their ``updated_at`` from it)."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> float:
        return self.at.timestamp()


def _text(rng: random.Random, words: int, vocab: list[str], uniform: bool = False) -> str:
    if uniform:
        return " ".join(rng.sample(vocab, words))
    parts = [rng.choice(vocab) for _ in range(words)]
    if rng.random() < 0.2:
        parts.append(rng.choice(["(draft)", "v2.1", "—", "re:", "42"]))
    return " ".join(parts)


def random_store(
    seed: int,
    *,
    n_nodes: int = 240,
    n_goals: int = 24,
    active: bool = True,
    uniform: bool = False,
) -> StoreGraph:
    """A random graph in a fresh in-memory SQLite store (see the module docstring).

    ``uniform``: every node holds five distinct plain words and every goal title is one word
    without description, so BM25 (the store) and word-count ranking (the in-memory graph) tie
    on every hit and both break ties by id: the two ports then find the same regions.
    """
    rng = random.Random(seed)
    vocab = [w for w in _VOCAB if w.isascii() and len(w) > 4] if uniform else list(_VOCAB)

    def text(words: int) -> str:
        return _text(rng, 5 if uniform else words, vocab, uniform)

    clock = _Clock(NOW)
    graph = StoreGraph(Store.open(":memory:", clock=clock))
    ids = [f"n{i}" for i in range(n_nodes)]
    with graph.store.transaction():
        for node_id in ids:
            clock.at = NOW - timedelta(hours=rng.uniform(0, 2000))
            metadata: dict[str, object] = {}
            roll = rng.random()
            if roll < 0.03:
                metadata[ENGINE_TRACE_KEY] = ENGINE_TRACE
            elif roll < 0.06:
                metadata[MERGED_INTO] = rng.choice(ids)
            elif roll < 0.12:
                metadata["source"] = rng.choice(["web", "tool", "user"])
            graph.add_node(
                NodeRecord(
                    id=node_id,
                    type=rng.choice(list(NodeType)),
                    content=text(rng.randint(1, 9)),
                    confidence=round(rng.uniform(0.05, 1.0), 3),
                    metadata=metadata,
                )
            )
        types = list(EdgeType)
        for _ in range(3 * n_nodes):
            a, b = rng.choice(ids), rng.choice(ids)
            # Mostly local edges, so regions hold cycles and contradictions.
            if rng.random() < 0.7:
                b = ids[(ids.index(a) + rng.randint(-6, 6)) % n_nodes]
            graph.add_edge(EdgeRecord(a, b, rng.choice(types), round(rng.uniform(0.1, 1), 2)))
        for c in range(n_nodes // 20):
            members = rng.sample(ids, rng.randint(2, 5))
            clock.at = NOW - timedelta(hours=rng.uniform(0, 1500))
            graph.add_node(
                NodeRecord(
                    id=f"c{c}",
                    content=text(4),
                    confidence=0.8,
                    metadata={CRYSTALLIZES: members},
                )
            )
        goal_ids = [f"g{g:02d}" for g in range(n_goals)]
        for goal_id in goal_ids:
            clock.at = NOW - timedelta(hours=rng.uniform(0, 100))
            graph.add_goal(
                Goal(
                    id=goal_id,
                    title=rng.choice(vocab) if uniform else text(rng.randint(1, 4)),
                    description="" if uniform else text(rng.randint(0, 5)),
                    status=GoalStatus.ACTIVE
                    if active and rng.random() < 0.85
                    else GoalStatus.PROPOSED,
                    priority=rng.choice(list(GoalPriority)),
                    due_at=None
                    if rng.random() < 0.2
                    else NOW + timedelta(hours=rng.uniform(-24, 400)),
                    linked_node_ids=[
                        rng.choice([*ids, "missing-node"]) for _ in range(rng.randint(0, 4))
                    ],
                    consequence=round(rng.uniform(0.5, 3.0), 2),
                )
            )
        for _ in range(n_nodes // 4):
            graph.record_outcome(
                OutcomeRecord(
                    status=rng.choice(list(OutcomeStatus)),
                    confidence=round(rng.uniform(0.2, 1.0), 2),
                    goal_id=rng.choice([None, *goal_ids]),
                    node_ids=tuple(rng.sample(ids, rng.randint(0, 3))),
                    created_at=NOW - timedelta(hours=rng.uniform(0, 300)),
                )
            )
    clock.at = NOW
    return graph


def copy_to_memory(graph: StoreGraph) -> InMemoryGraph:
    """The same goals, nodes, edges and outcomes in an :class:`InMemoryGraph`.

    Edges go in in the store's order and outcomes oldest first, so both ports list them alike.
    """
    memory = InMemoryGraph(clock=lambda: NOW)
    for node in graph.get_nodes([n.id for n in graph.store.nodes()]):
        memory.add_node(node)
    for edge in graph.store.edges():
        memory.add_edge(EdgeRecord(edge.src, edge.dst, edge.edge_type, edge.weight))
    for goal in graph.store.list_goals():
        memory.goals[goal.id] = goal
    for outcome in graph.store.outcomes():
        memory.record_outcome(
            OutcomeRecord(
                status=outcome.status,
                confidence=outcome.confidence,
                goal_id=outcome.goal_id,
                node_ids=tuple(outcome.node_ids),
                detail=outcome.description,
                created_at=datetime.fromtimestamp(outcome.at, UTC),
                id=str(outcome.id),
            )
        )
    return memory


def dump_items(items: list[AttentionItem]) -> list[dict[str, Any]]:
    """Every field of triaged attention items as JSON-able data, floats unrounded."""
    return [
        {
            **item.to_dict(),
            "exact": [item.attention_score, item.urgency, item.gap, item.surprise, item.voc],
            "coverage": item.coverage.to_dict(),
            "topology": item.topology.to_dict(),
            "mode_reason": item.mode_reason,
        }
        for item in items
    ]
