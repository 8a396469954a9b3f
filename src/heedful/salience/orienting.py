"""Orienting attention: topics of an input (document 003, §2 Orienting Attention)."""

from __future__ import annotations

from heedful.salience._words import key, normalise, split_words
from heedful.salience.config import DEFAULT_CONFIG, SalienceConfig

__all__ = ["orienting_topics"]

# Closing quotes and brackets may follow a sentence's final punctuation: `down!"` still ends it.
_CLOSERS = "\"')]}»”’"


def _ends_sentence(word: str, config: SalienceConfig) -> bool:
    return word.rstrip(_CLOSERS).endswith(tuple(config.sentence_end_chars))


def orienting_topics(text: str, *, config: SalienceConfig = DEFAULT_CONFIG) -> list[str]:
    """Extract the topics of ``text`` by the two heuristics of document 003 §2.

    A word is a topic when, after stripping ``! . , ? ; :`` from both ends,

    * it starts with an upper-case letter and is not the first word of a sentence (the first word
      of the text, or a word whose predecessor ends in ``.``, ``!`` or ``?``), or
    * it follows one of ``about``, ``with``, ``for``, ``the`` (any case) in the same sentence.

    Topics keep their spelling, come in text order, and are de-duplicated case-insensitively
    (the first spelling wins).

    Args:
        text: The user input.
        config: Prepositions, punctuation and sentence ends.

    Returns:
        The topics, possibly empty.

    Example:
        >>> orienting_topics("Tell me about the Docker configuration for Nginx")
        ['the', 'Docker', 'Nginx']
    """
    words = split_words(text)
    topics: list[str] = []
    seen: set[str] = set()
    for i, raw in enumerate(words):
        word = normalise(raw, config)
        if not word:
            continue
        sentence_start = i == 0 or _ends_sentence(words[i - 1], config)
        capitalised = word[0].isupper() and not sentence_start
        after_preposition = (
            not sentence_start and key(words[i - 1], config) in config.topic_prepositions
        )
        if (capitalised or after_preposition) and word.lower() not in seen:
            seen.add(word.lower())
            topics.append(word)
    return topics
