"""The static oracle: ``V* = max_{|S| ≤ budget} V(S)`` by exhaustive enumeration (SPEC §3).

How it stays fast (document 000 §14.3 asks for C(30, 5) = 142,506 subsets to be routine):

1. Sources are reduced to their information (:func:`reduce_sources`): zero-information sources
   (echoes, sources reporting nothing) only add cost, failures become a weight, and worlds no
   source can tell apart are lumped.
2. The gross value without failures, ``G(T)``, is computed for every subset ``T`` of the
   informative sources level by level in colexicographic order: the joint likelihood rows of all
   subsets of one size are stacked and multiplied with ``p·u`` in one matrix product, the last
   level streamed block by block (one block per largest element) so memory stays small.
3. Failures are folded back exactly: ``G_f(S) = Σ_{T⊆S} Π_{T}(1−f) Π_{S∖T} f · G(T)``.
4. Every subset of all sources is then one table lookup: ``V(S) = G_f(S ∩ I) − λ·c(S)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from heedful.decision.config import DEFAULT_LIMITS, OPTIMAL_TOLERANCE, DecisionLimits
from heedful.decision.problem import DecisionProblem, FloatArray
from heedful.decision.valuation import reduce_sources
from heedful.errors import InvalidArgumentError, ProblemTooLargeError

IntArray = np.ndarray
_CHUNK_ELEMENTS = 4_000_000  # largest temporary (rows × columns) of one matrix product


@dataclass(frozen=True)
class StaticOracleResult:
    """What the static oracle found.

    Attributes:
        v_star: ``max_{|S| ≤ budget} V(S)``.
        optimal_sets: every set within 1e-9 of ``v_star``, as sorted tuples of source ids,
            ordered by size then lexicographically.
        u_random: exact mean of ``V(S)`` over all subsets of size ``min(budget, N)``.
        v_empty: ``V(∅)``.
        critical: members of at least one optimal set, in source order.
        budget: the budget used.
        n_subsets: how many subsets were valued.
    """

    v_star: float
    optimal_sets: tuple[tuple[str, ...], ...]
    u_random: float
    v_empty: float
    critical: tuple[str, ...]
    budget: int
    n_subsets: int

    @property
    def informative(self) -> bool:
        """False when ``V* − U_random < 1e-9`` (SPEC §3: the trial is "uninformative")."""
        return self.v_star - self.u_random >= 1e-9


def colex_subsets(n: int, k: int) -> list[IntArray]:
    """All subsets of ``range(n)`` of sizes ``0..k``, one ``(C(n, j), j)`` array per size.

    Rows are sorted ascending and listed in colexicographic order, so the rank of a row ``t`` is
    ``Σ_i C(t_i, i + 1)`` and the subsets of ``range(s)`` of one size come first.
    """
    levels: list[IntArray] = [np.zeros((1, 0), dtype=np.int64)]
    for j in range(1, k + 1):
        prev = levels[-1]
        parts = []
        for s in range(j - 1, n):
            m = comb(s, j - 1)
            block = np.empty((m, j), dtype=np.int64)
            block[:, : j - 1] = prev[:m]
            block[:, j - 1] = s
            parts.append(block)
        levels.append(np.concatenate(parts) if parts else np.zeros((0, j), dtype=np.int64))
    return levels


def _binomials(n: int, k: int) -> IntArray:
    return np.array([[comb(a, b) for b in range(k + 2)] for a in range(n + 1)], dtype=np.int64)


def _elementary(ks: list[int], k: int) -> list[float]:
    """Elementary symmetric sums ``e_j(ks)`` for ``j = 0..k`` (rows of all j-subsets)."""
    e = [1.0] + [0.0] * k
    for x in ks:
        for j in range(k, 0, -1):
            e[j] += e[j - 1] * x
    return e


def _check_size(
    n_all: int, ks: list[int], n_lumps: int, n_actions: int, k: int, lim: DecisionLimits
) -> None:
    n_subsets = sum(comb(n_all, j) for j in range(k + 1))
    if n_subsets > lim.max_subsets:
        raise ProblemTooLargeError(
            f"the static oracle would value {n_subsets:,} subsets ({n_all} sources, budget {k}); "
            f"the limit is {lim.max_subsets:,}"
        )
    kk = min(k, len(ks))
    e = _elementary(ks, kk)
    kmax = max(ks, default=1)
    flops = sum(e[j] for j in range(kk)) * n_lumps * (n_actions + 1)
    if kk >= 1:
        flops += e[kk - 1] * n_lumps * kmax * n_actions * len(ks) / 2
    stored = e[kk - 2] if kk >= 2 else 1.0
    if flops > lim.max_static_flops or stored * n_lumps > lim.max_rows * 16:
        raise ProblemTooLargeError(
            f"the static oracle would need about {flops:.2g} floating-point operations and "
            f"{stored * n_lumps:.2g} stored values ({len(ks)} informative sources with "
            f"{sum(ks)} informative outcomes, {n_lumps} distinguishable worlds, budget {k}); "
            f"the limits are {lim.max_static_flops:.2g} and {lim.max_rows * 16:.2g}"
        )


def _max_over_actions(x: FloatArray, n_a: int) -> FloatArray:
    """Max over ``n_a`` consecutive column blocks of equal width (faster than a small-axis max)."""
    width = x.shape[1] // n_a
    out = x[:, :width].copy()
    for a in range(1, n_a):
        np.maximum(out, x[:, a * width : (a + 1) * width], out=out)
    return out


def _gross_without_failures(
    cond: tuple[FloatArray, ...], q: FloatArray, k: int
) -> list[FloatArray]:
    """``G(T)`` for every subset ``T`` of the informative sources, sizes ``0..k`` (colex order)."""
    n = len(cond)
    n_w, n_a = q.shape
    out: list[FloatArray] = [np.array([q.sum(axis=0).max()])]
    k = min(k, n)
    if k == 0:
        return out
    ks = [c.shape[0] for c in cond]
    kmax = max(ks)
    # qpad[w, o, a, s] = L_s(o | w) · p(w) u(a, w); zero for outcomes a source does not have
    qpad = np.zeros((n_w, kmax, n_a, n))
    for s, c in enumerate(cond):
        qpad[:, : ks[s], :, s] = c.T[:, :, None] * q[:, None, :]
    rows = np.ones((1, n_w))
    counts = np.array([1], dtype=np.int64)
    for j in range(1, k + 1):
        g_j = np.empty(comb(n, j))
        stream = j == k - 1
        g_next = np.empty(comb(n, k)) if stream else None
        offsets = np.concatenate([[0], np.cumsum(counts)])
        new_rows: list[FloatArray] = []
        new_counts: list[IntArray] = []
        for s in range(j - 1, n):
            m = comb(s, j - 1)
            block = (rows[: offsets[m], None, :] * cond[s][None, :, :]).reshape(-1, n_w)
            bcounts = counts[:m] * ks[s]
            starts = np.concatenate([[0], np.cumsum(bcounts)[:-1]])
            base = comb(s, j)
            g_j[base : base + m] = np.add.reduceat(_max_over_actions(block @ q, n_a), starts)[:, 0]
            if g_next is not None and s < n - 1:
                qsub = np.ascontiguousarray(qpad[:, :, :, s + 1 :]).reshape(n_w, -1)
                per = _extend_block(block, starts, qsub, kmax, n_a)
                later = np.array([comb(t, k) for t in range(s + 1, n)], dtype=np.int64)
                g_next[later[None, :] + base + np.arange(m)[:, None]] = per
            if j < k - 1:
                new_rows.append(block)
                new_counts.append(bcounts)
        out.append(g_j)
        if g_next is not None:
            out.append(g_next)
            break
        if j < k - 1:
            rows = np.concatenate(new_rows)
            counts = np.concatenate(new_counts)
    return out


def _extend_block(
    block: FloatArray, starts: IntArray, qsub: FloatArray, kmax: int, n_a: int
) -> FloatArray:
    """Per prefix of ``block`` and per later source: ``Σ_rows Σ_o max_a`` — chunked by prefix.

    ``qsub`` columns are ordered (outcome, action, later source).
    """
    n_later = qsub.shape[1] // (kmax * n_a)
    n_prefix = len(starts)
    ends = np.append(starts[1:], block.shape[0])
    result = np.empty((n_prefix, n_later))
    per_chunk = max(1, _CHUNK_ELEMENTS // max(1, qsub.shape[1]))
    width = n_a * n_later
    p = 0
    while p < n_prefix:
        stop = max(int(np.searchsorted(ends, starts[p] + per_chunk, side="right")), p + 1)
        lo, hi = int(starts[p]), int(ends[stop - 1])
        prod = block[lo:hi] @ qsub
        acc = _max_over_actions(prod[:, :width], n_a)
        for o in range(1, kmax):
            acc += _max_over_actions(prod[:, o * width : (o + 1) * width], n_a)
        result[p:stop] = np.add.reduceat(acc, starts[p:stop] - lo, axis=0)
        p = stop
    return result


def _fold_failures(
    gross: list[FloatArray], fail: FloatArray, n: int, k: int, binom: IntArray
) -> list[FloatArray]:
    """``G_f(S) = Σ_{T⊆S} Π_{s∈T}(1−f_s) Π_{s∈S∖T} f_s · G(T)`` for every subset ``S``.

    Applied one failing source ``e`` at a time, the transform is
    ``G(S) ← (1 − f_e) G(S) + f_e G(S ∖ e)`` for every ``S ∋ e`` (the per-source operators
    commute), which touches each subset once per failing member.
    """
    if not np.any(fail > 0):
        return gross
    out = [g.copy() for g in gross]
    subsets = colex_subsets(n, min(k, n))
    # rank of each subset with position p removed, per level: shape (C(n, j), j)
    without: list[IntArray] = [np.zeros((1, 0), dtype=np.int64)]
    for j in range(1, len(subsets)):
        s_arr = subsets[j]
        lower = np.stack([binom[s_arr[:, i], i] for i in range(j)], axis=1)  # shifted down
        upper = np.stack([binom[s_arr[:, i], i + 1] for i in range(j)], axis=1)
        before = np.cumsum(upper, axis=1) - upper
        after = lower[:, ::-1].cumsum(axis=1)[:, ::-1] - lower
        without.append(before + after)
    for e in np.nonzero(fail > 0)[0]:
        f = float(fail[e])
        for j in range(1, len(subsets)):
            rows, p = np.nonzero(subsets[j] == e)
            if rows.size:
                out[j][rows] = (1.0 - f) * out[j][rows] + f * out[j - 1][without[j][rows, p]]
    return out


def all_subset_values(
    problem: DecisionProblem, budget: int, *, limits: DecisionLimits = DEFAULT_LIMITS
) -> tuple[list[IntArray], list[FloatArray]]:
    """``V(S)`` of every subset of at most ``budget`` sources.

    Returns:
        ``(subsets, values)``: per size ``j``, the ``(C(N, j), j)`` array of source indices in
        colexicographic order and the matching values.

    Raises:
        ProblemTooLargeError: if the enumeration exceeds ``limits``.
        InvalidArgumentError: if ``budget`` is negative.
    """
    if budget < 0:
        raise InvalidArgumentError(f"budget must be ≥ 0, got {budget}")
    n_all = problem.n_sources
    k = min(budget, n_all)
    red = reduce_sources(problem)
    ks = [c.shape[0] for c in red.conditional]
    _check_size(n_all, ks, red.q.shape[0], problem.n_actions, k, limits)
    n_inf = len(red.informative)
    k_inf = min(k, n_inf)
    binom = _binomials(max(n_all, n_inf), k + 1)
    gross = _gross_without_failures(red.conditional, red.q, k_inf)
    g_fail = _fold_failures(gross, red.fail, n_inf, k_inf, binom)
    offsets = np.cumsum([0] + [len(g) for g in g_fail])
    flat = np.concatenate(g_fail)
    pos = np.full(n_all, -1, dtype=np.int64)
    pos[list(red.informative)] = np.arange(n_inf)
    subsets = colex_subsets(n_all, k)
    values: list[FloatArray] = []
    for s_arr in subsets:
        t = pos[s_arr]
        member = t >= 0
        ordinal = np.cumsum(member, axis=1)  # 1-based position among informative members
        contrib = np.where(member, binom[np.maximum(t, 0), ordinal], 0)
        rank = contrib.sum(axis=1)
        size = member.sum(axis=1)
        cost = problem.costs[s_arr].sum(axis=1)
        values.append(flat[offsets[size] + rank] - problem.cost_weight * cost)
    return subsets, values


def static_oracle(
    problem: DecisionProblem, budget: int, *, limits: DecisionLimits = DEFAULT_LIMITS
) -> StaticOracleResult:
    """Exact static oracle over all subsets of at most ``budget`` sources (SPEC §3).

    Raises:
        ProblemTooLargeError: with the numbers, when the enumeration would be unreasonable.
        InvalidArgumentError: if ``budget`` is negative.
    """
    subsets, values = all_subset_values(problem, budget, limits=limits)
    v_star = max(float(v.max()) for v in values if v.size)
    ids = problem.source_ids
    optimal: list[tuple[str, ...]] = []
    for s_arr, v in zip(subsets, values, strict=True):
        for row in s_arr[v >= v_star - OPTIMAL_TOLERANCE]:
            optimal.append(tuple(sorted(ids[int(i)] for i in row)))
    optimal.sort(key=lambda t: (len(t), t))
    members = {m for t in optimal for m in t}
    return StaticOracleResult(
        v_star=v_star,
        optimal_sets=tuple(optimal),
        u_random=float(values[-1].mean()),
        v_empty=float(values[0][0]),
        critical=tuple(s for s in ids if s in members),
        budget=budget,
        n_subsets=sum(len(v) for v in values),
    )
