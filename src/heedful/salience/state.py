"""The output of the pipeline (document 003, "AttentionState")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["AttentionState"]


@dataclass(frozen=True)
class AttentionState:
    """What the five subsystems say about one turn.

    Attributes:
        urgency: Urgency score in ``[0.0, 1.0]`` (alerting).
        topics: Extracted focus topics / entities (orienting).
        focus_duration: Consecutive turns on the same topic, starting at 1 (sustained).
        priority_tools: Tools to prioritise given the current state (executive).
        context_filter: Topic words for filtering memory retrieval (selective); pass it to
            :func:`heedful.salience.selective_filter`.
    """

    urgency: float = 0.0
    topics: list[str] = field(default_factory=list)
    focus_duration: int = 1
    priority_tools: list[str] = field(default_factory=list)
    context_filter: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary of the fields (lists copied)."""
        return {
            "urgency": self.urgency,
            "topics": list(self.topics),
            "focus_duration": self.focus_duration,
            "priority_tools": list(self.priority_tools),
            "context_filter": list(self.context_filter),
        }
