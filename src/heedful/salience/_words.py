"""Word splitting and normalisation shared by the subsystems (private)."""

from __future__ import annotations

from heedful.salience.config import SalienceConfig


def split_words(text: str) -> list[str]:
    """Split on any run of whitespace (document 003 §1), dropping nothing."""
    return text.split()


def normalise(word: str, config: SalienceConfig) -> str:
    """Strip the configured punctuation from both ends of ``word``; case is kept."""
    return word.strip(config.strip_chars)


def key(word: str, config: SalienceConfig) -> str:
    """The comparison key of a word: stripped and lower-cased."""
    return normalise(word, config).lower()
