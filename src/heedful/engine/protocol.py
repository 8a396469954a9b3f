"""[&] protocol view of the engine (document 002 §4, Gate E).

Attention stays inside the ``&reason`` primitive (§4.1, §9): the engine is the
``&reason.attend`` capability, whose contract (§4.4) chains survey → triage → dispatch and feeds
``&reason.deliberate`` and ``&memory.graph``. :func:`check_pipeline` type-checks a pipeline of
operations against these contracts (§4.5, §4.9).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from heedful.errors import InvalidArgumentError

#: Contracts of §4.4; ``method`` names the :class:`heedful.engine.Engine` member implementing it.
CONTRACTS: dict[str, dict[str, Any]] = {
    "&reason.attend": {
        "capability": "&reason.attend",
        "operations": {
            "survey": {"in": "context", "out": "attention_map", "method": "attention_map"},
            "triage": {"in": "attention_map", "out": "attention_map", "method": "attention_map"},
            "dispatch": {"in": "attention_map", "out": "attention_cycle", "method": "arun_cycle"},
        },
        "accepts_from": ["&memory.graph", "&reason.*", "context"],
        "feeds_into": ["&reason.deliberate", "&memory.graph", "output"],
        "a2a_skills": ["proactive-attention", "autonomous-planning"],
    },
    "&reason.deliberate": {
        "capability": "&reason.deliberate",
        "operations": {
            "deliberate": {"in": "topology_result", "out": "deliberation_result"},
            "decompose": {"in": "topology_result", "out": "partitions"},
            "reconcile": {"in": "intermediate_conclusions", "out": "deliberation_result"},
        },
        "accepts_from": ["&memory.graph", "&memory.*"],
        "feeds_into": ["&memory.graph", "&reason.*", "output"],
        "a2a_skills": ["topology-aware-deliberation"],
    },
    "&memory.graph": {
        "capability": "&memory.graph",
        "operations": {
            "recall": {"in": "query", "out": "context"},
            "topology": {"in": "context", "out": "topology_result"},
            "explore": {"in": "attention_map", "out": "context"},
            "store": {"in": "*", "out": "context"},
            "enrich": {"in": "context", "out": "context"},
        },
        "accepts_from": ["*"],
        "feeds_into": ["*"],
        "a2a_skills": ["graph-memory"],
    },
}

# Capabilities §4.8/§4.9 use whose contracts live in other [&] prompts, not in document 002.
# Their shapes here are ours and minimal: enough to type-check the document's pipelines.
CONTRACTS.update(
    {
        "&time.anomaly": {
            "capability": "&time.anomaly",
            "operations": {"detect": {"in": "context", "out": "context"}},
            "accepts_from": ["*"],
            "feeds_into": ["*"],
        },
        "&space.fleet": {
            "capability": "&space.fleet",
            "operations": {"locate": {"in": "*", "out": "*"}},
            "accepts_from": ["*"],
            "feeds_into": ["*"],
        },
        "&reason.argument": {
            "capability": "&reason.argument",
            "operations": {"evaluate": {"in": "*", "out": "verdict"}},
            "accepts_from": ["*"],
            "feeds_into": ["output"],
        },
    }
)

#: The primitives of the protocol (§4.1): attention adds none.
PRIMITIVES = ("&memory", "&reason", "&time", "&space", "&body", "&govern")

#: Source types a pipeline may start from (runtime triggers, §4.5).
SOURCES = {"heartbeat": "context", "query": "query", "stream_data": "context"}


def check_pipeline(source: str, steps: Sequence[str]) -> list[str]:
    """Type-check a pipeline such as ``heartbeat |> &reason.attend.survey() |> ...``.

    Args:
        source: The starting trigger (``heartbeat``, ``query``, ``stream_data``).
        steps: Operations as ``"&capability.operation"``.

    Returns:
        The type after each step.

    Raises:
        InvalidArgumentError: An unknown operation, or one whose input type does not match.
    """
    if source not in SOURCES:
        raise InvalidArgumentError(f"unknown pipeline source {source!r}")
    current = SOURCES[source]
    types = []
    for raw in steps:
        step = raw.split("(", 1)[0].strip()  # "&reason.deliberate(budget: :κ)" → the name
        if step in CONTRACTS:
            # A bare capability runs its operation of the same name (&reason.deliberate).
            capability, operation = step, step.rpartition(".")[2]
        else:
            capability, _, operation = step.rpartition(".")
        contract = CONTRACTS.get(capability)
        if contract is None or operation not in contract["operations"]:
            raise InvalidArgumentError(f"unknown operation {step!r}")
        op = contract["operations"][operation]
        if op["in"] not in ("*", current):
            raise InvalidArgumentError(f"{step} expects {op['in']}, got {current}")
        current = current if op["out"] == "*" else op["out"]
        types.append(current)
    return types


def check_pipeline_text(text: str) -> list[str]:
    """Type-check a pipeline written as in document 002 (``a |> b() |> c()``, ``#`` comments).

    Example:
        >>> check_pipeline_text("heartbeat |> &reason.attend.survey() |> &reason.attend.triage()")
        ['attention_map', 'attention_map']
    """
    lines = [line.split("#", 1)[0] for line in text.splitlines()]
    parts = [p.strip() for p in " ".join(lines).split("|>") if p.strip()]
    if not parts:
        raise InvalidArgumentError("empty pipeline")
    return check_pipeline(parts[0], parts[1:])
