"""Sustained attention: topic continuity across turns (document 003, §3 Sustained Attention)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from heedful.salience.config import DEFAULT_CONFIG, SalienceConfig

__all__ = ["focus_durations", "sustained_focus", "topic_overlap"]


def topic_overlap(previous: Sequence[str], current: Sequence[str]) -> float:
    """Fraction of the previous turn's topics that recur now, compared case-insensitively.

    Args:
        previous: Topics of the previous turn.
        current: Topics of this turn.

    Returns:
        ``|previous ∩ current| / |previous|`` over lower-cased distinct topics; ``0.0`` when the
        previous turn had no topics.
    """
    prev = {t.lower() for t in previous}
    if not prev:
        return 0.0
    return len(prev & {t.lower() for t in current}) / len(prev)


def sustained_focus(
    previous: Sequence[str] | None,
    previous_duration: int,
    current: Sequence[str],
    *,
    config: SalienceConfig = DEFAULT_CONFIG,
) -> int:
    """Focus duration of this turn from the previous turn's topics and duration.

    Args:
        previous: Topics of the previous turn, or ``None`` on the first turn.
        previous_duration: Focus duration of the previous turn (ignored on the first turn).
        current: Topics of this turn.
        config: The overlap threshold.

    Returns:
        ``1`` on the first turn; ``previous_duration + 1`` when strictly more than
        ``config.sustained_overlap_threshold`` of the previous topics recur; else ``1``.
    """
    if previous is None:
        return 1
    if topic_overlap(previous, current) > config.sustained_overlap_threshold:
        return previous_duration + 1
    return 1


def focus_durations(
    turns: Iterable[Sequence[str]], *, config: SalienceConfig = DEFAULT_CONFIG
) -> list[int]:
    """Focus duration of every turn of a conversation, given each turn's topics in order.

    Args:
        turns: The topics of each turn, oldest first.
        config: The overlap threshold.

    Returns:
        One duration per turn.
    """
    durations: list[int] = []
    previous: Sequence[str] | None = None
    for topics in turns:
        durations.append(
            sustained_focus(previous, durations[-1] if durations else 0, topics, config=config)
        )
        previous = topics
    return durations
