"""The one rule of every registry of named classes in the benchmark — the policies of each
scenario kind (:func:`heedful.bench.register_policy`) and the agents
(:func:`heedful.bench.agents.register_agent`): a name belongs to one class, and the same class
registered again (its module imported twice) is no clash."""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = ["add_named"]

C = TypeVar("C", bound=type)


def add_named(registry: dict[str, Any], name: str, cls: C, what: str) -> C:
    """Put ``cls`` into ``registry`` under ``name``, set its ``name`` and return it.

    Raises:
        ValueError: the name is registered to another class (``what`` names the registry's
            things, e.g. ``"policy"``).
    """
    existing = registry.get(name)
    if existing is not None and existing.__qualname__ != cls.__qualname__:
        raise ValueError(f"{what} name {name!r} is already registered to {existing.__name__}")
    cls.name = name  # type: ignore[attr-defined]
    registry[name] = cls
    return cls
