"""Statistics of document 000 §23: bootstrap means, Wilson proportions, paired comparisons.

Everything random takes an explicit ``numpy`` generator so reports are reproducible.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from statistics import NormalDist
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict


class MeanCI(BaseModel):
    """A mean with its bootstrap confidence interval, plus the median and the count."""

    model_config = ConfigDict(frozen=True)

    n: int
    mean: float
    lo: float
    hi: float
    median: float


class Proportion(BaseModel):
    """``k`` successes out of ``n`` with a Wilson score interval (``p`` is ``None`` if n = 0)."""

    model_config = ConfigDict(frozen=True)

    k: int
    n: int
    p: float | None
    lo: float
    hi: float


class PairedDiff(BaseModel):
    """Paired differences ``a − b`` on matched trials, with a bootstrap CI and win counts."""

    model_config = ConfigDict(frozen=True)

    n: int
    mean: float
    lo: float
    hi: float
    a_better: int
    b_better: int
    ties: int

    def reversed(self) -> PairedDiff:
        """The same comparison as ``b − a`` (mean and interval negated, win counts swapped)."""
        return self.model_copy(
            update={
                "mean": -self.mean,
                "lo": -self.hi,
                "hi": -self.lo,
                "a_better": self.b_better,
                "b_better": self.a_better,
            }
        )


class Transitions(BaseModel):
    """Paired transition counts of a binary outcome (document 000 §23)."""

    model_config = ConfigDict(frozen=True)

    both: int
    only_a: int
    only_b: int
    neither: int


def z_value(level: float) -> float:
    """Two-sided normal quantile for a confidence level (1.959964 for 0.95)."""
    return NormalDist().inv_cdf(0.5 + level / 2.0)


def wilson_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Return the Wilson score interval of ``k`` successes in ``n`` trials.

    ``(0, 1)`` when ``n == 0`` (nothing is known).
    """
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 ≤ k ≤ n, got k={k}, n={n}")
    if n == 0:
        return 0.0, 1.0
    return _wilson(k / n, float(n), level)


def _wilson(p: float, n: float, level: float) -> tuple[float, float]:
    """Wilson bounds for the proportion ``p`` on a (possibly effective, non-integer) ``n``."""
    z = z_value(level)
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At p = 0 and p = 1 the bounds are exactly 0 and 1; rounding would leave 1e-16 gaps.
    lo = 0.0 if p == 0.0 else max(0.0, centre - half)
    hi = 1.0 if p == 1.0 else min(1.0, centre + half)
    return lo, hi


def proportion(k: int, n: int, level: float = 0.95) -> Proportion:
    """Return ``k/n`` with its Wilson interval."""
    lo, hi = wilson_interval(k, n, level)
    return Proportion(k=k, n=n, p=k / n if n else None, lo=lo, hi=hi)


def clustered_proportion(
    successes: Sequence[bool], clusters: Sequence[Hashable], level: float = 0.95
) -> Proportion:
    """Return ``k/n`` over trials grouped in clusters (scenarios), with a Wilson interval on the
    effective sample size.

    Trials of one scenario are not independent (in the static condition a deterministic policy
    makes the same choices in every trial), so the interval uses Kish's effective size
    ``n / deff``, with the design effect estimated from the between-cluster variance of the ratio
    estimator and kept within ``[m, n]`` for ``m`` clusters: never narrower than for independent
    trials, never wider than one observation per cluster. When all trials agree (``k`` is 0 or
    ``n``) the within-cluster correlation is indistinguishable from 1 and the unit is the cluster.
    One cluster gives the plain interval. ``k`` and ``n`` stay the raw trial counts.
    """
    if len(successes) != len(clusters):
        raise ValueError("one cluster label per value is needed")
    flags = np.asarray(successes, dtype=float)
    n, k = int(flags.size), int(flags.sum())
    labels = {c: i for i, c in enumerate(dict.fromkeys(clusters))}
    m = len(labels)
    if n == 0 or m <= 1:
        return proportion(k, n, level)
    p = k / n
    if k in (0, n):
        n_eff = float(m)
    else:
        idx = np.array([labels[c] for c in clusters])
        k_c = np.bincount(idx, weights=flags)
        n_c = np.bincount(idx).astype(float)
        var_cluster = m / (m - 1) * float(((k_c - p * n_c) ** 2).sum()) / (n * n)
        var_independent = p * (1.0 - p) / n
        n_eff = n * var_independent / var_cluster if var_cluster > 0 else float(n)
        n_eff = min(max(n_eff, float(m)), float(n))
    lo, hi = _wilson(p, n_eff, level)
    return Proportion(k=k, n=n, p=p, lo=lo, hi=hi)


#: Resample draws already made, by (generator state, m, resamples): see resample_indices.
_DRAWS: OrderedDict[tuple[object, ...], tuple[np.ndarray, Mapping[str, Any]]] = OrderedDict()
_DRAWS_KEPT = 32


def resample_indices(rng: np.random.Generator, m: int, n_resamples: int) -> np.ndarray:
    """``rng.integers(0, m, size=(n_resamples, m))``, remembered by the generator's state.

    Every row and comparison of a run bootstraps from a fresh generator of the same seed, so the
    same draws come up again and again; a repeat is looked up (and the generator left in the
    state the draw would have left it in) instead of drawn. The result is read-only.
    """
    return _draws(rng, m, n_resamples)[1]


def _draws(
    rng: np.random.Generator, m: int, n_resamples: int
) -> tuple[tuple[object, ...], np.ndarray]:
    """:func:`resample_indices` and the key it is remembered by (the state it was drawn from)."""
    bg = rng.bit_generator
    state = bg.state
    inner = state.get("state")
    key = (
        state.get("bit_generator"),
        tuple(inner.values()) if isinstance(inner, dict) else repr(inner),
        state.get("has_uint32"),
        state.get("uinteger"),
        m,
        n_resamples,
    )
    hit = _DRAWS.get(key)
    if hit is not None:
        _DRAWS.move_to_end(key)
        bg.state = hit[1]
        return key, hit[0]
    draws = rng.integers(0, m, size=(n_resamples, m))
    draws.flags.writeable = False
    _DRAWS[key] = (draws, bg.state)
    if len(_DRAWS) > _DRAWS_KEPT:
        _DRAWS.popitem(last=False)
    return key, draws


#: Percentile bounds already computed, by (draws key, the resampled totals' bytes, level): two
#: policies with the same values (an ablation that changes nothing on these scenarios) and the
#: same draws have the same interval.
_BOUNDS: OrderedDict[tuple[object, ...], tuple[float, float]] = OrderedDict()
_BOUNDS_KEPT = 1024


def _bounds(
    key: tuple[object, ...], compute: Callable[[], tuple[float, float]]
) -> tuple[float, float]:
    hit = _BOUNDS.get(key)
    if hit is not None:
        _BOUNDS.move_to_end(key)
        return hit
    out = compute()
    _BOUNDS[key] = out
    if len(_BOUNDS) > _BOUNDS_KEPT:
        _BOUNDS.popitem(last=False)
    return out


def _resampled_counts(counts: np.ndarray, draws: np.ndarray) -> np.ndarray | float:
    """``counts[draws].sum(axis=1)``: whole numbers, so exact in any order; equal clusters (the
    usual case: every scenario has its trials) give the same total in every resample."""
    first = counts[0]
    if (counts == first).all():
        return float(first * counts.size)
    return counts[draws].sum(axis=1)


def bootstrap_mean(
    values: Sequence[float],
    rng: np.random.Generator,
    *,
    clusters: Sequence[Hashable] | None = None,
    n_resamples: int = 2000,
    level: float = 0.95,
) -> MeanCI | None:
    """Return the mean with a percentile-bootstrap interval (``None`` for no values).

    Args:
        values: The observations.
        rng: Randomness of the resampling.
        clusters: Optional cluster label per value (e.g. the scenario id). Clusters are then
            resampled whole, since trials of one scenario are not independent; a single cluster
            has no between-cluster spread, so its values are resampled one by one.
        n_resamples: Number of bootstrap resamples.
        level: Confidence level.
    """
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return None
    mean, median = float(x.mean()), float(np.median(x))
    if clusters is not None and len(clusters) != x.size:
        raise ValueError("one cluster label per value is needed")
    if clusters is None or len(set(clusters)) == 1:
        sums, counts = x, np.ones_like(x)
    else:
        labels = {c: i for i, c in enumerate(dict.fromkeys(clusters))}
        idx = np.array([labels[c] for c in clusters])
        sums = np.bincount(idx, weights=x)
        counts = np.bincount(idx).astype(float)
    m = sums.size
    if m == 1 or np.ptp(x) == 0.0:
        return MeanCI(n=int(x.size), mean=mean, lo=mean, hi=mean, median=median)
    key, draws = _draws(rng, m, n_resamples)

    def compute() -> tuple[float, float]:
        boot = sums[draws].sum(axis=1) / _resampled_counts(counts, draws)
        alpha = (1.0 - level) / 2.0
        lo, hi = np.quantile(boot, [alpha, 1.0 - alpha])
        return float(lo), float(hi)

    lo, hi = _bounds(("mean", key, sums.tobytes(), counts.tobytes(), level), compute)
    return MeanCI(n=int(x.size), mean=mean, lo=lo, hi=hi, median=median)


def bootstrap_ratio(
    num: Sequence[float],
    den: Sequence[float],
    rng: np.random.Generator,
    *,
    clusters: Sequence[Hashable],
    n_resamples: int = 2000,
    level: float = 0.95,
) -> MeanCI | None:
    """``Σ num / Σ den`` with a percentile cluster-bootstrap interval (``None`` if ``Σ den`` is 0).

    For ratios of totals (utility per unit compute, distractor share of inspections): clusters
    are resampled whole and the ratio recomputed; ``median`` is the ratio itself and ``n`` the
    number of items.
    """
    a, b = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    if a.size != b.size or len(clusters) != a.size:
        raise ValueError("num, den and clusters need one entry per item")
    total = float(b.sum())
    if a.size == 0 or total <= 0:
        return None
    ratio = float(a.sum()) / total
    labels = {c: i for i, c in enumerate(dict.fromkeys(clusters))}
    idx = np.array([labels[c] for c in clusters])
    sa, sb = np.bincount(idx, weights=a), np.bincount(idx, weights=b)
    m = sa.size
    if m == 1:
        return MeanCI(n=int(a.size), mean=ratio, lo=ratio, hi=ratio, median=ratio)
    key, draws = _draws(rng, m, n_resamples)

    def compute() -> tuple[float, float]:
        dens = sb[draws].sum(axis=1)
        ok = dens > 0
        boot = sa[draws].sum(axis=1)[ok] / dens[ok]
        alpha = (1.0 - level) / 2.0
        lo, hi = np.quantile(boot, [alpha, 1.0 - alpha]) if boot.size else (ratio, ratio)
        return float(lo), float(hi)

    lo, hi = _bounds(("ratio", key, sa.tobytes(), sb.tobytes(), level, ratio), compute)
    return MeanCI(n=int(a.size), mean=ratio, lo=lo, hi=hi, median=ratio)


def paired_difference(
    a: Sequence[float],
    b: Sequence[float],
    rng: np.random.Generator,
    *,
    clusters: Sequence[Hashable] | None = None,
    n_resamples: int = 2000,
    level: float = 0.95,
    tie_tolerance: float = 1e-9,
    higher_is_better: bool = True,
) -> PairedDiff | None:
    """Return the mean paired difference ``a − b`` with a bootstrap CI (``None`` if no pairs).

    ``a_better`` counts where ``a`` is better: larger, or smaller when ``higher_is_better`` is
    false (regret, cost). With ``clusters`` (the scenario of each pair) the counts are of
    **clusters**, by the mean difference over each cluster's pairs — trials of one scenario are
    not independent wins; without, of pairs.
    """
    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    ci = bootstrap_mean(d, rng, clusters=clusters, n_resamples=n_resamples, level=level)
    if ci is None:
        return None
    sign = 1.0 if higher_is_better else -1.0
    if clusters is not None:
        labels = {c: i for i, c in enumerate(dict.fromkeys(clusters))}
        idx = np.array([labels[c] for c in clusters])
        d = np.bincount(idx, weights=d) / np.bincount(idx)
    return PairedDiff(
        n=ci.n,
        mean=ci.mean,
        lo=ci.lo,
        hi=ci.hi,
        a_better=int((sign * d > tie_tolerance).sum()),
        b_better=int((sign * d < -tie_tolerance).sum()),
        ties=int((np.abs(d) <= tie_tolerance).sum()),
    )


def transitions(a: Sequence[bool], b: Sequence[bool]) -> Transitions:
    """Count paired outcomes: both true, only ``a``, only ``b``, neither."""
    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    pairs = list(zip(a, b, strict=True))
    return Transitions(
        both=sum(1 for x, y in pairs if x and y),
        only_a=sum(1 for x, y in pairs if x and not y),
        only_b=sum(1 for x, y in pairs if y and not x),
        neither=sum(1 for x, y in pairs if not x and not y),
    )
