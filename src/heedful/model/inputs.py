"""The one input policy: what an id, a timestamp, a number and a size may be.

The MCP tools' argument models, engine seed files, scenario files and the library's own records
(goals, claims, nodes, edges) all use these types, so one id is refused the same way — with the
same message — whichever door it came through.

* **Ids** (:data:`Id`): 1 to :data:`MAX_ID_CHARS` characters, none of them a control or invisible
  character (NUL, newline, escape, zero-width space and joiners, bidirectional overrides such as
  U+202E, the byte-order mark, lone surrogates, private use, line and paragraph separators):
  ``registry\\u200b`` prints exactly like ``registry`` while naming another source.
* **Timestamps** (:data:`AwareTime`): a timezone is required; ``2026-12-01T12:00:00`` could be
  any of 24 moments.
* **Numbers**: finite (no ``inf`` or ``nan``), and strict where a number is meant — ``true`` and
  ``"3"`` are not budgets (:func:`validate_strict`).
* **Sizes**: :data:`MAX_TITLE_CHARS`, :data:`MAX_TEXT_CHARS`, :data:`MAX_VALUE_CHARS`,
  :data:`MAX_ENTRIES`.
"""

from __future__ import annotations

import json
import unicodedata
from datetime import date, datetime
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, AwareDatetime, BaseModel, Field

__all__ = [
    "MAX_ENTRIES",
    "MAX_ID_CHARS",
    "MAX_TEXT_CHARS",
    "MAX_TITLE_CHARS",
    "MAX_VALUE_CHARS",
    "AwareTime",
    "Id",
    "check_id",
    "validate_strict",
]

#: Longest id (of a claim, source, goal, node, scenario...), in characters.
MAX_ID_CHARS = 200
#: Longest goal title, in characters.
MAX_TITLE_CHARS = 500
#: Longest free text (a goal's description), in characters.
MAX_TEXT_CHARS = 10_000
#: Longest claim value (or domain value), in characters.
MAX_VALUE_CHARS = 10_000
#: Most entries of one mapping or list argument (observations, dependencies, linked nodes).
MAX_ENTRIES = 1000

#: Unicode categories an id may not contain: controls (Cc), invisible formatting (Cf: zero-width
#: characters, bidi overrides, BOM), lone surrogates (Cs), private use (Co), line and paragraph
#: separators (Zl, Zp).
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})


def check_id(value: str) -> str:
    """Return ``value`` if it is a valid id (see the module docstring).

    Raises:
        ValueError: One sentence naming the rule and, for a hidden character, its code point
            and position.
    """
    if not value:
        raise ValueError("ids must not be empty")
    if len(value) > MAX_ID_CHARS:
        raise ValueError(f"ids must be at most {MAX_ID_CHARS} characters, got {len(value):,}")
    for at, char in enumerate(value):
        if unicodedata.category(char) in _HIDDEN_CATEGORIES:
            name = unicodedata.name(char, "") or unicodedata.category(char)
            raise ValueError(
                f"ids must not contain control or invisible characters: U+{ord(char):04X}"
                f" ({name}) at position {at}"
            )
    return value


def _id_value(value: str) -> str:
    return check_id(value)


#: An id, checked by :func:`check_id` (length is checked there too, so one message covers it).
Id = Annotated[
    str,
    AfterValidator(_id_value),
    Field(json_schema_extra={"minLength": 1, "maxLength": MAX_ID_CHARS}),
]

#: A timestamp with a timezone (ISO 8601 text in files and JSON, e.g. ``2026-12-01T12:00:00Z``).
AwareTime = Annotated[AwareDatetime, Field(strict=False)]

_M = TypeVar("_M", bound=BaseModel)


def _as_json(value: Any) -> Any:
    # YAML reads unquoted timestamps as datetimes; they travel on as the ISO text they were.
    if isinstance(value, datetime | date):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not a JSON value")


def validate_strict(model: type[_M], data: Any) -> _M:
    """Validate parsed file content with JSON's strict rules.

    Parsed YAML or JSON is validated as the JSON it is: a number field takes a number, not a
    boolean or a string (``budget: true``, ``budget: "3"`` are refused); an enum or a
    timestamp takes its text. Going through JSON text keeps pydantic's JSON-mode strictness,
    which lets enums and datetimes be strings while refusing every other coercion.

    Raises:
        pydantic.ValidationError: As ``model.model_validate`` would.
    """
    text = json.dumps(data, default=_as_json)
    return model.model_validate_json(text, strict=True)
