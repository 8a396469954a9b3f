"""The engine's reversible journal: every write reflect makes, one entry per dispatch, undo by id.

Reflect is the engine's only writer (ports compute, the engine writes), so wrapping the graph in
a :class:`RecordingGraph` while reflect applies a dispatch's writes captures *everything* the
engine changed — explore's findings and links, focus's conclusions, act's changes and outcomes,
proposed and auto-activated goals, status changes — together with what it takes to reverse it.
:func:`undo` reverses one entry if nothing recorded later touched the same nodes or goals.

A journal lives in memory, or in a JSON-lines file (``heedful engine`` keeps it beside the store
as ``<db>.journal.jsonl``): one ``entry`` line per dispatch, one ``undo`` line per undo.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from heedful.engine.ports import GraphPort
from heedful.engine.records import EdgeRecord, NodeRecord, OutcomeRecord
from heedful.errors import InputError, InvalidArgumentError, UnknownNameError
from heedful.files import append_private
from heedful.model import EdgeType, NodeType
from heedful.model.documents import RESULTS_LIMITS, decode_utf8, parse_document, read_bounded
from heedful.model.goal import Goal, GoalStatus

__all__ = [
    "CONTENT_PREVIEW_CHARS",
    "Journal",
    "JournalEntry",
    "RecordingGraph",
    "UndoableGraph",
    "undo",
]

#: How much of a node's content a change line shows (:meth:`JournalEntry.describe`); a longer
#: content is cut and ends with ``…``. The entry's ``ops`` (``--json``, the MCP ``nodes``
#: field) keep the full text.
CONTENT_PREVIEW_CHARS = 70


def _preview(content: str) -> str:
    """``content`` on one line, at most :data:`CONTENT_PREVIEW_CHARS` characters, cut marked."""
    text = " ".join(content.split())  # a change is one line, whatever the content's newlines
    if len(text) <= CONTENT_PREVIEW_CHARS:
        return text
    return text[: CONTENT_PREVIEW_CHARS - 1].rstrip() + "…"


@runtime_checkable
class UndoableGraph(Protocol):
    """The extra graph operations :func:`undo` needs (both built-in graphs have them)."""

    def remove_node(self, node_id: str) -> None:
        """Delete a node and its edges."""
        ...

    def restore_node(self, node: NodeRecord) -> None:
        """Put a node's content, confidence and metadata back."""
        ...

    def remove_edge(self, edge: EdgeRecord) -> None:
        """Delete one edge (source, target, type)."""
        ...

    def add_edge(self, edge: EdgeRecord) -> None:
        """Store an edge; an existing (source, target, type) gets the new weight (upsert)."""
        ...

    def remove_outcome(self, outcome_id: str) -> None:
        """Delete an outcome."""
        ...

    def remove_goal(self, goal_id: str) -> None:
        """Delete a goal."""
        ...

    def restore_goal(self, goal: Goal) -> None:
        """Write a goal back exactly as given (no transition check)."""
        ...


def _node_dict(node: NodeRecord) -> dict[str, Any]:
    data = asdict(node)
    data["type"] = node.type.value
    data["updated_at"] = node.updated_at.isoformat() if node.updated_at else None
    return data


def _node_from(data: dict[str, Any]) -> NodeRecord:
    when = data.get("updated_at")
    return NodeRecord(
        id=data["id"],
        type=NodeType(data["type"]),
        content=data["content"],
        confidence=data["confidence"],
        updated_at=datetime.fromisoformat(when) if when else None,
        metadata=dict(data.get("metadata") or {}),
    )


def _edge_dict(edge: EdgeRecord) -> dict[str, Any]:
    return {"source": edge.source, "target": edge.target, "type": edge.type.value}


def _edge_from(data: dict[str, Any]) -> EdgeRecord:
    return EdgeRecord(data["source"], data["target"], EdgeType(data["type"]))


def _edge_key(data: dict[str, Any]) -> str:
    return f"edge:{data['source']}|{data['target']}|{data['type']}"


def _find_edge(graph: GraphPort, edge: EdgeRecord) -> EdgeRecord | None:
    """The stored edge with ``edge``'s source, target and type, if any."""
    key = (edge.source, edge.target, edge.type)
    for e in graph.edges_among([edge.source, edge.target]):
        if (e.source, e.target, e.type) == key:
            return e
    return None


@dataclass
class JournalEntry:
    """The writes of one dispatch.

    Attributes:
        id: Entry id (``j-…``), what ``undo`` takes.
        cycle_id: The cycle that wrote it.
        at: Cycle time (ISO 8601).
        goal_id: The goal of the dispatched item, if any.
        mode: The dispatch mode.
        summary: What changed and why, one line.
        ops: The changes, each with what it takes to reverse it.
        undone_at: When it was undone, or ``None``.
    """

    id: str
    cycle_id: str
    at: str
    goal_id: str | None
    mode: str
    summary: str
    ops: list[dict[str, Any]] = field(default_factory=list)
    undone_at: str | None = None

    def touched(self) -> set[str]:
        """Node, goal and outcome keys this entry changed (for undo conflicts)."""
        keys: set[str] = set()
        for op in self.ops:
            kind = op["op"]
            if kind in ("add_node", "replace_node"):
                keys.add("node:" + (op.get("node") or op["after"])["id"])
            elif kind == "add_edge":
                keys.update({"node:" + op["edge"]["source"], "node:" + op["edge"]["target"]})
                keys.add(_edge_key(op["edge"]))
            elif kind == "reweight_edge":
                keys.add(_edge_key(op["edge"]))
            elif kind in ("add_goal", "update_goal"):
                keys.add("goal:" + (op.get("goal") or op["after"])["id"])
        return keys

    def describe(self) -> list[str]:
        """One human-readable line per change.

        A node's content shows at most :data:`CONTENT_PREVIEW_CHARS` characters, a cut marked
        ``…`` (:meth:`nodes` has it whole).
        """
        lines = []
        for op in self.ops:
            kind = op["op"]
            if kind == "add_node":
                lines.append(f"+ node {op['node']['id']}: {_preview(op['node']['content'])}")
            elif kind == "replace_node":
                lines.append(f"~ node {op['after']['id']}: {_preview(op['after']['content'])}")
            elif kind == "add_edge":
                e = op["edge"]
                lines.append(f"+ edge {e['source']} -{e['type']}-> {e['target']}")
            elif kind == "reweight_edge":
                e = op["edge"]
                lines.append(
                    f"~ edge {e['source']} -{e['type']}-> {e['target']}: "
                    f"weight {op['before']:.2f}→{op['after']:.2f}"
                )
            elif kind == "add_outcome":
                lines.append(f"+ outcome {op['id']} ({op['status']})")
            elif kind == "add_goal":
                g = op["goal"]
                lines.append(f"+ goal {g['id']} [{g['status']}]: {g['title']}")
            elif kind == "update_goal":
                before, after = op["before"], op["after"]
                changed = [
                    f"{k} {before.get(k)!r}→{after.get(k)!r}"
                    for k in ("status", "progress")
                    if before.get(k) != after.get(k)
                ]
                if before.get("linked_node_ids") != after.get("linked_node_ids"):
                    n = len(after.get("linked_node_ids") or []) - len(
                        before.get("linked_node_ids") or []
                    )
                    changed.append(f"+{n} linked node(s)")
                lines.append(f"~ goal {after['id']}: " + (", ".join(changed) or "metadata"))
        return lines

    def nodes(self) -> dict[str, str]:
        """The full content of every node this entry added or replaced, by node id."""
        written: dict[str, str] = {}
        for op in self.ops:
            node = op.get("node") if op["op"] == "add_node" else op.get("after")
            if op["op"] in ("add_node", "replace_node") and node is not None:
                written[node["id"]] = node["content"]
        return written

    def cuts_content(self) -> bool:
        """Whether :meth:`describe` cut some node's content."""
        return any(_preview(c) != " ".join(c.split()) for c in self.nodes().values())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (with ``changes``: the :meth:`describe` lines)."""
        return {**asdict(self), "changes": self.describe()}


#: Bounds on a journal file: as large as a benchmark's results (512 MiB), other limits as usual.
JOURNAL_LIMITS = RESULTS_LIMITS
#: The key under which a record read from a file carries its line number (dropped on output).
_LINE = "__line__"
_ENTRY_FIELDS = {f.name for f in fields(JournalEntry)}


class Journal:
    """Append-only journal of the engine's writes, in memory or in a JSON-lines file.

    Args:
        path: File to append to and read from; ``None`` keeps entries in memory only.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._memory: list[dict[str, Any]] = []

    def _append_line(self, record: dict[str, Any]) -> None:
        if self.path is None:
            self._memory.append(json.loads(json.dumps(record)))
            return
        # Created readable by its owner only (it holds node contents, like the store).
        append_private(self.path, json.dumps(record, ensure_ascii=False, default=str) + "\n")

    def _lines(self) -> list[dict[str, Any]]:
        if self.path is None:
            return list(self._memory)
        if not self.path.exists():
            return []
        # A file is an outside party too: bounded in bytes (HEEDFUL_MAX_INPUT_BYTES raises it,
        # default 512 MiB), strict UTF-8, each line parsed under the nesting and value rules
        # of every other input (heedful.model.documents).
        limits = JOURNAL_LIMITS.from_env()
        try:
            text = decode_utf8(read_bounded(self.path, limits), str(self.path))
        except InputError as exc:
            raise InvalidArgumentError(f"journal {exc}") from None
        lines = text.splitlines()
        if lines and not text.endswith("\n"):
            # Another thread or process is appending this line right now (e.g. the heartbeat of
            # `heedful mcp serve --engine` while a tool reads): it is not an entry yet.
            lines.pop()
        out = []
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"journal {self.path}:{number}"
            try:
                record = parse_document(line, where, json=True, limits=limits)
            except InputError:
                raise InvalidArgumentError(f"{where}: not a JSON line") from None
            if not isinstance(record, dict):
                raise InvalidArgumentError(f"{where}: not a JSON object")
            record[_LINE] = number
            out.append(record)
        return out

    def records(self) -> list[dict[str, Any]]:
        """Every record of the journal, oldest first (entries, undos, proposals, decisions)."""
        return [{k: v for k, v in r.items() if k != _LINE} for r in self._lines()]

    def append_record(self, record: dict[str, Any]) -> None:
        """Append one record of another kind (``proposal``, ``decision``: engine.proposals)."""
        self._append_line(record)

    def append(self, entry: JournalEntry) -> None:
        """Record one entry."""
        self._append_line({"kind": "entry", **asdict(entry)})

    def entries(self) -> list[JournalEntry]:
        """All entries, oldest first, with their undo state."""
        entries: dict[str, JournalEntry] = {}
        for record in self._lines():
            if record.get("kind") == "entry":
                data = {k: v for k, v in record.items() if k not in ("kind", _LINE)}
                try:
                    entry = JournalEntry(**data)
                except TypeError:
                    names = sorted(set(data) - _ENTRY_FIELDS) or sorted(_ENTRY_FIELDS - set(data))
                    raise InvalidArgumentError(
                        f"journal {self.path}:{record[_LINE]}: not a journal entry "
                        f"(fields {', '.join(names)})"
                    ) from None
                entries[str(entry.id)] = entry
            elif record.get("kind") == "undo" and record.get("entry_id") in entries:
                entries[record["entry_id"]].undone_at = record.get("at")
        return list(entries.values())

    def get(self, entry_id: str) -> JournalEntry:
        """One entry; raises ``UnknownNameError`` naming the id."""
        for entry in self.entries():
            if entry.id == entry_id:
                return entry
        raise UnknownNameError(f"no journal entry {entry_id!r}")

    def mark_undone(self, entry_id: str, at: datetime) -> None:
        """Record that an entry was undone."""
        self._append_line({"kind": "undo", "entry_id": entry_id, "at": at.isoformat()})


def new_entry_id() -> str:
    """A fresh journal entry id."""
    return f"j-{uuid.uuid4().hex[:10]}"


class RecordingGraph:
    """A graph port that forwards everything and records each write with its inverse.

    Args:
        graph: The graph to write to.
    """

    def __init__(self, graph: GraphPort) -> None:
        self.graph = graph
        self.ops: list[dict[str, Any]] = []

    # Reads go straight to the wrapped graph.

    def list_goals(self, status: GoalStatus | None = None) -> list[Goal]:
        """Goals, optionally with one status."""
        return self.graph.list_goals(status)

    def get_goal(self, goal_id: str) -> Goal:
        """One goal."""
        return self.graph.get_goal(goal_id)

    def search(self, query: str, limit: int) -> list[str]:
        """Full-text search."""
        return self.graph.search(query, limit)

    def get_nodes(self, node_ids: Sequence[str]) -> list[NodeRecord]:
        """Existing nodes among ``node_ids``."""
        return self.graph.get_nodes(node_ids)

    def edges_touching(self, node_ids: Sequence[str]) -> list[EdgeRecord]:
        """Edges with an endpoint in ``node_ids``."""
        return self.graph.edges_touching(node_ids)

    def edges_among(self, node_ids: Sequence[str]) -> list[EdgeRecord]:
        """Edges with both endpoints in ``node_ids``."""
        return self.graph.edges_among(node_ids)

    def outcomes_for(self, goal_id: str | None, node_ids: Sequence[str]) -> list[OutcomeRecord]:
        """Outcomes of the goal or the nodes."""
        return self.graph.outcomes_for(goal_id, node_ids)

    def gap_candidates(self, limit: int) -> list[str]:
        """Gap candidates."""
        return self.graph.gap_candidates(limit)

    def digest(self) -> str:
        """The wrapped graph's digest."""
        return self.graph.digest()

    # Writes are recorded.

    def add_node(self, node: NodeRecord) -> str:
        """Store a node; record an add, or a replace with the previous version."""
        before = self.graph.get_nodes([node.id]) if node.id else []
        node_id = self.graph.add_node(node)
        after = self.graph.get_nodes([node_id])
        stored = after[0] if after else replace(node, id=node_id)
        if before:
            self.ops.append(
                {"op": "replace_node", "before": _node_dict(before[0]), "after": _node_dict(stored)}
            )
        else:
            self.ops.append({"op": "add_node", "node": _node_dict(stored)})
        return node_id

    def add_edge(self, edge: EdgeRecord) -> None:
        """Store an edge; record it when it is new, or its weight change when it is not."""
        existed = _find_edge(self.graph, edge)
        self.graph.add_edge(edge)
        if existed is None:
            self.ops.append({"op": "add_edge", "edge": _edge_dict(edge)})
        elif existed.weight != edge.weight:
            self._reweighted(edge, existed.weight)

    def set_edge_weight(self, edge: EdgeRecord, weight: float) -> None:
        """Give an existing edge a new weight (a decay); record before and after."""
        existed = _find_edge(self.graph, edge)
        if existed is None or existed.weight == weight:
            return
        self.graph.add_edge(replace(existed, weight=weight))
        self._reweighted(replace(existed, weight=weight), existed.weight)

    def _reweighted(self, edge: EdgeRecord, before: float) -> None:
        op = {"op": "reweight_edge", "edge": _edge_dict(edge), "before": before}
        self.ops.append({**op, "after": edge.weight})

    def record_outcome(self, outcome: OutcomeRecord) -> str:
        """Store an outcome and record its id."""
        outcome_id = self.graph.record_outcome(outcome)
        self.ops.append({"op": "add_outcome", "id": outcome_id, "status": outcome.status.value})
        return outcome_id

    def add_goal(self, goal: Goal) -> Goal:
        """Store a goal and record it."""
        stored = self.graph.add_goal(goal)
        self.ops.append({"op": "add_goal", "goal": stored.model_dump(mode="json")})
        return stored

    def update_goal(self, goal: Goal) -> Goal:
        """Replace a goal; record the version before and after."""
        before = self.graph.get_goal(goal.id)
        stored = self.graph.update_goal(goal)
        self.ops.append(
            {
                "op": "update_goal",
                "before": before.model_dump(mode="json"),
                "after": stored.model_dump(mode="json"),
            }
        )
        return stored


def _check_current(graph: GraphPort, op: dict[str, Any]) -> str:
    """Why ``op`` cannot be reversed because its target changed since ("" when it can)."""
    kind = op["op"]
    if kind == "reweight_edge":
        now_edge = _find_edge(graph, _edge_from(op["edge"]))
        if now_edge is not None and abs(now_edge.weight - op["after"]) > 1e-9:
            e = op["edge"]
            return f"edge {e['source']} -{e['type']}-> {e['target']} changed since"
    elif kind in ("add_node", "replace_node"):
        wrote = op.get("node") or op["after"]
        now = graph.get_nodes([wrote["id"]])
        if now and (now[0].content, now[0].confidence) != (wrote["content"], wrote["confidence"]):
            return f"node {wrote['id']} changed since"
    elif kind in ("add_goal", "update_goal"):
        wrote = op.get("goal") or op["after"]
        try:
            now_goal = graph.get_goal(wrote["id"]).model_dump(mode="json")
        except UnknownNameError:
            return ""
        for key in ("status", "progress", "linked_node_ids", "title"):
            if now_goal.get(key) != wrote.get(key):
                return f"goal {wrote['id']} changed since ({key})"
    return ""


def _reverse(graph: Any, op: dict[str, Any]) -> None:
    kind = op["op"]
    if kind == "add_node":
        if graph.get_nodes([op["node"]["id"]]):
            graph.remove_node(op["node"]["id"])
    elif kind == "replace_node":
        graph.restore_node(_node_from(op["before"]))
    elif kind == "add_edge":
        graph.remove_edge(_edge_from(op["edge"]))
    elif kind == "reweight_edge":
        edge = _edge_from(op["edge"])
        if _find_edge(graph, edge) is not None:
            graph.add_edge(replace(edge, weight=op["before"]))
    elif kind == "add_outcome":
        graph.remove_outcome(op["id"])
    elif kind == "add_goal":
        try:
            graph.get_goal(op["goal"]["id"])
        except UnknownNameError:
            return
        graph.remove_goal(op["goal"]["id"])
    elif kind == "update_goal":
        graph.restore_goal(Goal.model_validate(op["before"]))


def undo(graph: GraphPort, journal: Journal, entry_id: str, *, now: datetime) -> JournalEntry:
    """Reverse one journal entry.

    Args:
        graph: The graph the entry was written to (must implement :class:`UndoableGraph`).
        journal: The journal holding the entry.
        entry_id: The entry to reverse.
        now: Time recorded for the undo.

    Returns:
        The entry, marked undone.

    Raises:
        UnknownNameError: No such entry.
        InvalidArgumentError: Already undone; a later entry (not undone) touched the same nodes
            or goals (undo it first); the graph changed since; or the graph cannot undo.
    """
    if not isinstance(graph, UndoableGraph):
        raise InvalidArgumentError(f"{type(graph).__name__} does not support undo")
    entries = journal.entries()
    index = next((i for i, e in enumerate(entries) if e.id == entry_id), None)
    if index is None:
        raise UnknownNameError(f"no journal entry {entry_id!r}")
    entry = entries[index]
    if entry.undone_at is not None:
        raise InvalidArgumentError(f"journal entry {entry_id} was already undone")
    mine = entry.touched()
    later = [e.id for e in entries[index + 1 :] if e.undone_at is None and e.touched() & mine]
    if later:
        raise InvalidArgumentError(
            f"journal entry {entry_id}: later entries change the same nodes or goals; "
            f"undo them first (newest first): {', '.join(reversed(later))}"
        )
    last: dict[str, dict[str, Any]] = {}
    for op in entry.ops:
        if op["op"] == "reweight_edge":
            last[_edge_key(op["edge"])] = op
            continue
        target = op.get("node") or op.get("goal") or op.get("after")
        if target is not None:
            last[op["op"].split("_")[-1] + ":" + target["id"]] = op
    for op in last.values():
        why = _check_current(graph, op)
        if why:
            raise InvalidArgumentError(f"journal entry {entry_id}: {why}; not undone")
    for op in reversed(entry.ops):
        _reverse(graph, op)
    journal.mark_undone(entry_id, now)
    entry.undone_at = now.isoformat()
    return entry


def summarise(entries: Sequence[JournalEntry]) -> list[dict[str, Any]]:
    """JSON-ready list of entries (newest last)."""
    return [e.to_dict() for e in entries]
