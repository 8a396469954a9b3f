"""The SQLite survey gives exactly the survey recorded before the batched reads, and exactly
the in-memory survey of the same graph."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from survey_graphs import NOW, copy_to_memory, dump_items, random_store

from heedful.engine import EngineConfig
from heedful.engine.ports import GraphPort
from heedful.engine.records import EdgeRecord, NodeRecord, OutcomeRecord
from heedful.engine.regions import BatchGraphPort
from heedful.engine.survey import survey
from heedful.engine.triage import triage
from heedful.model import EdgeType, OutcomeStatus

RECORDED = Path(__file__).parent / "data" / "survey_recorded.json"
#: How each recorded case was built (the file was written by the per-goal survey).
CASES: dict[str, dict[str, Any]] = {
    "seed-1": {"seed": 1},
    "seed-2": {"seed": 2},
    "seed-3": {"seed": 3, "n_nodes": 400, "n_goals": 40},
    "gaps-4": {"seed": 4, "active": False},
}


def _survey(graph: GraphPort) -> list[dict[str, Any]]:
    config = EngineConfig()
    return dump_items(triage(survey(graph, NOW, config), NOW, config.triage))


@pytest.mark.parametrize("case", sorted(CASES))
def test_store_survey_equals_the_recorded_survey(case: str) -> None:
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))[case]
    graph = random_store(**CASES[case])
    assert isinstance(graph, BatchGraphPort)  # the batched path is the one under test
    try:
        assert json.loads(json.dumps(_survey(graph), ensure_ascii=False)) == recorded
    finally:
        graph.close()


@pytest.mark.parametrize("seed", range(4))
def test_store_survey_equals_in_memory_survey_of_the_same_graph(seed: int) -> None:
    graph = random_store(seed, uniform=True)
    try:
        stored = _survey(graph)
        assert stored == _survey(copy_to_memory(graph))
        assert sum(len(item["region_node_ids"]) for item in stored) > 100
    finally:
        graph.close()


def test_a_repeated_store_survey_reuses_its_reads_and_follows_every_change() -> None:
    graph = random_store(5, uniform=True)
    try:
        first = _survey(graph)
        calls: list[str] = []
        graph.store._conn.set_trace_callback(calls.append)
        assert _survey(graph) == first
        # Unchanged graph: no full-text search and no region read ran again.
        assert not [sql for sql in calls if "nodes_fts" in sql or "FROM edges" in sql]
        graph.store._conn.set_trace_callback(None)
        item = next(item for item in first if len(item["region_node_ids"]) >= 3)
        goal, region = graph.get_goal(item["goal_id"]), item["region_node_ids"]
        changes = [
            lambda: graph.add_node(
                NodeRecord(id="fresh", content=f"{goal.title} alpha bravo charlie delta")
            ),
            lambda: graph.add_edge(EdgeRecord(region[0], region[1], EdgeType.CONTRADICTS, 0.77)),
            lambda: graph.record_outcome(
                OutcomeRecord(
                    status=OutcomeStatus.FAILURE,
                    confidence=0.9,
                    goal_id=goal.id,
                    node_ids=(region[0],),
                    created_at=NOW,
                )
            ),
            lambda: graph.store.update_node(region[0], confidence=0.01),
        ]
        for number, change in enumerate(changes):
            before = _survey(graph)
            change()
            after = _survey(graph)
            assert after != before, number
            assert after == _survey(copy_to_memory(graph))
    finally:
        graph.close()
