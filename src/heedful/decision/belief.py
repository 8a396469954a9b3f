"""Beliefs, Bayes-optimal action, myopic value of information and VPI (SPEC §3).

A belief is a probability vector over the problem's joint worlds. ``myopic_voi`` and ``vpi``
bracket the value of optimal further computation (Callaway et al. 2018, "BMPS"):
``VOI₁ ≤ VOC* ≤ VPI``; the controller's model-based estimator uses both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from heedful.decision.problem import DecisionProblem, FloatArray
from heedful.errors import InvalidArgumentError

Observations = Mapping[str, int] | Sequence[tuple[str, int]]
"""Observed outcomes: source id → outcome index, or a sequence of ``(source_id, outcome)``."""


def normalized(problem: DecisionProblem, belief: npt.ArrayLike | None) -> FloatArray:
    """Validate a belief over the problem's worlds and scale it to sum to 1 (``None`` = prior)."""
    if belief is None:
        return problem.prior.copy()
    b = np.asarray(belief, dtype=np.float64)
    if b.shape != (problem.n_worlds,):
        raise InvalidArgumentError(f"a belief must have shape ({problem.n_worlds},), got {b.shape}")
    if not np.all(np.isfinite(b)) or np.any(b < 0) or b.sum() <= 0:
        raise InvalidArgumentError("a belief must be finite, non-negative and not all zero")
    return b / b.sum()


def _pairs(observations: Observations) -> list[tuple[str, int]]:
    if isinstance(observations, Mapping):
        return [(str(k), int(v)) for k, v in observations.items()]
    return [(str(k), int(v)) for k, v in observations]


def posterior(
    problem: DecisionProblem,
    observations: Observations,
    *,
    belief: npt.ArrayLike | None = None,
) -> FloatArray:
    """Bayes' rule: the belief after the observed outcomes, starting from ``belief`` or the prior.

    Raises:
        InvalidArgumentError: if an outcome index is out of range or the observations have
            probability zero under the belief.
    """
    b = normalized(problem, belief)
    for source_id, outcome in _pairs(observations):
        lik = problem.likelihoods[problem.source_index(source_id)]
        if not 0 <= outcome < lik.shape[0]:
            raise InvalidArgumentError(
                f"outcome {outcome} out of range for {source_id!r} (0..{lik.shape[0] - 1})"
            )
        b = b * lik[outcome]
    total = b.sum()
    if total <= 0:
        raise InvalidArgumentError("the observations have probability zero under this belief")
    return b / total


def best_action(problem: DecisionProblem, belief: npt.ArrayLike | None = None) -> tuple[str, float]:
    """The Bayes-optimal action under a belief and its expected utility (ties: first action)."""
    b = normalized(problem, belief)
    expected = problem.utility @ b
    i = int(np.argmax(expected))
    return problem.action_ids[i], float(expected[i])


def sample_outcome(
    problem: DecisionProblem, source_id: str, world_index: int, rng: np.random.Generator
) -> int:
    """Draw the outcome of inspecting ``source_id`` when the world is ``world_index``."""
    if not 0 <= world_index < problem.n_worlds:
        raise InvalidArgumentError(
            f"world index {world_index} out of range 0..{problem.n_worlds - 1}"
        )
    column = problem.likelihoods[problem.source_index(source_id)][:, world_index]
    return int(rng.choice(column.shape[0], p=column / column.sum()))


@dataclass(frozen=True)
class MyopicVoi:
    """Value of one inspection followed by acting (no further inspections).

    Attributes:
        gross: ``E_o[max_a E[u | b, o]] − max_a E[u | b]`` (≥ 0).
        cost: ``cost_weight × c(s)``.
        net: ``gross − cost``: positive when the single inspection is worth making.
    """

    gross: float
    cost: float
    net: float


def myopic_voi(problem: DecisionProblem, belief: npt.ArrayLike | None, source_id: str) -> MyopicVoi:
    """Myopic value of inspecting ``source_id`` from ``belief`` (``None`` = the prior)."""
    b = normalized(problem, belief)
    i = problem.source_index(source_id)
    joint = problem.likelihoods[i] * b[None, :]
    after = float((joint @ problem.utility.T).max(axis=1).sum())
    now = float((problem.utility @ b).max())
    gross = max(after - now, 0.0)
    cost = problem.cost_weight * float(problem.costs[i])
    return MyopicVoi(gross=gross, cost=cost, net=gross - cost)


def myopic_voi_all(
    problem: DecisionProblem, belief: npt.ArrayLike | None = None
) -> dict[str, MyopicVoi]:
    """:func:`myopic_voi` of every source, keyed by source id."""
    b = normalized(problem, belief)
    return {s: myopic_voi(problem, b, s) for s in problem.source_ids}


def vpi(problem: DecisionProblem, belief: npt.ArrayLike | None = None) -> float:
    """Value of perfect information: ``E_w[max_a u(a, w)] − max_a E[u]`` under ``belief``."""
    b = normalized(problem, belief)
    return max(float(b @ problem.utility.max(axis=0) - (problem.utility @ b).max()), 0.0)
