"""Shared building blocks of the vocabulary: the frozen model base and the UTC helper."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict

__all__ = ["FrozenModel", "as_utc"]


class FrozenModel(BaseModel):
    """Base of heedful's immutable records: frozen, unknown fields refused."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def as_utc(moment: datetime) -> datetime:
    """``moment`` with a time zone: a naive datetime is taken as UTC (as the memory store does),
    so naive and aware datetimes can be compared and converted to epoch seconds alike."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
