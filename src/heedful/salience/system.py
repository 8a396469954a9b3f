"""The pipeline that runs the five subsystems over one conversation (document 003)."""

from __future__ import annotations

from collections.abc import Sequence

from heedful.salience.alerting import alerting_urgency
from heedful.salience.config import DEFAULT_CONFIG, SalienceConfig
from heedful.salience.executive import executive_tools
from heedful.salience.orienting import orienting_topics
from heedful.salience.state import AttentionState
from heedful.salience.sustained import sustained_focus

__all__ = ["AttentionSystem"]


class AttentionSystem:
    """The five-subsystem salience pipeline for **one** conversation.

    The only state is sustained attention's memory of the previous turn (its topics and focus
    duration); it lives on the instance, so two instances never share focus. Use one instance per
    conversation. Nothing here reads a clock or does I/O.

    Args:
        config: Constants of the subsystems; defaults to document 003's.

    Example:
        >>> attn = AttentionSystem()
        >>> attn.process("The server is down! Fix it immediately!").topics
        ['server']
        >>> attn.process("Check the server error logs").focus_duration
        2
    """

    def __init__(self, config: SalienceConfig = DEFAULT_CONFIG) -> None:
        self.config = config
        self._previous_topics: list[str] | None = None
        self._duration = 0

    @property
    def started(self) -> bool:
        """Whether this conversation has had a turn (without ``history``) yet."""
        return self._previous_topics is not None

    @property
    def focus_duration(self) -> int:
        """Focus duration of the last turn processed; 0 before the first turn."""
        return self._duration

    def reset(self) -> None:
        """Forget the conversation: the next turn is a first turn again."""
        self._previous_topics = None
        self._duration = 0

    def process(self, text: str, history: Sequence[str] | None = None) -> AttentionState:
        """Run the five subsystems on one turn.

        Args:
            text: This turn's user input.
            history: Optional texts of the earlier turns of the conversation, oldest first. When
                given, the call is stateless: focus is computed by replaying ``history`` then
                ``text`` from a first turn, and the instance's own state is neither read nor
                changed. When ``None``, the instance's state is used and advanced.

        Returns:
            The state of this turn.
        """
        topics = orienting_topics(text, config=self.config)
        if history is None:
            duration = sustained_focus(
                self._previous_topics, self._duration, topics, config=self.config
            )
            self._previous_topics = list(topics)
            self._duration = duration
        else:
            replay = AttentionSystem(self.config)
            for earlier in history:
                replay.process(earlier)
            duration = replay.process(text).focus_duration
        urgency = alerting_urgency(text, config=self.config)
        return AttentionState(
            urgency=urgency,
            topics=list(topics),
            focus_duration=duration,
            priority_tools=executive_tools(urgency, topics, config=self.config),
            context_filter=list(topics),
        )
