"""A depth limit for parsed YAML/JSON documents.

The YAML and JSON parsers recurse once per level of nesting, and so does everything that walks
the parsed value afterwards: a deeply nested file (depth ≥ ~600) would end in a
``RecursionError`` traceback. :func:`parse_bounded` turns that into :class:`NestingError`, and
refuses parsed values nested deeper than :data:`MAX_DEPTH`, so each loader can report one line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["MAX_DEPTH", "NestingError", "nesting_depth", "parse_bounded"]

MAX_DEPTH = 100
"""Deepest nesting of lists and mappings a heedful input file may have (real files use < 10)."""


class NestingError(ValueError):
    """A document is nested deeper than :data:`MAX_DEPTH`."""

    def __init__(self) -> None:
        super().__init__(f"nested deeper than {MAX_DEPTH} levels")


def nesting_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """Depth of nested lists and mappings in ``value`` (iterative; stops once past ``limit``)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        stack.extend((child, depth) for child in children)
    return deepest


def parse_bounded(parse: Callable[[], Any]) -> Any:
    """Run a parser and refuse what is nested too deeply.

    Args:
        parse: Parses the document (e.g. ``lambda: yaml.safe_load(text)``).

    Raises:
        NestingError: The parser ran out of recursion, or the value is nested deeper than
            :data:`MAX_DEPTH`.
    """
    try:
        data = parse()
    except RecursionError:
        raise NestingError() from None
    if nesting_depth(data) > MAX_DEPTH:
        raise NestingError()
    return data
