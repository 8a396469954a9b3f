"""Shared building blocks of the vocabulary: the frozen model base and the UTC helper."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict

__all__ = ["FrozenModel", "as_utc", "wall_clock", "wall_time"]


def _real_time() -> float:
    return time.time()


def wall_time() -> float:
    """The real clock in epoch seconds: the default of every clock heedful lets you inject.

    ``Controller``, ``Engine``, ``MemoryGraph`` (as :func:`wall_clock`) and ``Store`` take a
    ``clock=``; when none is given they read this one, and only this one, so the test suite can
    tell a test that forgot to pass a clock (tests/conftest.py).
    """
    return _real_time()


def wall_clock() -> datetime:
    """The real clock as an aware UTC datetime (see :func:`wall_time`)."""
    return datetime.fromtimestamp(wall_time(), UTC)


class FrozenModel(BaseModel):
    """Base of heedful's immutable records: frozen, unknown fields refused."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def as_utc(moment: datetime) -> datetime:
    """``moment`` with a time zone: a naive datetime is taken as UTC (as the memory store does),
    so naive and aware datetimes can be compared and converted to epoch seconds alike."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
