"""The decision problem: worlds, prior, utilities, sources' observation likelihoods (SPEC §3).

A :class:`DecisionProblem` is plain arrays. :func:`heedful.decision.compile_problem` builds one
from a scenario; the controller's model-based estimator builds them from *estimated* priors and
accuracies through the constructor, which validates everything.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from heedful.errors import InvalidArgumentError, UnknownNameError

FloatArray = npt.NDArray[np.float64]

PROBABILITY_TOLERANCE = 1e-9
"""Priors and likelihood columns must sum to 1 within this."""

OutcomeLabel = Mapping[str, str] | None
"""What an outcome reports: variable → value, ``{}`` for a source reporting nothing, ``None``
for a failed inspection."""


def _as_array(name: str, value: npt.ArrayLike, ndim: int) -> FloatArray:
    try:
        arr = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"{name} must be numeric: {exc}") from None
    if arr.ndim != ndim:
        raise InvalidArgumentError(f"{name} must have {ndim} dimension(s), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InvalidArgumentError(f"{name} must be finite")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class DecisionProblem:
    """A finite decision problem with costly information sources.

    Args:
        prior: ``p(w)``, shape ``(n_worlds,)``, non-negative, sums to 1.
        utility: ``u(a, w)``, shape ``(n_actions, n_worlds)``.
        likelihoods: per source, ``L_s(o | w)`` of shape ``(n_outcomes_s, n_worlds)``; every column
            sums to 1.
        costs: scalar cost ``c(s)`` per source, shape ``(n_sources,)``, non-negative.
        cost_weight: utility units per unit of scalar cost (≥ 0).
        source_ids: unique source ids, in the order of ``likelihoods``.
        action_ids: unique action ids, in the order of ``utility`` rows.
        variables: optional ``(name, domain)`` pairs; worlds are then the product of the domains
            in this order (last variable fastest).
        outcome_labels: optional, per source, what each outcome reports (see
            :data:`OutcomeLabel`); needed by :func:`outcome_index` and :func:`outcome_values`.
        revealed_by: optional, per source, the index of the source whose read reveals it, or
            −1 for a source listed up front (issue 23). A hidden source can be inspected only
            after its revealer (whatever that read returned): static sets must hold the
            revealer too, and the adaptive oracle offers it only after the revealer.

    Raises:
        InvalidArgumentError: if shapes, probabilities or ids are inconsistent.
    """

    prior: FloatArray
    utility: FloatArray
    likelihoods: tuple[FloatArray, ...]
    costs: FloatArray
    cost_weight: float
    source_ids: tuple[str, ...]
    action_ids: tuple[str, ...]
    variables: tuple[tuple[str, tuple[str, ...]], ...] | None = None
    outcome_labels: tuple[tuple[OutcomeLabel, ...], ...] | None = None
    revealed_by: tuple[int, ...] | None = None
    _source_index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        prior = _as_array("prior", self.prior, 1)
        utility = _as_array("utility", self.utility, 2)
        costs = _as_array("costs", self.costs, 1)
        n_worlds = prior.shape[0]
        if n_worlds == 0:
            raise InvalidArgumentError("the problem needs at least one world")
        if np.any(prior < 0) or abs(float(prior.sum()) - 1.0) > PROBABILITY_TOLERANCE:
            raise InvalidArgumentError("prior must be non-negative and sum to 1 (±1e-9)")
        if utility.shape[1] != n_worlds or utility.shape[0] == 0:
            raise InvalidArgumentError(
                f"utility must have shape (n_actions ≥ 1, {n_worlds}), got {utility.shape}"
            )
        source_ids = tuple(str(s) for s in self.source_ids)
        action_ids = tuple(str(a) for a in self.action_ids)
        if len(action_ids) != utility.shape[0] or len(set(action_ids)) != len(action_ids):
            raise InvalidArgumentError(
                f"need {utility.shape[0]} unique action ids, got {list(action_ids)}"
            )
        if len(set(source_ids)) != len(source_ids):
            raise InvalidArgumentError(f"source ids must be unique, got {list(source_ids)}")
        liks = tuple(_as_array(f"likelihoods[{i}]", m, 2) for i, m in enumerate(self.likelihoods))
        if len(liks) != len(source_ids) or costs.shape[0] != len(source_ids):
            raise InvalidArgumentError(
                f"{len(source_ids)} source ids, {len(liks)} likelihood matrices and "
                f"{costs.shape[0]} costs: these must agree"
            )
        for sid, lik in zip(source_ids, liks, strict=True):
            if lik.shape[1] != n_worlds or lik.shape[0] == 0:
                raise InvalidArgumentError(
                    f"likelihoods of {sid!r} must have shape (n_outcomes ≥ 1, {n_worlds}), "
                    f"got {lik.shape}"
                )
            if np.any(lik < 0) or np.any(np.abs(lik.sum(axis=0) - 1.0) > PROBABILITY_TOLERANCE):
                raise InvalidArgumentError(
                    f"likelihoods of {sid!r}: entries must be ≥ 0 and every column sum to 1"
                )
        if np.any(costs < 0):
            raise InvalidArgumentError("costs must be non-negative")
        cost_weight = float(self.cost_weight)
        if not math.isfinite(cost_weight) or cost_weight < 0:
            raise InvalidArgumentError(f"cost_weight must be finite and ≥ 0, got {cost_weight}")
        if self.variables is not None:
            size = math.prod(len(d) for _, d in self.variables)
            if size != n_worlds:
                raise InvalidArgumentError(
                    f"the variables' domains make {size} worlds but the prior has {n_worlds}"
                )
        if self.outcome_labels is not None:
            if len(self.outcome_labels) != len(source_ids):
                raise InvalidArgumentError("outcome_labels needs one entry per source")
            for sid, labels, lik in zip(source_ids, self.outcome_labels, liks, strict=True):
                if len(labels) != lik.shape[0]:
                    raise InvalidArgumentError(
                        f"outcome_labels of {sid!r} has {len(labels)} entries, "
                        f"its likelihood matrix {lik.shape[0]} outcomes"
                    )
        if self.revealed_by is not None:
            object.__setattr__(
                self, "revealed_by", _check_reveals(self.revealed_by, len(source_ids))
            )
        object.__setattr__(self, "prior", prior)
        object.__setattr__(self, "utility", utility)
        object.__setattr__(self, "costs", costs)
        object.__setattr__(self, "likelihoods", liks)
        object.__setattr__(self, "cost_weight", cost_weight)
        object.__setattr__(self, "source_ids", source_ids)
        object.__setattr__(self, "action_ids", action_ids)
        object.__setattr__(self, "_source_index", {s: i for i, s in enumerate(source_ids)})

    @property
    def hidden(self) -> bool:
        """Some source is hidden until another is read (``revealed_by``)."""
        return self.revealed_by is not None and any(r >= 0 for r in self.revealed_by)

    def listed(self) -> tuple[int, ...]:
        """Indices of the sources listed up front (every source when none is hidden)."""
        rev = self.revealed_by
        return tuple(i for i in range(self.n_sources) if rev is None or rev[i] < 0)

    def available(self, done: Sequence[int] | frozenset[int] | set[int]) -> list[bool]:
        """Per source: may it be inspected after the sources ``done`` (listed, or revealed by
        one of them)? Sources already done are reported available too; callers skip them."""
        rev = self.revealed_by
        if rev is None:
            return [True] * self.n_sources
        seen = set(done)
        return [r < 0 or r in seen for r in rev]

    def feasible(self, subset: Sequence[int]) -> bool:
        """A static set every hidden member of which has its revealer in the set too."""
        rev = self.revealed_by
        if rev is None:
            return True
        members = set(subset)
        return all(rev[i] < 0 or rev[i] in members for i in members)

    @property
    def n_worlds(self) -> int:
        """Number of joint world states."""
        return int(self.prior.shape[0])

    @property
    def n_actions(self) -> int:
        """Number of actions."""
        return int(self.utility.shape[0])

    @property
    def n_sources(self) -> int:
        """Number of sources."""
        return len(self.source_ids)

    def n_outcomes(self, source_id: str) -> int:
        """Number of outcomes of a source (its failed outcome included)."""
        return int(self.likelihoods[self.source_index(source_id)].shape[0])

    def source_index(self, source_id: str) -> int:
        """Index of a source id (UnknownNameError if absent)."""
        try:
            return self._source_index[source_id]
        except KeyError:
            raise UnknownNameError(
                f"unknown source {source_id!r}; known: {', '.join(self.source_ids) or 'none'}"
            ) from None

    def indices(self, subset: Sequence[str] | Sequence[int]) -> tuple[int, ...]:
        """Sorted unique source indices of a subset given by ids or indices."""
        out: set[int] = set()
        for item in subset:
            if isinstance(item, str):
                out.add(self.source_index(item))
            elif isinstance(item, int | np.integer) and 0 <= int(item) < self.n_sources:
                out.add(int(item))
            else:
                raise InvalidArgumentError(f"not a source id or index: {item!r}")
        if len(out) != len(subset):
            raise InvalidArgumentError(f"a subset lists a source twice: {list(subset)}")
        return tuple(sorted(out))

    def world_index(self, world: Mapping[str, str]) -> int:
        """Index of a joint world given as variable → value (needs ``variables``)."""
        if self.variables is None:
            raise InvalidArgumentError("this problem has no variable labels")
        index = 0
        for name, domain in self.variables:
            if name not in world:
                raise InvalidArgumentError(f"the world gives no value for {name!r}")
            try:
                pos = domain.index(world[name])
            except ValueError:
                raise InvalidArgumentError(
                    f"value {world[name]!r} of {name!r} is not in the domain {list(domain)}"
                ) from None
            index = index * len(domain) + pos
        return index

    def world(self, index: int) -> dict[str, str]:
        """The joint world with this index as variable → value (needs ``variables``)."""
        if self.variables is None:
            raise InvalidArgumentError("this problem has no variable labels")
        if not 0 <= index < self.n_worlds:
            raise InvalidArgumentError(f"world index {index} out of range 0..{self.n_worlds - 1}")
        out: dict[str, str] = {}
        for name, domain in reversed(self.variables):
            index, pos = divmod(index, len(domain))
            out[name] = domain[pos]
        return dict(reversed(list(out.items())))


def _check_reveals(revealed_by: Sequence[int], n_sources: int) -> tuple[int, ...]:
    rev = tuple(int(r) for r in revealed_by)
    if len(rev) != n_sources:
        raise InvalidArgumentError(f"revealed_by needs one entry per source, got {len(rev)}")
    for i, r in enumerate(rev):
        if r == i or not -1 <= r < n_sources:
            raise InvalidArgumentError(f"revealed_by[{i}] = {r} is not another source or −1")
    for i in range(n_sources):
        seen = {i}
        at = rev[i]
        while at >= 0:
            if at in seen:
                raise InvalidArgumentError(f"revealed_by has a cycle through source {i}")
            seen.add(at)
            at = rev[at]
    return rev


def outcome_index(
    problem: DecisionProblem, source_id: str, reported: Mapping[str, str] | None
) -> int:
    """Index of the outcome of ``source_id`` that reports ``reported`` (``None`` = failed).

    Raises:
        InvalidArgumentError: if the problem has no outcome labels or no outcome matches.
    """
    labels = _labels(problem, source_id)
    want = None if reported is None else dict(reported)
    for i, label in enumerate(labels):
        if (label is None and want is None) or (
            label is not None and want is not None and dict(label) == want
        ):
            return i
    # A source reporting nothing has a single outcome; failing tells nothing more.
    if (want is None or want == {}) and len(labels) == 1 and labels[0] == {}:
        return 0
    raise InvalidArgumentError(f"source {source_id!r} has no outcome reporting {reported!r}")


def outcome_values(problem: DecisionProblem, source_id: str, index: int) -> dict[str, str] | None:
    """What outcome ``index`` of ``source_id`` reports (``None`` = the inspection failed)."""
    labels = _labels(problem, source_id)
    if not 0 <= index < len(labels):
        raise InvalidArgumentError(
            f"outcome {index} out of range for {source_id!r} (0..{len(labels) - 1})"
        )
    label = labels[index]
    return None if label is None else dict(label)


def _labels(problem: DecisionProblem, source_id: str) -> tuple[OutcomeLabel, ...]:
    i = problem.source_index(source_id)
    if problem.outcome_labels is None:
        raise InvalidArgumentError("this problem was built from arrays without outcome labels")
    return problem.outcome_labels[i]
