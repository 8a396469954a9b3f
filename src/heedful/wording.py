"""Small wording helpers for text people and models read: counts and indefinite articles.

Pure string functions, importable from every part (they import nothing of ours).
"""

from __future__ import annotations

__all__ = ["count", "indefinite"]

_IRREGULAR = {"family": "families", "policy": "policies", "entry": "entries", "was": "were"}
#: Words whose first letter is a vowel but that start with a consonant sound, and the reverse.
_A_BEFORE = ("one", "uni", "use", "usa", "eu", "ure")
_AN_BEFORE = ("hour", "honest", "heir")


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun`` in the right number: ``count(1, "scenario")`` is ``"1 scenario"``.

    Example:
        >>> count(1, "scenario"), count(2, "scenario"), count(0, "family")
        ('1 scenario', '2 scenarios', '0 families')
    """
    if n == 1:
        return f"{n} {noun}"
    return f"{n} {plural or _IRREGULAR.get(noun, noun + 's')}"


def indefinite(phrase: str) -> str:
    """``phrase`` with ``a`` or ``an`` before it, by its first sound (a rule of thumb for the
    generators' vocabulary, not a dictionary).

    Example:
        >>> indefinite("indexer change"), indefinite("cache change"), indefinite("API gateway")
        ('an indexer change', 'a cache change', 'an API gateway')
    """
    word = phrase.lstrip()
    lower = word.lower()
    if lower.startswith(_AN_BEFORE):
        article = "an"
    elif lower.startswith(_A_BEFORE):
        article = "a"
    elif word[:2].isupper() and word[:1] in "AEFHILMNORSX":
        article = "an"  # an initialism read letter by letter: "an API", "an SQL"
    else:
        article = "an" if lower[:1] in "aeiou" else "a"
    return f"{article} {phrase}"
