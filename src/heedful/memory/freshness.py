"""Freshness: the probability a stored belief is no longer current (document 000 §9).

If the subject changes as a Poisson process with hazard λ, evidence of age ``t`` is stale with
probability ``1 − exp(−λ·t)``. Default hazards per volatility class are SPEC §4.1's; a hazard can
also be *learned* from irregular revisits with the maximum-likelihood estimator of Cho and
Garcia-Molina ("Estimating frequency of change", ACM TOIT 2003).

Pure functions: no I/O, no clock.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from pydantic import Field, field_validator

from heedful.errors import InvalidArgumentError
from heedful.model.base import FrozenModel
from heedful.model.scenario import Volatility

SECONDS_PER_HOUR = 3600.0


def _default_hazards() -> dict[Volatility, float]:
    return {
        Volatility.IMMUTABLE: 0.0,
        Volatility.LOW: 0.001,
        Volatility.MEDIUM: 0.05,
        Volatility.HIGH: 0.5,
        Volatility.VERY_HIGH: 5.0,
    }


class FreshnessConfig(FrozenModel):
    """Hazard rates per volatility class, in changes per **hour** (SPEC §4.1, document 000 §9).

    Attributes:
        hazards_per_hour: λ per class; every class must be present, each ≥ 0.
        min_revisits_to_learn: A subject's learned hazard (Cho & Garcia-Molina over its stored
            revisits) replaces its class default once it has at least this many revisits.
    """

    hazards_per_hour: dict[Volatility, float] = Field(default_factory=_default_hazards)
    min_revisits_to_learn: int = Field(default=5, ge=1)

    @field_validator("hazards_per_hour")
    @classmethod
    def _check(cls, value: dict[Volatility, float]) -> dict[Volatility, float]:
        missing = set(Volatility) - set(value)
        if missing:
            raise ValueError(f"missing hazards for {sorted(m.value for m in missing)}")
        for cls_, rate in value.items():
            if not (math.isfinite(rate) and rate >= 0):
                raise ValueError(f"hazard for {cls_.value} must be finite and ≥ 0, got {rate}")
        return value

    def hazard_per_second(self, volatility: Volatility) -> float:
        """Return λ for ``volatility`` in changes per second."""
        return self.hazards_per_hour[volatility] / SECONDS_PER_HOUR


DEFAULT_FRESHNESS = FreshnessConfig()


def p_stale_rate(rate_per_s: float, age_s: float) -> float:
    """Return ``1 − exp(−rate·age)`` for a hazard in changes per second.

    Raises:
        InvalidArgumentError: Negative or non-finite rate or age.
    """
    if not (math.isfinite(rate_per_s) and rate_per_s >= 0):
        raise InvalidArgumentError(f"hazard must be finite and ≥ 0, got {rate_per_s}")
    if not (math.isfinite(age_s) and age_s >= 0):
        raise InvalidArgumentError(f"age must be finite and ≥ 0 seconds, got {age_s}")
    return -math.expm1(-rate_per_s * age_s)


def p_stale(
    volatility: Volatility,
    age_s: float,
    hazards: FreshnessConfig | Mapping[Volatility, float] | None = None,
) -> float:
    """Return the probability that evidence of ``age_s`` seconds about a subject is stale.

    Args:
        volatility: The subject's volatility class.
        age_s: Age of the evidence in seconds (≥ 0).
        hazards: A :class:`FreshnessConfig`, or a mapping class → changes per hour; defaults
            to SPEC §4.1's hazards.
    """
    if hazards is None:
        hazards = DEFAULT_FRESHNESS
    if isinstance(hazards, FreshnessConfig):
        rate_per_hour = hazards.hazards_per_hour[volatility]
    else:
        if volatility not in hazards:
            raise InvalidArgumentError(f"no hazard given for volatility {volatility.value!r}")
        rate_per_hour = hazards[volatility]
    return p_stale_rate(rate_per_hour / SECONDS_PER_HOUR, age_s)


def cho_garcia_molina_rate(intervals: Sequence[float], changed: Sequence[bool]) -> float:
    """Estimate a Poisson change rate from irregular revisits (maximum likelihood).

    Revisit *i* came ``intervals[i]`` after the previous one and saw a change (``changed[i]``)
    or not. A change is seen with probability ``1 − e^{−λ t}``, so the log-likelihood is
    ``Σ_changed log(1 − e^{−λ t_i}) − λ Σ_unchanged t_i`` and its maximum solves

        Σ_changed t_i / (e^{λ t_i} − 1) = Σ_unchanged t_i.

    The left side falls strictly from +∞ to 0 as λ grows, so the root is unique; it is found by
    bisection on log λ to relative precision 1e-12.

    Edge cases:
        * no revisit saw a change → 0.0 (the MLE);
        * every revisit saw a change → the likelihood grows without bound, there is no finite
          MLE; we return the bias-reduced estimate of Cho & Garcia-Molina for this case,
          ``ln(2n + 1) / mean(t)`` (their ``−ln((X̄ + 0.5)/(n + 0.5)) / I`` with zero unchanged
          visits), which is finite and grows only logarithmically with ``n``.

    Args:
        intervals: Time between consecutive visits (> 0, any unit).
        changed: Whether each visit saw the value changed.

    Returns:
        λ in changes per unit of ``intervals``.

    Raises:
        InvalidArgumentError: Empty input, lengths differ, or a non-positive interval.
    """
    if len(intervals) != len(changed):
        raise InvalidArgumentError(
            f"intervals and changed differ in length ({len(intervals)} vs {len(changed)})"
        )
    if not intervals:
        raise InvalidArgumentError("need at least one revisit to estimate a change rate")
    for t in intervals:
        if not (math.isfinite(t) and t > 0):
            raise InvalidArgumentError(f"revisit intervals must be finite and > 0, got {t}")
    hit = [float(t) for t, c in zip(intervals, changed, strict=True) if c]
    miss_total = sum(float(t) for t, c in zip(intervals, changed, strict=True) if not c)
    if not hit:
        return 0.0
    if miss_total == 0.0:
        n = len(hit)
        return math.log(2 * n + 1) / (sum(hit) / n)

    def excess(rate: float) -> float:
        # Σ t/(e^{λt} − 1) − Σ_unchanged t; decreasing in λ. Terms with λt > 700 are 0.
        total = 0.0
        for t in hit:
            x = rate * t
            if x < 700.0:
                total += t / math.expm1(x)
        return total - miss_total

    lo = hi = 1.0 / (sum(hit) + miss_total)
    while excess(lo) <= 0.0:
        lo /= 2.0
    while excess(hi) > 0.0:
        hi *= 2.0
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if excess(mid) > 0.0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * hi:
            break
    return math.sqrt(lo * hi)
