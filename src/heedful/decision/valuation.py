"""Exact value of a set of inspections, ``V(S)`` (SPEC §3).

``V(S) = Σ_o max_a Σ_w p(w) Π_{s∈S} L_s(o_s | w) u(a, w) − cost_weight · Σ_{s∈S} c(s)``.

Two facts keep this cheap. (1) ``Σ_o max_a (·)`` is positively homogeneous in the joint
likelihood row, so rows that are proportional (outcomes carrying the same information) can be
summed into one before taking the maximum. (2) A row that is constant across worlds (a failed
inspection, an echo, a source reporting nothing) carries no information at all.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from heedful.decision.config import DEFAULT_LIMITS, DecisionLimits
from heedful.decision.problem import DecisionProblem, FloatArray
from heedful.errors import ProblemTooLargeError

_ROUND = 12  # decimals used to recognise proportional rows / identical columns


def merge_proportional_rows(rows: FloatArray) -> FloatArray:
    """Drop all-zero rows and sum rows that are proportional to each other.

    Summing is exact for ``Σ_o max_a`` because ``max_a`` is positively homogeneous.
    """
    mass = rows.sum(axis=1)
    rows = rows[mass > 0]
    if rows.shape[0] <= 1:
        return rows
    keys = np.round(rows / rows.sum(axis=1, keepdims=True), _ROUND)
    inverse = _row_groups(keys)
    if inverse.max() + 1 == rows.shape[0]:
        return rows
    merged = np.zeros((int(inverse.max()) + 1, rows.shape[1]))
    np.add.at(merged, inverse, rows)
    return merged


def _row_groups(keys: FloatArray) -> np.ndarray:
    """Index of each row among the distinct rows sorted lexicographically.

    What ``np.unique(keys, axis=0, return_inverse=True)`` returns, without its slow
    structured-dtype path: sort the rows (last column least significant), then number runs of
    equal rows.
    """
    order = np.lexsort(keys.T[::-1])
    ordered = keys[order]
    new_group = np.empty(len(order), dtype=bool)
    new_group[0] = True
    new_group[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    inverse = np.empty(len(order), dtype=np.intp)
    inverse[order] = np.cumsum(new_group) - 1
    return inverse


#: Joint observation rows of subsets already valued, per problem (callers value many subsets
#: sharing their smallest sources; each prefix is computed once, by the same operations).
_JOINTS: weakref.WeakKeyDictionary[DecisionProblem, dict[tuple[int, tuple[int, ...]], FloatArray]]
_JOINTS = weakref.WeakKeyDictionary()
_MAX_MEMO = 4096  # subsets remembered per problem
_MAX_MEMO_BYTES = 1 << 20  # larger joints are recomputed rather than kept


def _joint(
    problem: DecisionProblem, idx: tuple[int, ...], size: int, limits: DecisionLimits
) -> FloatArray:
    """The merged joint rows of the sorted sources ``idx`` (``size``: the subset's size)."""
    memo = _JOINTS.get(problem)
    if memo is None:
        memo = _JOINTS[problem] = {}
    key = (limits.max_rows, idx)
    hit = memo.get(key)
    if hit is not None:
        return hit
    if not idx:
        return problem.prior[None, :].copy()
    joint = _joint(problem, idx[:-1], size, limits)
    lik = problem.likelihoods[idx[-1]]
    if lik.shape[0] * joint.shape[0] > limits.max_rows:
        raise ProblemTooLargeError(
            f"V(S) of {size} sources needs {lik.shape[0] * joint.shape[0]:,} joint "
            f"observation rows at once; the limit is {limits.max_rows:,}"
        )
    joint = (joint[:, None, :] * lik[None, :, :]).reshape(-1, problem.n_worlds)
    joint = merge_proportional_rows(joint)
    if joint.nbytes <= _MAX_MEMO_BYTES:
        if len(memo) >= _MAX_MEMO:
            memo.clear()
        joint.flags.writeable = False
        memo[key] = joint
    return joint


def gross_value_of_rows(rows: FloatArray, problem: DecisionProblem) -> float:
    """``Σ_o max_a Σ_w rows[o, w] u(a, w)`` where ``rows`` already include the prior."""
    return float((rows @ problem.utility.T).max(axis=1).sum())


def value(
    problem: DecisionProblem,
    subset: Sequence[str] | Sequence[int],
    *,
    limits: DecisionLimits = DEFAULT_LIMITS,
) -> float:
    """Exact ``V(S)``: inspect all of ``subset``, act Bayes-optimally, minus the weighted cost.

    Args:
        problem: The decision problem.
        subset: Source ids (or indices); order does not matter.
        limits: Size limits.

    Raises:
        ProblemTooLargeError: if the distinct joint observations exceed ``limits.max_rows``.
    """
    idx = problem.indices(subset)
    joint = _joint(problem, idx, len(idx), limits)
    cost = float(problem.costs[list(idx)].sum()) if idx else 0.0
    return gross_value_of_rows(joint, problem) - problem.cost_weight * cost


def value_empty(problem: DecisionProblem) -> float:
    """``V(∅)``: the expected utility of acting on the prior alone."""
    return float((problem.utility @ problem.prior).max())


@dataclass(frozen=True)
class ReducedSources:
    """Sources reduced to their information content (used by the oracles).

    Attributes:
        informative: indices of sources with at least one informative outcome.
        fail: per informative source, the total probability of its uninformative outcomes.
        conditional: per informative source, ``L(o | w, not failed)`` over lumped worlds,
            proportional outcomes merged.
        q: ``Σ_{w in lump} p(w) u(a, w)``, shape ``(n_lumps, n_actions)``.
        prior: prior mass of each lumped world.
        lump_of_world: lump index of every original world.
    """

    informative: tuple[int, ...]
    fail: FloatArray
    conditional: tuple[FloatArray, ...]
    q: FloatArray
    prior: FloatArray
    lump_of_world: np.ndarray


def reduce_sources(problem: DecisionProblem) -> ReducedSources:
    """Split every source into "uninformative" mass and an informative conditional part.

    A row constant across worlds tells nothing; summing those rows gives the source's failure
    mass ``f``. The remaining rows divided by ``1 − f`` form a proper likelihood given "not
    failed". Worlds that no informative source can tell apart are lumped together.
    """
    informative: list[int] = []
    fails: list[float] = []
    parts: list[FloatArray] = []
    for i, lik in enumerate(problem.likelihoods):
        constant = np.ptp(lik, axis=1) <= 1e-15
        f = float(lik[constant, 0].sum()) if constant.any() else 0.0
        rest = lik[~constant]
        if rest.shape[0] == 0 or f >= 1.0:
            continue
        informative.append(i)
        fails.append(min(max(f, 0.0), 1.0))
        parts.append(merge_proportional_rows(rest / (1.0 - f)))
    q_full = (problem.prior[None, :] * problem.utility).T  # (n_worlds, n_actions)
    if parts:
        stacked = np.round(np.vstack(parts), _ROUND)
        _, first, lump = np.unique(stacked, axis=1, return_index=True, return_inverse=True)
        lump = lump.reshape(-1)
    else:
        first = np.array([0])
        lump = np.zeros(problem.n_worlds, dtype=np.int64)
    n_lumps = int(lump.max()) + 1
    q = np.zeros((n_lumps, problem.n_actions))
    np.add.at(q, lump, q_full)
    prior = np.zeros(n_lumps)
    np.add.at(prior, lump, problem.prior)
    conditional = tuple(c[:, first] for c in parts)
    return ReducedSources(
        informative=tuple(informative),
        fail=np.array(fails, dtype=np.float64),
        conditional=conditional,
        q=q,
        prior=prior,
        lump_of_world=lump,
    )
