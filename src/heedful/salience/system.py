"""The pipeline that runs the five subsystems over one conversation (document 003)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from heedful.errors import InvalidArgumentError
from heedful.salience.config import DEFAULT_CONFIG, SalienceConfig
from heedful.salience.history import history_texts, message_text
from heedful.salience.state import AttentionState
from heedful.salience.subsystems import (
    AlertingAttention,
    ExecutiveAttention,
    OrientingAttention,
    SelectiveAttention,
    SustainedAttention,
)

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
        self.alerting = AlertingAttention()
        self.orienting = OrientingAttention()
        self.sustained = SustainedAttention(config)
        self.selective = SelectiveAttention()
        self.executive = ExecutiveAttention()

    @property
    def started(self) -> bool:
        """Whether this conversation has had a turn (without ``history``) yet."""
        return self.sustained.previous_topics is not None

    @property
    def focus_duration(self) -> int:
        """Focus duration of the last turn processed; 0 before the first turn."""
        return self.sustained.focus_duration

    def filter(self, fragments: Sequence[str], state: AttentionState) -> list[str]:
        """Selective attention with this turn's ``context_filter`` (document 003 §4, runtime 2).

        Example:
            >>> attn = AttentionSystem()
            >>> attn.filter(["Docker ports", "Python venv"], attn.process("about Docker"))
            ['Docker ports']
        """
        return self.selective.filter(fragments, state.context_filter, config=self.config)

    def context_depth(self, state: AttentionState) -> int:
        """How much history to retrieve for this turn: longer focus, deeper context.

        Document 003's runtime step 4 ("longer focus = more history for this topic"):
        ``base + per_turn × (focus_duration − 1)``, capped (numbers in :class:`SalienceConfig`).

        Example:
            >>> attn = AttentionSystem()
            >>> [attn.context_depth(attn.process("about Docker")) for _ in range(3)]
            [5, 10, 15]
        """
        c = self.config
        depth = c.context_depth_base + c.context_depth_per_turn * max(0, state.focus_duration - 1)
        return min(c.context_depth_cap, depth)

    def reset(self) -> None:
        """Forget the conversation: the next turn is a first turn again."""
        self.sustained.reset()

    def observe(self, history: Sequence[str | Mapping[str, Any]]) -> None:
        """Advance this conversation over earlier turns without returning their states.

        Args:
            history: Strings or chat messages, oldest first (see :meth:`process`).

        Raises:
            InvalidArgumentError: An item of ``history`` is malformed; the message names it.
        """
        for earlier in history_texts(history):
            self.process(earlier)

    def process(
        self,
        user_input: str | Mapping[str, Any],
        history: Sequence[str | Mapping[str, Any]] | None = None,
    ) -> AttentionState:
        """Run the five subsystems on one turn.

        The signature is Missy's (``process(user_input, history=None)``), so code written for
        ``missy.agent.attention`` calls it unchanged; ``docs/salience.md`` lists where the
        answers differ and why.

        Args:
            user_input: This turn's user input: a string, or a ``user`` chat message
                (``{"role": "user", "content": ...}``).
            history: Optional earlier turns of the conversation, oldest first: strings (each a
                user turn) or chat messages (mappings with ``role`` and ``content``; ``content``
                a string, a list of text parts, or one part). Only ``user`` messages are turns;
                ``assistant``, ``system``, ``developer``, ``tool`` and ``function`` messages are
                skipped (see :mod:`heedful.salience.history`). When given, the call is
                stateless: focus is computed by replaying the user turns then ``text`` from a
                first turn, and the instance's own state is neither read nor changed. When
                ``None``, the instance's state is used and advanced.

        Returns:
            The state of this turn.

        Raises:
            InvalidArgumentError: ``user_input`` is not a string or user message, or an item of
                ``history`` is malformed; the message names the offending item.

        Example:
            >>> AttentionSystem().process(
            ...     "More about Docker",
            ...     [{"role": "user", "content": "Tell me about Docker"},
            ...      {"role": "assistant", "content": "Docker is a container runtime."}],
            ... ).focus_duration
            2
        """
        text = self._turn_text(user_input)
        if history is not None:
            replay = AttentionSystem(self.config)
            replay.observe(history)
            return replay.process(text)
        cfg = self.config
        topics = self.orienting.extract(text, config=cfg)
        duration = self.sustained.update(topics)
        urgency = self.alerting.score(text, config=cfg)
        return AttentionState(
            urgency=urgency,
            topics=list(topics),
            focus_duration=duration,
            priority_tools=self.executive.prioritize(urgency, topics, config=cfg),
            # Missy's form: the topics lower-cased (selective attention compares lower-cased).
            context_filter=[t.lower() for t in topics],
        )

    @staticmethod
    def _turn_text(text: object) -> str:
        if isinstance(text, str):
            return text
        if isinstance(text, Mapping):
            if text.get("role") != "user":
                raise InvalidArgumentError(
                    f"user_input: a chat message passed as the turn must have role 'user', "
                    f"got {text.get('role')!r}"
                )
            if "content" not in text:
                raise InvalidArgumentError("user_input.content: a user message needs 'content'")
            return message_text(text["content"], "user_input.content")
        raise InvalidArgumentError(
            f"user_input: must be a string or a user chat message, got {type(text).__name__}"
        )
