"""Load goals and knowledge into a graph port from a YAML or JSON file (``heedful engine load``).

Format (every section optional)::

    goals:
      - {id: ship-x, title: "Ship feature X", status: active, priority: high,
         due_at: "2026-04-01T00:00:00Z", linked_node_ids: [x1]}
    nodes:
      - {id: x1, type: semantic, content: "Feature X passes CI", confidence: 0.9}
    edges:
      - {source: x1, target: x2, type: supports}
    outcomes:
      - {status: failure, confidence: 0.8, goal_id: ship-x, node_ids: [x1], detail: "deploy failed"}
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from heedful.engine.ports import GraphPort
from heedful.engine.records import EdgeRecord, NodeRecord, OutcomeRecord
from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.model import EdgeType, NodeType, OutcomeStatus
from heedful.model.documents import read_document
from heedful.model.goal import Goal
from heedful.model.inputs import MAX_ENTRIES, Id, validate_strict


class _Node(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: Id
    type: NodeType = NodeType.SEMANTIC
    content: str = ""
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    metadata: dict[str, object] = Field(default_factory=dict)


class _Edge(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source: Id
    target: Id
    type: EdgeType = EdgeType.CAUSAL
    weight: float = Field(default=1.0, ge=0.0)


class _Outcome(BaseModel):
    model_config = ConfigDict(extra="forbid")
    status: OutcomeStatus
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    goal_id: Id | None = None
    node_ids: list[Id] = Field(default_factory=list, max_length=MAX_ENTRIES)
    detail: str = ""


class _SeedFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    goals: list[Goal] = Field(default_factory=list)
    nodes: list[_Node] = Field(default_factory=list)
    edges: list[_Edge] = Field(default_factory=list)
    outcomes: list[_Outcome] = Field(default_factory=list)


class SeedFile:
    """A seed file read and validated, not yet added to any graph (see :func:`read_seed_file`)."""

    def __init__(self, path: Path, seed: _SeedFile) -> None:
        self.path = path
        self.seed = seed


def read_seed_file(path: str | Path) -> SeedFile:
    """Read and validate a seed file without touching any store.

    Raises:
        InvalidArgumentError: The file cannot be read or is invalid (the message names the path
            inside the file, e.g. ``nodes.2.confidence``).
    """
    p = Path(path)
    data: Any = read_document(p)
    if data is not None and not isinstance(data, dict):
        raise InvalidArgumentError(
            f"{p}: a seed file must be a mapping with goals, nodes, edges and outcomes, "
            f"not {type(data).__name__}"
        )
    try:
        seed = validate_strict(_SeedFile, data or {})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise InvalidArgumentError(f"{p}:{where}: {first['msg']}") from None
    return SeedFile(p, seed)


def load_seed_file(graph: GraphPort, path: str | Path | SeedFile) -> dict[str, int]:
    """Validate the whole file, then add its nodes, edges, goals and outcomes to ``graph``.

    ``path`` may be a :class:`SeedFile` already read by :func:`read_seed_file`.

    Returns:
        How many of each were added.

    Raises:
        InvalidArgumentError: The file cannot be read or is invalid (the message names the path
            inside the file, e.g. ``nodes.2.confidence``), or it names ids that already exist
            or are unknown.
    """
    read = path if isinstance(path, SeedFile) else read_seed_file(path)
    p, seed = read.path, read.seed
    _check_references(graph, seed, p)
    for n in seed.nodes:
        graph.add_node(NodeRecord(n.id, n.type, n.content, n.confidence, None, n.metadata))
    for e in seed.edges:
        graph.add_edge(EdgeRecord(e.source, e.target, e.type, e.weight))
    for g in seed.goals:
        graph.add_goal(g)
    for o in seed.outcomes:
        graph.record_outcome(
            OutcomeRecord(o.status, o.confidence, o.goal_id, tuple(o.node_ids), o.detail)
        )
    return {
        "goals": len(seed.goals),
        "nodes": len(seed.nodes),
        "edges": len(seed.edges),
        "outcomes": len(seed.outcomes),
    }


def _check_references(graph: GraphPort, seed: _SeedFile, path: Path) -> None:
    """Refuse, before writing anything, ids that exist twice and references to unknown ids.

    Each error names the file and the place in it (``seed.yaml:edges.1.target: ...``).
    """
    new_nodes: set[str] = set()
    for i, n in enumerate(seed.nodes):
        if n.id in new_nodes or graph.get_nodes([n.id]):
            raise InvalidArgumentError(f"{path}:nodes.{i}.id: node '{n.id}' already exists")
        new_nodes.add(n.id)
    new_goals: set[str] = set()
    for i, g in enumerate(seed.goals):
        if g.id in new_goals or _goal_exists(graph, g.id):
            raise InvalidArgumentError(f"{path}:goals.{i}.id: goal '{g.id}' already exists")
        new_goals.add(g.id)
    wanted = [(f"edges.{i}.source", e.source) for i, e in enumerate(seed.edges)]
    wanted += [(f"edges.{i}.target", e.target) for i, e in enumerate(seed.edges)]
    wanted.sort(key=lambda w: (int(w[0].split(".")[1]), w[0].endswith("target")))
    wanted += [
        (f"outcomes.{i}.node_ids.{j}", node_id)
        for i, o in enumerate(seed.outcomes)
        for j, node_id in enumerate(o.node_ids)
    ]
    for i, g in enumerate(seed.goals):
        if len(g.linked_node_ids) > MAX_ENTRIES:
            raise InvalidArgumentError(
                f"{path}:goals.{i}.linked_node_ids: at most {MAX_ENTRIES} nodes, "
                f"got {len(g.linked_node_ids):,}"
            )
        wanted += [(f"goals.{i}.linked_node_ids.{j}", n) for j, n in enumerate(g.linked_node_ids)]
    missing = {node_id for _, node_id in wanted} - new_nodes
    if missing:
        missing -= {n.id for n in graph.get_nodes(sorted(missing))}
    for where, node_id in wanted:
        if node_id in missing:
            raise InvalidArgumentError(f"{path}:{where}: unknown node '{node_id}'")
    for i, o in enumerate(seed.outcomes):
        if (
            o.goal_id is not None
            and o.goal_id not in new_goals
            and not _goal_exists(graph, o.goal_id)
        ):
            raise InvalidArgumentError(f"{path}:outcomes.{i}.goal_id: unknown goal '{o.goal_id}'")


def _goal_exists(graph: GraphPort, goal_id: str) -> bool:
    try:
        graph.get_goal(goal_id)
    except UnknownNameError:
        return False
    return True
