"""The reversible journal: every reflect write is an entry; undo by id; conflicts refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_builders import NOW, add_act_region, add_goal, clock

from heedful.engine import Engine, EngineConfig, InMemoryGraph, Journal
from heedful.engine.config import AutonomyLevel, GovernanceConfig
from heedful.engine.journal import CONTENT_PREVIEW_CHARS
from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.model.goal import GoalStatus

ACT = EngineConfig(
    autonomy=AutonomyLevel.ACT, governance=GovernanceConfig(max_level=AutonomyLevel.ACT)
)
PLAN = [
    {"do": "add_node", "id": "r1", "content": "deploy released", "supports": ["d0"]},
    {"do": "add_node", "id": "r2", "content": "deploy announced", "supports": ["r1"]},
]


def _engine(graph: InMemoryGraph, journal: Journal | None = None) -> Engine:
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g", "deploy", metadata={"plan": PLAN})
    return Engine(graph, ACT, journal=journal, clock=clock)


def test_act_step_is_journaled_and_undo_restores_the_graph(graph: InMemoryGraph) -> None:
    engine = _engine(graph)
    before = graph.digest()
    (dispatch,) = engine.run_cycle()["dispatches"]
    entry_id = dispatch["details"]["journal_entry"]
    (entry,) = engine.journal_entries()
    assert entry.id == entry_id and entry.mode == "act" and entry.goal_id == "g"
    assert [op["op"] for op in entry.ops] == ["add_node", "add_edge", "add_outcome", "update_goal"]
    assert "+ node r1: deploy released" in entry.describe()
    engine.undo(entry_id)
    assert graph.digest() == before
    assert engine.journal_entries()[0].undone_at == NOW.isoformat()


def test_undo_twice_is_refused(graph: InMemoryGraph) -> None:
    engine = _engine(graph)
    (dispatch,) = engine.run_cycle()["dispatches"]
    engine.undo(dispatch["details"]["journal_entry"])
    with pytest.raises(InvalidArgumentError, match="already undone"):
        engine.undo(dispatch["details"]["journal_entry"])


def test_undo_of_an_entry_a_later_one_builds_on_is_refused(graph: InMemoryGraph) -> None:
    engine = _engine(graph)
    first = engine.run_cycle()["dispatches"][0]["details"]["journal_entry"]
    second = engine.run_cycle()["dispatches"][0]["details"]["journal_entry"]
    with pytest.raises(InvalidArgumentError, match=f"undo them first.*{second}"):
        engine.undo(first)
    engine.undo(second)
    engine.undo(first)
    assert graph.get_goal("g").progress == 0.0 and graph.get_nodes(["r1", "r2"]) == []


def test_undo_of_a_completed_goal_reopens_it(graph: InMemoryGraph) -> None:
    engine = _engine(graph)
    engine.run_cycle()
    last = engine.run_cycle()["dispatches"][0]
    assert graph.get_goal("g").status == GoalStatus.COMPLETED
    engine.undo(last["details"]["journal_entry"])
    assert graph.get_goal("g").status == GoalStatus.ACTIVE
    assert graph.get_goal("g").metadata["plan_done"] == 1


def test_undo_refuses_when_the_node_changed_since(graph: InMemoryGraph) -> None:
    engine = _engine(graph)
    entry_id = engine.run_cycle()["dispatches"][0]["details"]["journal_entry"]
    node = graph.get_nodes(["r1"])[0]
    graph.restore_node(type(node)(node.id, node.type, "edited by hand", node.confidence))
    with pytest.raises(InvalidArgumentError, match="node r1 changed since"):
        engine.undo(entry_id)


def test_unknown_entry_is_named(graph: InMemoryGraph) -> None:
    with pytest.raises(UnknownNameError, match="j-nope"):
        _engine(graph).undo("j-nope")


def test_file_journal_survives_a_new_engine(tmp_path, graph: InMemoryGraph) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "j.jsonl"
    engine = _engine(graph, Journal(path))
    entry_id = engine.run_cycle()["dispatches"][0]["details"]["journal_entry"]
    again = Engine(graph, ACT, journal=Journal(path), clock=clock)
    assert [e.id for e in again.journal_entries()] == [entry_id]
    again.undo(entry_id)
    assert Journal(path).entries()[0].undone_at is not None


def test_a_file_journal_is_created_readable_by_its_owner_only(
    tmp_path, graph: InMemoryGraph
) -> None:  # type: ignore[no-untyped-def]
    import os
    import stat

    path = tmp_path / "j.jsonl"
    old = os.umask(0o022)
    try:
        _engine(graph, Journal(path)).run_cycle()
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_corrupt_journal_line_is_named(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "j.jsonl"
    path.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(InvalidArgumentError, match=r"j.jsonl:1: not a JSON line"):
        Journal(path).entries()


def test_observe_and_advise_write_no_journal_entry(graph: InMemoryGraph) -> None:
    engine = _engine(graph)
    engine.run_cycle(autonomy_override="observe")
    engine.run_cycle(autonomy_override="advise")
    assert engine.journal_entries() == []


def test_a_line_being_appended_is_not_read_as_a_broken_journal(tmp_path: Path) -> None:
    from heedful.engine.journal import JournalEntry

    journal = Journal(tmp_path / "j.jsonl")
    journal.append(JournalEntry("j-1", "c", "2026-01-01T00:00:00+00:00", None, "act", "s"))
    with journal.path.open("a", encoding="utf-8") as fh:  # type: ignore[union-attr]
        fh.write('{"kind": "entry", "id": "j-2", "cyc')  # a writer mid-line
    assert [e.id for e in journal.entries()] == ["j-1"]


LONG = "deploy released to every region after the canary held for a full day " * 2


def test_a_cut_node_content_is_marked_and_stays_whole_in_nodes(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    short = "x" * CONTENT_PREVIEW_CHARS  # exactly the limit: shown whole, no mark
    plan = [
        {"do": "add_node", "id": "r1", "content": LONG},
        {"do": "add_node", "id": "r2", "content": short},
    ]
    add_goal(graph, "g", "deploy", metadata={"plan": plan})
    engine = Engine(graph, ACT, clock=clock)
    engine.run_cycle()
    engine.run_cycle()
    first, second = engine.journal_entries()
    (line,) = [c for c in first.describe() if c.startswith("+ node r1: ")]
    shown = line.removeprefix("+ node r1: ")
    assert shown.endswith("…") and len(shown) <= CONTENT_PREVIEW_CHARS
    assert LONG.startswith(shown.removesuffix("…"))
    assert first.nodes() == {"r1": LONG} and first.cuts_content()
    assert f"+ node r2: {short}" in second.describe() and not second.cuts_content()


def test_a_multi_line_content_is_one_change_line(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    plan = [{"do": "add_node", "id": "r1", "content": "line one\nline two"}]
    add_goal(graph, "g", "deploy", metadata={"plan": plan})
    engine = Engine(graph, ACT, clock=clock)
    engine.run_cycle()
    (entry,) = engine.journal_entries()
    assert "+ node r1: line one line two" in entry.describe()
    assert entry.nodes() == {"r1": "line one\nline two"}
