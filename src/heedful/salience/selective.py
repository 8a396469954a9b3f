"""Selective attention: keep the relevant fragments (document 003, §4 Selective Attention)."""

from __future__ import annotations

from collections.abc import Sequence

from heedful.salience._words import key, split_words
from heedful.salience.config import DEFAULT_CONFIG, SalienceConfig

__all__ = ["selective_filter"]


def selective_filter(
    fragments: Sequence[str],
    topics: Sequence[str],
    *,
    config: SalienceConfig = DEFAULT_CONFIG,
) -> list[str]:
    """Keep the fragments in which at least one topic word appears.

    A fragment is one string as given (e.g. one memory item); it is not split further. A topic
    appears in it when one of the fragment's whitespace-separated words, stripped of
    ``! . , ? ; :`` and lower-cased, equals the lower-cased topic: whole words, not substrings
    (``config`` does not match ``configuration``).

    Args:
        fragments: Candidate fragments, in order.
        topics: The current topics (``AttentionState.context_filter``).
        config: Punctuation.

    Returns:
        The kept fragments in their original order (duplicates kept); every fragment when
        ``topics`` is empty.

    Example:
        >>> selective_filter(
        ...     ["Docker port mapping guide", "Python venv setup", "Docker compose networking"],
        ...     ["Docker", "networking"],
        ... )
        ['Docker port mapping guide', 'Docker compose networking']
    """
    wanted = {key(t, config) for t in topics} - {""}
    if not wanted:
        return list(fragments)
    return [f for f in fragments if any(key(w, config) in wanted for w in split_words(f))]
