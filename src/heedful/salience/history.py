"""Conversation history as the pipeline reads it: strings or chat messages (document 003).

Document 003 runs the pipeline on "the user message" at the start of each agent iteration, so
the turns of a conversation are its **user** messages. Agents hold their history as chat
messages (OpenAI-style ``{"role": ..., "content": ...}``, MCP prompt messages); this module turns
such a history into the list of user-turn texts the subsystems read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from heedful.errors import InvalidArgumentError

__all__ = ["COUNTED_ROLES", "KNOWN_ROLES", "history_texts", "message_text"]

#: Roles whose messages are turns of the conversation (document 003: "analyzes the user message").
COUNTED_ROLES: frozenset[str] = frozenset({"user"})

#: Roles that are accepted and skipped: the agent's own output, instructions and tool results are
#: not user input, so they neither raise urgency nor move focus.
KNOWN_ROLES: frozenset[str] = COUNTED_ROLES | frozenset(
    {"assistant", "system", "developer", "tool", "function"}
)


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _part_text(part: Any, where: str) -> str | None:
    """Text of one content part; ``None`` for a non-text part (image, audio, file...)."""
    if isinstance(part, str):
        return part
    if not isinstance(part, Mapping):
        raise InvalidArgumentError(
            f"{where}: a content part must be a string or an object, got {_short(part)}"
        )
    kind = part.get("type", "text")
    if not isinstance(kind, str):
        raise InvalidArgumentError(f"{where}.type: must be a string, got {_short(kind)}")
    if kind != "text":
        return None
    text = part.get("text")
    if not isinstance(text, str):
        raise InvalidArgumentError(f"{where}.text: a text part needs a string 'text'")
    return text


def message_text(content: Any, where: str = "content") -> str:
    """The text of a chat message's ``content``.

    Args:
        content: A string; a list of parts (strings, or objects with ``type`` and, for
            ``type: "text"``, a string ``text``); or one such part object (MCP messages).
            Non-text parts (images, audio, files) are skipped; text parts are joined by a
            newline, which the subsystems treat as ordinary whitespace.
        where: Location used in error messages.

    Returns:
        The message text (empty when it has no text part).

    Raises:
        InvalidArgumentError: ``content`` has another shape; the message names where.
    """
    if isinstance(content, str):
        return content
    parts: Sequence[Any]
    if isinstance(content, Mapping):
        parts, locations = [content], [where]
    elif isinstance(content, Sequence) and not isinstance(content, bytes | bytearray):
        parts, locations = content, [f"{where}[{i}]" for i in range(len(content))]
    else:
        raise InvalidArgumentError(
            f"{where}: must be a string, a list of content parts or one part, got {_short(content)}"
        )
    texts = [_part_text(p, loc) for p, loc in zip(parts, locations, strict=True)]
    return "\n".join(t for t in texts if t is not None)


def history_texts(history: Sequence[Any], where: str = "history") -> list[str]:
    """The user-turn texts of a conversation history, oldest first.

    Args:
        history: Items, oldest first. A string is one user turn. A mapping is a chat message
            with a string ``role`` and a ``content`` (see :func:`message_text`); only ``user``
            messages are turns, messages of the other known roles (``assistant``, ``system``,
            ``developer``, ``tool``, ``function``) are skipped without reading their content.
        where: Name used in error messages (``history[3].role: ...``).

    Returns:
        One text per user turn.

    Raises:
        InvalidArgumentError: ``history`` is not a list, or an item is neither a string nor a
            chat message, has an unknown role or a user message has malformed content; the
            message names the offending item.

    Example:
        >>> history_texts(["hi", {"role": "assistant", "content": "hello"},
        ...                {"role": "user", "content": [{"type": "text", "text": "Docker?"}]}])
        ['hi', 'Docker?']
    """
    if isinstance(history, str | bytes | bytearray | Mapping) or not isinstance(history, Sequence):
        raise InvalidArgumentError(
            f"{where}: must be a list of strings or chat messages, got {_short(history)}"
        )
    texts: list[str] = []
    for i, item in enumerate(history):
        at = f"{where}[{i}]"
        if isinstance(item, str):
            texts.append(item)
            continue
        if not isinstance(item, Mapping):
            raise InvalidArgumentError(
                f"{at}: must be a string or a chat message {{role, content}}, got {_short(item)}"
            )
        role = item.get("role")
        if not isinstance(role, str):
            raise InvalidArgumentError(f"{at}.role: a chat message needs a string 'role'")
        if role not in KNOWN_ROLES:
            raise InvalidArgumentError(
                f"{at}.role: unknown role {role!r} (known: {', '.join(sorted(KNOWN_ROLES))})"
            )
        if role not in COUNTED_ROLES:
            continue
        if "content" not in item:
            raise InvalidArgumentError(f"{at}.content: a user message needs 'content'")
        texts.append(message_text(item["content"], f"{at}.content"))
    return texts
