"""Observed change history of subjects, from which hazards are learned (document 000 §9)."""

from __future__ import annotations

import itertools
import math

from heedful.errors import InvalidArgumentError
from heedful.memory._base import StoreBase, dumps, loads
from heedful.memory.freshness import SECONDS_PER_HOUR, cho_garcia_molina_rate
from heedful.model.claim import ClaimValue


class HistoryMixin(StoreBase):
    """Revisits of subjects (variables) and the change rates they imply."""

    def record_observation(self, subject: str, value: ClaimValue, observed_at: float) -> None:
        """Record that ``subject`` was seen to have ``value`` at ``observed_at`` (epoch s)."""
        if not subject:
            raise InvalidArgumentError("observation subject must be non-empty")
        if not math.isfinite(observed_at):
            raise InvalidArgumentError(f"observed_at must be finite, got {observed_at}")
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO observations (subject, value, observed_at) VALUES (?, ?, ?)",
                (subject, dumps(value, "observed value"), observed_at),
            )

    def observations(self, subject: str) -> list[tuple[float, ClaimValue]]:
        """Return ``(observed_at, value)`` for ``subject``, oldest first."""
        rows = self._read(
            "SELECT observed_at, value FROM observations WHERE subject = ?"
            " ORDER BY observed_at, id",
            (subject,),
        )
        return [(r["observed_at"], loads(r["value"])) for r in rows]

    def change_history(self, subject: str) -> tuple[list[float], list[bool]]:
        """Return revisit intervals (seconds) and whether each saw a change, for ``subject``.

        Consecutive observations at the same instant are merged (a zero interval carries no
        information about the rate; the later value wins).
        """
        merged: list[tuple[float, ClaimValue]] = []
        for at, value in self.observations(subject):
            if merged and at == merged[-1][0]:
                merged[-1] = (at, value)
            else:
                merged.append((at, value))
        intervals: list[float] = []
        changed: list[bool] = []
        for (t0, v0), (t1, v1) in itertools.pairwise(merged):
            intervals.append(t1 - t0)
            changed.append(dumps(v0, "value") != dumps(v1, "value"))
        return intervals, changed

    def learned_hazard_per_hour(self, subject: str) -> float | None:
        """Return the Cho–Garcia-Molina change rate of ``subject`` per hour, or None if it has
        fewer than two observations."""
        intervals, changed = self.change_history(subject)
        if not intervals:
            return None
        return cho_garcia_molina_rate(intervals, changed) * SECONDS_PER_HOUR

    def learned_class_hazard_per_hour(self, claim_type: str) -> float | None:
        """Return one change rate per hour pooled over every subject of ``claim_type`` claims.

        Document 000 §9 learns "a volatility model for each source or claim class": the revisit
        histories of all subjects with claims of this type are pooled (assuming one shared
        rate). None if no subject of that type has two observations.
        """
        rows = self._read(
            "SELECT DISTINCT subject FROM claims WHERE claim_type = ? ORDER BY subject",
            (claim_type,),
        )
        intervals: list[float] = []
        changed: list[bool] = []
        for row in rows:
            more_intervals, more_changed = self.change_history(row[0])
            intervals += more_intervals
            changed += more_changed
        if not intervals:
            return None
        return cho_garcia_molina_rate(intervals, changed) * SECONDS_PER_HOUR
