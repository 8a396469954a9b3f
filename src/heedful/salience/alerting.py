"""Alerting attention: urgency from keywords (document 003, §1 Alerting Attention)."""

from __future__ import annotations

from heedful.salience._words import key, split_words
from heedful.salience.config import DEFAULT_CONFIG, SalienceConfig

__all__ = ["alerting_urgency", "urgency_counts"]


def urgency_counts(text: str, *, config: SalienceConfig = DEFAULT_CONFIG) -> tuple[int, int]:
    """Count urgency-keyword matches and words in ``text``.

    Words are the whitespace-separated tokens; a token is lower-cased and stripped of
    ``! . , ? ; :`` at both ends before it is compared. Every occurrence counts, so a repeated
    keyword matches each time. A token made only of punctuation still counts as a word.

    Args:
        text: The user input.
        config: Keyword list and punctuation.

    Returns:
        ``(matches, words)``.
    """
    words = split_words(text)
    matches = sum(1 for w in words if key(w, config) in config.urgency_keywords)
    return matches, len(words)


def alerting_urgency(text: str, *, config: SalienceConfig = DEFAULT_CONFIG) -> float:
    """Urgency of ``text``: keyword matches ÷ words, capped at ``config.urgency_cap``.

    Args:
        text: The user input.
        config: Keyword list, punctuation and cap.

    Returns:
        A score in ``[0, 1]``; ``0.0`` for input without words.

    Example:
        >>> round(alerting_urgency("The server is down! Fix it immediately!"), 3)
        0.286
    """
    matches, words = urgency_counts(text, config=config)
    if words == 0:
        return 0.0
    return min(config.urgency_cap, matches / words)
