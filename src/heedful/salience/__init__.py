"""heedful.salience — the five-subsystem salience pipeline of document 003.

Pure: no I/O, no clock. One :class:`AttentionSystem` per conversation; the subsystem functions
are public so other parts (e.g. the benchmark's ``salience-003`` policy) can use them directly.
"""

from __future__ import annotations

from heedful.salience.alerting import alerting_urgency, urgency_counts
from heedful.salience.config import DEFAULT_CONFIG, SalienceConfig
from heedful.salience.executive import executive_tools
from heedful.salience.history import history_texts, message_text
from heedful.salience.orienting import orienting_topics
from heedful.salience.selective import selective_filter
from heedful.salience.state import AttentionState
from heedful.salience.subsystems import (
    AlertingAttention,
    ExecutiveAttention,
    OrientingAttention,
    SelectiveAttention,
    SustainedAttention,
)
from heedful.salience.sustained import focus_durations, sustained_focus, topic_overlap
from heedful.salience.system import AttentionSystem

__all__ = [
    "DEFAULT_CONFIG",
    "AlertingAttention",
    "AttentionState",
    "AttentionSystem",
    "ExecutiveAttention",
    "OrientingAttention",
    "SalienceConfig",
    "SelectiveAttention",
    "SustainedAttention",
    "alerting_urgency",
    "executive_tools",
    "focus_durations",
    "history_texts",
    "message_text",
    "orienting_topics",
    "selective_filter",
    "sustained_focus",
    "topic_overlap",
    "urgency_counts",
]
