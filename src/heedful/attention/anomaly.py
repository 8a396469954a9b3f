"""Priority-distribution anomaly detection (document 000 §24 "Anomaly detection", §25).

Two alerts, both computed from trusted estimates only:

* **saturation** — the guard's share of candidates whose p_change is near maximum reached its
  threshold ("priority distributions suddenly saturate near maximum");
* **distribution shift** — the mean p_change of the scored candidates moved by more than a
  threshold from its running (exponentially averaged) baseline: a sudden change in the priority
  distribution, up or down.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from heedful.attention.config import AnomalyConfig

__all__ = ["PriorityMonitor", "Shift"]


@dataclass(frozen=True)
class Shift:
    """A detected shift of the priority distribution.

    Attributes:
        mean: Mean p_change now.
        baseline: The running baseline it moved away from.
        count: Candidates it was computed on.
    """

    mean: float
    baseline: float
    count: int


class PriorityMonitor:
    """Keeps a running baseline of the mean p_change and reports sudden shifts.

    Args:
        config: Threshold, smoothing, warm-up and minimum count.
    """

    def __init__(self, config: AnomalyConfig | None = None) -> None:
        self.config = config or AnomalyConfig()
        self.baseline: float | None = None
        self.observed = 0

    def observe(self, p_changes: Iterable[float]) -> Shift | None:
        """Fold one recomputation's p_change values in; return a shift when one is detected.

        Recomputations with fewer than ``min_count`` candidates are ignored (too few to call a
        distribution). A detected shift still moves the baseline, so a lasting change is
        reported once, not on every later recomputation.
        """
        values = p_changes if isinstance(p_changes, np.ndarray) else np.array(list(p_changes))
        if len(values) < self.config.min_count:
            return None
        mean = sum(values.tolist()) / len(values)
        self.observed += 1
        if self.baseline is None:
            self.baseline = mean
            return None
        baseline = self.baseline
        a = self.config.smoothing
        shifted = (
            self.observed > self.config.warmup
            and abs(mean - baseline) >= self.config.shift_threshold
        )
        # After a shift the new level becomes the baseline at once: one alert per change.
        self.baseline = mean if shifted else (1 - a) * baseline + a * mean
        return Shift(mean, baseline, len(values)) if shifted else None
