"""Document 003's class API: one class per subsystem, as Missy's ``attention.py`` names them.

The rules live in the function modules (:mod:`~heedful.salience.alerting`, …); these classes are
the document's surface over them. The four stateless subsystems expose static methods, so both
``SelectiveAttention.filter(fragments=..., topics=...)`` (the document's call) and an instance
work; :class:`SustainedAttention` keeps the one piece of state the pipeline has.

Missy's own method names are aliases of heedful's, so code written against Missy's
``missy/agent/attention.py`` runs unchanged: ``OrientingAttention().extract_topics(text)`` is
:meth:`OrientingAttention.extract` and ``ExecutiveAttention.prioritise(urgency, topics)`` is
:meth:`ExecutiveAttention.prioritize` (``score``, ``update`` and ``filter`` already share
Missy's names).
"""

from __future__ import annotations

from collections.abc import Sequence

from heedful.salience.alerting import alerting_urgency
from heedful.salience.config import DEFAULT_CONFIG, SalienceConfig
from heedful.salience.executive import executive_tools
from heedful.salience.orienting import orienting_topics
from heedful.salience.selective import selective_filter
from heedful.salience.sustained import sustained_focus

__all__ = [
    "AlertingAttention",
    "ExecutiveAttention",
    "OrientingAttention",
    "SelectiveAttention",
    "SustainedAttention",
]


class AlertingAttention:
    """§1: detect urgent signals."""

    @staticmethod
    def score(text: str, *, config: SalienceConfig = DEFAULT_CONFIG) -> float:
        """Urgency of ``text`` in [0, 1] (see :func:`~heedful.salience.alerting_urgency`).

        Example:
            >>> round(AlertingAttention.score("The server is down! Fix it immediately!"), 3)
            0.286
        """
        return alerting_urgency(text, config=config)


class OrientingAttention:
    """§2: identify what the user is focused on."""

    @staticmethod
    def extract(text: str, *, config: SalienceConfig = DEFAULT_CONFIG) -> list[str]:
        """Topics of ``text`` (see :func:`~heedful.salience.orienting_topics`).

        Example:
            >>> OrientingAttention.extract("Tell me about Docker")
            ['Docker']
        """
        return orienting_topics(text, config=config)

    #: Missy's name for :meth:`extract`.
    extract_topics = extract


class SustainedAttention:
    """§3: topic continuity across turns (the pipeline's only state).

    Args:
        config: The overlap threshold.

    Example:
        >>> sustained = SustainedAttention()
        >>> [sustained.update(t) for t in (["Docker"], ["Docker", "networking"], ["Nginx"])]
        [1, 2, 1]
    """

    def __init__(self, config: SalienceConfig = DEFAULT_CONFIG) -> None:
        self.config = config
        self.previous_topics: list[str] | None = None
        self.focus_duration = 0

    def update(self, topics: Sequence[str]) -> int:
        """Take this turn's topics; return its focus duration (1 on the first turn)."""
        self.focus_duration = sustained_focus(
            self.previous_topics, self.focus_duration, topics, config=self.config
        )
        self.previous_topics = list(topics)
        return self.focus_duration

    def reset(self) -> None:
        """Forget the conversation."""
        self.previous_topics = None
        self.focus_duration = 0


class SelectiveAttention:
    """§4: filter memory fragments to the relevant subset."""

    @staticmethod
    def filter(
        fragments: Sequence[str],
        topics: Sequence[str],
        *,
        config: SalienceConfig = DEFAULT_CONFIG,
    ) -> list[str]:
        """Fragments in which a topic word appears; all of them when there are no topics.

        Example:
            >>> SelectiveAttention.filter(
            ...     fragments=["Docker port mapping guide", "Python venv setup",
            ...                "Docker compose networking"],
            ...     topics=["Docker", "networking"],
            ... )
            ['Docker port mapping guide', 'Docker compose networking']
        """
        return selective_filter(fragments, topics, config=config)


class ExecutiveAttention:
    """§5: which tools to prioritise."""

    @staticmethod
    def prioritize(
        urgency: float, topics: Sequence[str], *, config: SalienceConfig = DEFAULT_CONFIG
    ) -> list[str]:
        """Priority tools for this urgency and these topics (see §5's table).

        Example:
            >>> ExecutiveAttention.prioritize(0.9, ["logs"])
            ['shell_exec', 'file_read', 'file_write']
        """
        return executive_tools(urgency, topics, config=config)

    #: Missy's (British) name for :meth:`prioritize`.
    prioritise = prioritize
