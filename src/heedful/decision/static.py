"""The static oracle: ``V* = max_{|S| ≤ budget} V(S)`` by exhaustive enumeration (SPEC §3).

With hidden sources (issue 23) the maximum runs over the *feasible* sets only: every hidden
member's revealer is in the set (a read reveals its links whatever it returns, so ``V(S)`` itself
is unchanged).

How it stays fast (document 000 §14.3 asks for C(30, 5) = 142,506 subsets to be routine):

1. Sources are reduced to their information (:func:`reduce_sources`): zero-information sources
   (echoes, sources reporting nothing) only add cost, failures become a weight, and worlds no
   source can tell apart are lumped.
2. The gross value without failures, ``G(T)``, is computed for every subset ``T`` of the
   informative sources level by level in colexicographic order: the joint likelihood rows of all
   subsets of one size are stacked and multiplied with ``p·u`` in one matrix product per block
   (one block per largest element). The last two levels are never materialised: the rows of a
   subset of size ``k − 2`` are multiplied with the outcome columns of every later pair at once.
3. Failures are folded back exactly: ``G_f(S) = Σ_{T⊆S} Π_{T}(1−f) Π_{S∖T} f · G(T)``, one
   failing source at a time.
4. Every subset of all sources is then one table lookup: ``V(S) = G_f(S ∩ I) − λ·c(S)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from math import comb

import numpy as np
import numpy.typing as npt

from heedful.decision.config import (
    DEFAULT_LIMITS,
    OPTIMAL_TOLERANCE,
    UNINFORMATIVE_TOLERANCE,
    DecisionLimits,
)
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
        u_random: exact mean of ``V(S)`` over all subsets of size ``min(budget, N)`` (with
            hidden sources: of the listed sources only, ``N`` counting them).
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
        return self.v_star - self.u_random >= UNINFORMATIVE_TOLERANCE

    def as_dict(self) -> dict[str, object]:
        """JSON-ready form (sets as lists)."""
        return {
            "v_star": self.v_star,
            "optimal_sets": [list(s) for s in self.optimal_sets],
            "u_random": self.u_random,
            "v_empty": self.v_empty,
            "critical": list(self.critical),
            "budget": self.budget,
            "n_subsets": self.n_subsets,
        }


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
    # Index arrays, values and the temporaries of one size level (measured: ~40·k + 48 B each).
    memory = n_subsets * (40 * k + 48)
    if memory > lim.max_static_bytes:
        raise ProblemTooLargeError(
            f"the static oracle would need about {memory / 1e9:.2g} GB of memory for "
            f"{n_subsets:,} subsets ({n_all} sources, budget {k}); "
            f"the limit is {lim.max_static_bytes / 1e9:.2g} GB"
        )
    kk = min(k, len(ks))
    e = _elementary(ks, kk)
    # levels ≤ kk − 2 materialise their joint rows; the last two levels cost, per joint row of
    # size kk − 1, one product with the outcome columns of every later source (about half of all)
    flops = sum(e[j] for j in range(max(kk - 1, 0))) * n_lumps * (n_actions + 1)
    if kk >= 1:
        flops += e[kk - 1] * n_lumps * n_actions * (1 + sum(ks) / 2)
    stored = e[kk - 2] * n_lumps if kk >= 2 else float(n_lumps)
    if flops > lim.max_static_flops or stored > lim.max_rows * 16:
        raise ProblemTooLargeError(
            f"the static oracle would need about {flops:.2g} floating-point operations and "
            f"{stored:.2g} stored values ({len(ks)} informative sources with "
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
    """``G(T)`` for every subset ``T`` of the informative sources, sizes ``0..k`` (colex order).

    Joint rows of the subsets of size ``j ≤ k − 2`` are stored; the last two levels are computed
    from them without materialising their rows (see :func:`_last_two_levels`).
    """
    n = len(cond)
    n_w, n_a = q.shape
    out: list[FloatArray] = [np.array([q.sum(axis=0).max()])]
    k = min(k, n)
    if k == 0:
        return out
    rows = np.ones((1, n_w))
    counts = np.array([1], dtype=np.int64)
    for j in range(1, k - 1):
        g_j = np.empty(comb(n, j))
        offsets = np.concatenate([[0], np.cumsum(counts)])
        new_rows: list[FloatArray] = []
        new_counts: list[IntArray] = []
        for s in range(j - 1, n):
            m = comb(s, j - 1)
            block = (rows[: offsets[m], None, :] * cond[s][None, :, :]).reshape(-1, n_w)
            bcounts = counts[:m] * cond[s].shape[0]
            starts = np.concatenate([[0], np.cumsum(bcounts)[:-1]])
            g_j[comb(s, j) : comb(s, j) + m] = np.add.reduceat(
                _max_over_actions(block @ q, n_a), starts
            )[:, 0]
            new_rows.append(block)
            new_counts.append(bcounts)
        out.append(g_j)
        rows = np.concatenate(new_rows)
        counts = np.concatenate(new_counts)
    out.extend(_last_two_levels(rows, counts, cond, q, k))
    return out


def _last_two_levels(
    rows: FloatArray, counts: IntArray, cond: tuple[FloatArray, ...], q: FloatArray, k: int
) -> list[FloatArray]:
    """``G`` of sizes ``k − 1`` and ``k`` (only ``k`` when ``k == 1``) from the rows of ``k − 2``.

    A subset ``P ∪ {s} ∪ {t}`` (``P`` of size ``k − 2``, ``s < t``) is valued as
    ``Σ_{rows r of P} Σ_{o, o'} max_a Σ_w r(w) L_s(o|w) L_t(o'|w) p(w)u(a, w)``: one matrix
    product of ``P``'s rows with ``L_s(o|·) ⊙ L_t(o'|·) ⊙ pu`` for all later ``t`` at once, per
    outcome ``o`` of ``s``. Later sources are grouped by outcome count so nothing is padded.
    """
    if k == 1:
        return [_singletons(cond, q)]
    n = len(cond)
    n_w, n_a = q.shape
    j = k - 1  # size of P ∪ {s}
    ks = np.array([c.shape[0] for c in cond])
    groups = {int(size): np.nonzero(ks == size)[0] for size in np.unique(ks)}
    # per outcome-count group: pu[w, o, a, t] = L_t(o | w) p(w) u(a, w)
    pu = {
        size: np.stack([cond[t].T[:, :, None] * q[:, None, :] for t in members], axis=3)
        for size, members in groups.items()
    }
    g_last = np.empty(comb(n, j))
    g_k = np.empty(comb(n, k))
    offsets = np.concatenate([[0], np.cumsum(counts)])
    for s in range(j - 1, n):
        m = comb(s, j - 1)
        parts: list[FloatArray] = [q]
        layout: list[tuple[int, IntArray]] = []
        for size, members in groups.items():
            later = members > s
            if later.any():
                parts.append(pu[size][:, :, :, later].reshape(n_w, -1))
                layout.append((size, members[later]))
        table = np.concatenate(parts, axis=1)
        now, nxt = _sweep(rows[: offsets[m]], offsets[: m + 1], cond[s], table, layout, n_a)
        base = comb(s, j)
        g_last[base : base + m] = now
        col = 0
        for _, later_ids in layout:
            ranks = np.array([comb(int(t), k) for t in later_ids], dtype=np.int64)
            g_k[ranks[None, :] + base + np.arange(m)[:, None]] = nxt[:, col : col + len(later_ids)]
            col += len(later_ids)
    return [g_last, g_k]


def _singletons(cond: tuple[FloatArray, ...], q: FloatArray) -> FloatArray:
    n_a = q.shape[1]
    return np.array([float(_max_over_actions(c @ q, n_a).sum()) for c in cond])


def _sweep(
    rows: FloatArray,
    offsets: IntArray,
    s_rows: FloatArray,
    table: FloatArray,
    layout: list[tuple[int, IntArray]],
    n_a: int,
) -> tuple[FloatArray, FloatArray]:
    """Per prefix (rows ``offsets[i]:offsets[i+1]``): value with ``s`` alone and with each later
    source, summed over the outcomes of ``s`` and of the later source. Chunked by prefix."""
    n_prefix = len(offsets) - 1
    n_later = sum(len(ids) for _, ids in layout)
    now = np.empty(n_prefix)
    nxt = np.empty((n_prefix, n_later))
    per_chunk = max(1, _CHUNK_ELEMENTS // max(1, table.shape[1]))
    p = 0
    while p < n_prefix:
        stop = max(int(np.searchsorted(offsets, offsets[p] + per_chunk, side="right")) - 1, p + 1)
        stop = min(stop, n_prefix)
        lo, hi = int(offsets[p]), int(offsets[stop])
        chunk = rows[lo:hi]
        acc_now = np.zeros((hi - lo, 1))
        acc_next = np.zeros((hi - lo, n_later))
        for o in range(s_rows.shape[0]):
            prod = chunk @ (s_rows[o][:, None] * table)
            acc_now += _max_over_actions(prod[:, :n_a], n_a)
            col, out_col = n_a, 0
            for size, ids in layout:
                width = n_a * len(ids)
                for _ in range(size):
                    acc_next[:, out_col : out_col + len(ids)] += _max_over_actions(
                        prod[:, col : col + width], n_a
                    )
                    col += width
                out_col += len(ids)
        starts = offsets[p:stop] - lo
        now[p:stop] = np.add.reduceat(acc_now[:, 0], starts)
        if n_later:
            nxt[p:stop] = np.add.reduceat(acc_next, starts, axis=0)
        p = stop
    return now, nxt


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
    if problem.hidden:
        # Issue 23: a hidden source can be read only with its revealer; the random baseline
        # reads listed sources only (what a policy that ignores reveals can reach).
        feasible = [feasible_rows(problem, s_arr) for s_arr in subsets]
        listed = np.array([i in set(problem.listed()) for i in range(problem.n_sources)])
        k_random = min(budget, int(listed.sum()))
        top = subsets[k_random]
        u_random = float(values[k_random][listed[top].all(axis=1)].mean())
        values = [np.where(ok, v, -np.inf) for ok, v in zip(feasible, values, strict=True)]
    else:
        u_random = float(values[-1].mean())
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
        u_random=u_random,
        v_empty=float(values[0][0]),
        critical=tuple(s for s in ids if s in members),
        budget=budget,
        n_subsets=sum(len(v) for v in values),
    )


def feasible_rows(problem: DecisionProblem, s_arr: IntArray) -> npt.NDArray[np.bool_]:
    """Per row of ``s_arr`` (subsets as index rows): every hidden member's revealer is a
    member too (issue 23; chains follow, since a hidden revealer needs its own revealer)."""
    if problem.revealed_by is None or s_arr.shape[1] == 0:
        return np.ones(s_arr.shape[0], dtype=bool)
    rev = np.asarray(problem.revealed_by, dtype=np.int64)[s_arr]  # (rows, j)
    present = (s_arr[:, :, None] == rev[:, None, :]).any(axis=1)
    return np.asarray(((rev < 0) | present).all(axis=1))


def forced_read_bound(
    problem: DecisionProblem,
    budget: int,
    forced: Sequence[int],
    *,
    limits: DecisionLimits = DEFAULT_LIMITS,
) -> float:
    """The value of the best static set when the reads ``forced`` come free, outside the budget.

    ``max_{S} G(S ∪ F) − λ·c(S)`` over sets ``S`` of at most ``budget`` other sources (each
    hidden member's revealer in ``S ∪ F``), where ``G`` is the gross value (before costs). Free
    information never lowers the gross value, so this is at least ``V*`` and at least ``V(S)`` of
    every feasible set: an upper bound on any policy's static value (document 000 §21's
    "forced authoritative read (upper-bound diagnostic)" when ``F`` are the authoritative reads).

    Computed by conditioning on the forced reads' joint outcome ``o``:
    ``G(S ∪ F) = Σ_o P(o)·G(S | o)``, one :func:`all_subset_values` per outcome.

    Raises:
        ProblemTooLargeError: as :func:`all_subset_values`.
        InvalidArgumentError: if ``budget`` is negative or ``forced`` names no source.
    """
    forced_idx = sorted({int(i) for i in forced})
    if any(not 0 <= i < problem.n_sources for i in forced_idx):
        raise InvalidArgumentError(f"forced reads out of range: {list(forced)}")
    joint = np.ones((1, problem.n_worlds))
    for i in forced_idx:
        lik = problem.likelihoods[i]
        joint = (joint[:, None, :] * lik[None, :, :]).reshape(-1, problem.n_worlds)
    weighted = joint * problem.prior[None, :]
    total: list[FloatArray] | None = None
    subsets: list[IntArray] = []
    for row in weighted:
        mass = float(row.sum())
        if mass <= 0.0:
            continue
        given = replace(problem, prior=row / mass)
        subsets, values = all_subset_values(given, budget, limits=limits)
        if total is None:
            total = [mass * v for v in values]
        else:
            total = [t + mass * v for t, v in zip(total, values, strict=True)]
    assert total is not None  # the outcome probabilities sum to 1
    chosen = np.zeros(problem.n_sources, dtype=bool)
    chosen[forced_idx] = True
    best = -np.inf
    for s_arr, v in zip(subsets, total, strict=True):
        ok = ~chosen[s_arr].any(axis=1) if s_arr.shape[1] else np.ones(len(v), dtype=bool)
        if problem.revealed_by is not None and s_arr.shape[1]:
            rev = np.asarray(problem.revealed_by, dtype=np.int64)[s_arr]
            present = (s_arr[:, :, None] == rev[:, None, :]).any(axis=1) | chosen[
                np.maximum(rev, 0)
            ]
            ok &= ((rev < 0) | present).all(axis=1)
        if ok.any():
            best = max(best, float(v[ok].max()))
    return best
