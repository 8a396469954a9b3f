"""The fixed instant the attention tests use (importable: pytest puts this folder on sys.path)."""

from __future__ import annotations

from datetime import UTC, datetime

NOW = datetime(2026, 1, 1, tzinfo=UTC)
