"""Change rates learned per claim class and per source (document 000 §9).

Every successful report on a claim that already had evidence is a *revisit*: it came some time
after the previous one and saw the value changed or not. Per claim type and per source, the
revisits feed the Cho & Garcia-Molina maximum-likelihood rate for irregular revisits (the memory
store's estimator, reused). Once a class has ``min_samples`` revisits its rate replaces the
volatility-class default for claims of that class; a claim's own learned rate (from the store)
still comes first, and a source's rate is the fallback for a claim type not yet learned.
"""

from __future__ import annotations

from collections import defaultdict

from heedful.attention.config import VolatilityConfig
from heedful.memory.freshness import cho_garcia_molina_rate

__all__ = ["VolatilityLearner"]


class VolatilityLearner:
    """Revisit histories per claim type and per source, and the rates learned from them.

    Args:
        config: Minimum revisits before a learned rate is used.
    """

    def __init__(self, config: VolatilityConfig | None = None) -> None:
        self.config = config or VolatilityConfig()
        self._by_type: dict[str, list[tuple[float, bool]]] = defaultdict(list)
        self._by_source: dict[str, list[tuple[float, bool]]] = defaultdict(list)
        #: Whether some history is long enough to give a learned rate.
        self.learned = False

    def observe(self, claim_type: str, source_id: str, interval_s: float, changed: bool) -> None:
        """Record one revisit ``interval_s`` s after the previous evidence (ignored if ≤ 0)."""
        if not interval_s > 0:
            return
        self._by_type[claim_type].append((interval_s, changed))
        self._by_source[source_id].append((interval_s, changed))
        if max(len(self._by_type[claim_type]), len(self._by_source[source_id])) >= (
            self.config.min_samples
        ):
            self.learned = True

    def _rate(self, history: list[tuple[float, bool]]) -> float | None:
        if len(history) < self.config.min_samples:
            return None
        per_s = cho_garcia_molina_rate([t for t, _ in history], [c for _, c in history])
        return per_s * 3600.0

    def hazard_per_hour(self, claim_type: str, source_id: str | None = None) -> float | None:
        """The learned rate for a claim type, else for its evidence's source; None = not learned."""
        rate = self._rate(self._by_type.get(claim_type, []))
        if rate is None and source_id is not None:
            rate = self._rate(self._by_source.get(source_id, []))
        return rate

    def samples(self, claim_type: str) -> int:
        """Revisits recorded for a claim type."""
        return len(self._by_type.get(claim_type, []))
