"""Bounded JSON for what a model or an endpoint sends (docs/llm.md, "The harness survives any
endpoint"): ``json.loads`` recurses, so 100,000 nested brackets raise RecursionError, and
``Infinity``/``NaN`` parse into floats that break every count after them. Both the HTTP client
(whole replies) and the trial environment (tool-call arguments) parse through here.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_DEPTH", "json_depth_ok", "loads_bounded"]

#: Deepest nesting the harness accepts in a reply or in tool-call arguments (a chat completion
#: is about 6 deep, tool arguments a few more).
MAX_DEPTH = 64


def json_depth_ok(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` (parsed JSON) nests at most ``limit`` deep (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return False
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return True


def _nesting_exceeds(text: str | bytes, limit: int) -> bool:
    """Whether brackets in ``text`` open deeper than ``limit`` (a cheap scan before parsing:
    ``json.loads`` itself recurses, and 100,000 ``[`` raise RecursionError)."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    depth = 0
    in_string = escape = False
    for byte in raw:
        if in_string:
            if escape:
                escape = False
            elif byte == 0x5C:  # backslash
                escape = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


def loads_bounded(text: str | bytes, limit: int = MAX_DEPTH, *, constants: bool = False) -> Any:
    """``json.loads`` that refuses nesting deeper than ``limit`` (ValueError, never
    RecursionError) and, unless ``constants``, the non-JSON constants ``NaN``/``Infinity``
    (a whole reply keeps them, so that its usage check can name the figure).

    Raises:
        ValueError: not JSON, too deep, or a non-finite constant.
    """
    if _nesting_exceeds(text, limit):
        raise ValueError(f"nested deeper than {limit} levels")

    def constant(name: str) -> Any:
        raise ValueError(f"{name} is not a JSON number")

    try:
        if constants:
            return json.loads(text)
        return json.loads(text, parse_constant=constant)
    except RecursionError:  # pragma: no cover - the scan above refuses first
        raise ValueError(f"nested deeper than {limit} levels") from None
