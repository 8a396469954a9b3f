"""Executive attention: which tools to prioritise (document 003, §5 Executive Attention)."""

from __future__ import annotations

from collections.abc import Sequence

from heedful.salience._words import key
from heedful.salience.config import DEFAULT_CONFIG, SalienceConfig

__all__ = ["executive_tools"]


def executive_tools(
    urgency: float, topics: Sequence[str], *, config: SalienceConfig = DEFAULT_CONFIG
) -> list[str]:
    """Tools to prioritise given urgency and topics.

    * urgency strictly above ``config.executive_urgency_threshold`` (0.5) → ``shell_exec``,
      ``file_read``;
    * a topic that is a file-related word (compared lower-cased) → ``file_read``, ``file_write``;
    * both → the union in that order (``shell_exec``, ``file_read``, ``file_write``);
    * neither → no override (empty list).

    Args:
        urgency: Alerting score.
        topics: Orienting topics.
        config: Threshold, tool names and file words.

    Returns:
        Tool names, without duplicates.
    """
    tools: list[str] = []
    if urgency > config.executive_urgency_threshold:
        tools.extend(config.urgent_tools)
    if any(key(t, config) in config.file_words for t in topics):
        tools.extend(t for t in config.file_tools if t not in tools)
    return tools
