"""Cheap copies of candidates on the controller's hot path.

``Candidate.model_copy(update=...)`` goes through ``copy.copy`` and a generic update; the
controller copies every live candidate on every recomputation, always with values that were
validated already (by the world, the guard or a validated candidate), so it uses this direct
equivalent: same fields, same values, same type, no validation.
"""

from __future__ import annotations

from typing import Any

from heedful.model.candidate import Candidate, Trigger

__all__ = ["copy_candidate", "new_candidate"]

_set = object.__setattr__


def copy_candidate(candidate: Candidate, update: dict[str, Any]) -> Candidate:
    """``candidate.model_copy(update=update)`` for already-validated values."""
    new = object.__new__(Candidate)
    fields = dict(candidate.__dict__)
    fields.update(update)
    _set(new, "__dict__", fields)
    _set(new, "__pydantic_fields_set__", candidate.__pydantic_fields_set__.union(update))
    _set(new, "__pydantic_extra__", None)
    _set(new, "__pydantic_private__", None)
    return new


_TEMPLATE = Candidate(
    id="template", target="template", trigger=Trigger.STALE_BELIEF, origin="template"
)


def new_candidate(fields: dict[str, Any]) -> Candidate:
    """A candidate from already-validated field values (the rest at their defaults)."""
    return copy_candidate(_TEMPLATE, fields)
