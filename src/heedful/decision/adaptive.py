"""Adaptive inspection: the optimal adaptive policy and the exact value of any policy (SPEC §3).

Adaptive = choose a source, observe its outcome, then choose again or stop and act; at most
``budget`` inspections, each source at most once (as in the static case, where ``S`` is a set).
A hidden source (``DecisionProblem.revealed_by``, issue 23) is offered only once its revealer
has been inspected.

The oracle is a dynamic programme over (inspected set, observations). Values are positively
homogeneous in the unnormalised belief, so states are memoised on (inspected set, posterior):
histories that differ only in order, or in outcomes carrying the same information, share a node.
The last inspection of a branch is evaluated for all sources at once with one array expression.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from heedful.decision.belief import normalized
from heedful.decision.config import DEFAULT_LIMITS, DecisionLimits
from heedful.decision.problem import DecisionProblem, FloatArray
from heedful.errors import InvalidArgumentError, ProblemTooLargeError

History = tuple[tuple[str, int], ...]
"""What an adaptive policy has seen: ``((source_id, outcome_index), ...)`` in order."""

Policy = Callable[[History], "str | None"]
"""A deterministic adaptive policy: history → next source id, or ``None`` to stop and act."""

_TIE = 1e-12  # stopping wins ties; among sources, the first in source order wins
_ROUND = 12


@dataclass(frozen=True)
class AdaptiveOracleResult:
    """The optimal adaptive inspection policy.

    Attributes:
        v_adaptive: expected net utility of the optimal adaptive policy.
        first: the source it inspects first (``None``: acting at once is optimal).
        budget: the budget used.
        n_states: decision nodes expanded.
        policy: the optimal policy itself (history → next source id or ``None``), usable by the
            bench as the adaptive oracle policy.
        q_values: history → the optimal expected net value of each choice from there, per unit
            probability of the history: ``None`` (stop and act) and every source not yet
            inspected and open (listed, or revealed by a read of the history; inspect it, then
            continue optimally); only ``None`` once the budget is
            spent.
            The bench judges each step of a trial against it.
    """

    v_adaptive: float
    first: str | None
    budget: int
    n_states: int
    policy: Policy = field(compare=False, repr=False)
    q_values: Callable[[History], dict[str | None, float]] = field(compare=False, repr=False)


class _Solver:
    def __init__(
        self, problem: DecisionProblem, budget: int, start: FloatArray, limits: DecisionLimits
    ) -> None:
        self.p = problem
        self.budget = min(budget, problem.n_sources)
        self.start = start
        self.limits = limits
        kmax = max(lik.shape[0] for lik in problem.likelihoods) if problem.n_sources else 1
        self.lpad = np.zeros((problem.n_sources, kmax, problem.n_worlds))
        for i, lik in enumerate(problem.likelihoods):
            self.lpad[i, : lik.shape[0]] = lik
        # A source whose outcomes are all uninformative never helps (it only uses budget and
        # cost), so the search skips it; this does not change the optimal value.
        # A source that reveals others (issue 23) is kept: reading it opens them.
        rev = problem.revealed_by or ()
        self.revealer = np.array(rev, dtype=np.int64) if rev else None
        opens = {r for r in rev if r >= 0}
        self.useful = np.array(
            [
                bool(np.any(np.ptp(lik, axis=1) > 1e-15)) or i in opens
                for i, lik in enumerate(problem.likelihoods)
            ],
            dtype=bool,
        )
        self.weighted_cost = problem.cost_weight * problem.costs
        self.memo: dict[tuple[int, bytes], tuple[float, int]] = {}

    def estimate(self) -> tuple[float, float]:
        """Upper bounds on expanded decision nodes and floating-point work.

        With ``e_j`` the number of (inspected set, outcomes) pairs of size ``j`` (elementary
        symmetric sums of the useful sources' outcome counts), nodes that branch in Python are
        ``Σ_{j ≤ budget−2} e_j`` and each of the ``e_{budget−1}`` last-inspection nodes costs one
        array expression over all sources.
        """
        ks = [
            int(lik.shape[0]) for lik, u in zip(self.p.likelihoods, self.useful, strict=True) if u
        ]
        e = [1.0] + [0.0] * self.budget
        for x in ks:
            for j in range(self.budget, 0, -1):
                e[j] += e[j - 1] * x
        branching = sum(e[: max(self.budget - 1, 0)])
        last = e[self.budget - 1] if self.budget >= 1 else 0.0
        nodes = branching + last
        flops = last * self.lpad.size * self.p.n_actions * 2 + branching * self.lpad.size
        return nodes, flops

    def check(self) -> None:
        nodes, flops = self.estimate()
        lim = self.limits
        if nodes > lim.max_adaptive_nodes or flops > lim.max_adaptive_flops:
            raise ProblemTooLargeError(
                f"the adaptive oracle would expand up to {nodes:.3g} decision nodes and "
                f"{flops:.3g} floating-point operations ({self.p.n_sources} sources, "
                f"budget {self.budget}); the limits are {lim.max_adaptive_nodes:.3g} nodes "
                f"and {lim.max_adaptive_flops:.3g} operations"
            )

    def solve(self, b: FloatArray, done: int, left: int) -> tuple[float, int]:
        """(value, choice) for unnormalised belief ``b``; choice −1 means stop and act."""
        mass = float(b.sum())
        if mass <= 0:
            return 0.0, -1
        unit = b / mass
        key = (done, np.round(unit, _ROUND).tobytes())
        hit = self.memo.get(key)
        if hit is not None:
            return hit[0] * mass, hit[1]
        stop = float((self.p.utility @ unit).max())
        best, choice = stop, -1
        if left >= 1:
            avail = self.useful & self.open_after(done)
            if left == 1:
                cont = self._last_inspection(unit)
                cont[~avail] = -np.inf
            else:
                cont = np.full(self.p.n_sources, -np.inf)
                for src in np.nonzero(avail)[0].tolist():
                    total = -float(self.weighted_cost[src])
                    for row in self.p.likelihoods[src]:
                        child = unit * row
                        if child.sum() > 0:
                            total += self.solve(child, done | 1 << src, left - 1)[0]
                    cont[src] = total
            if cont.size and float(cont.max()) > stop + _TIE:
                choice = int(np.argmax(cont >= cont.max() - _TIE))
                best = float(cont[choice])
        self.memo[key] = (best, choice)
        return best * mass, choice

    def open_after(self, done: int) -> npt.NDArray[np.bool_]:
        """Sources that may be inspected next after the set ``done`` (a bit mask): not done,
        and listed or revealed by a done source."""
        n = self.p.n_sources
        bits = np.array([bool(done >> i & 1) for i in range(n)], dtype=bool)
        out = ~bits
        if self.revealer is not None:
            hidden = self.revealer >= 0
            out &= ~hidden | bits[np.maximum(self.revealer, 0)]
        return out

    def _last_inspection(self, unit: FloatArray) -> FloatArray:
        joint = self.lpad * unit[None, None, :]  # (sources, outcomes, worlds)
        gains = (joint @ self.p.utility.T).max(axis=2).sum(axis=1)
        return gains - self.weighted_cost

    def belief_after(self, history: History) -> tuple[FloatArray, int]:
        b = self.start.copy()
        done = 0
        for source_id, outcome in history:
            i = self.p.source_index(source_id)
            if done >> i & 1:
                raise InvalidArgumentError(f"source {source_id!r} appears twice in the history")
            lik = self.p.likelihoods[i]
            if not 0 <= outcome < lik.shape[0]:
                raise InvalidArgumentError(f"outcome {outcome} out of range for {source_id!r}")
            b = b * lik[outcome]
            done |= 1 << i
        if b.sum() <= 0:
            raise InvalidArgumentError("this history has probability zero")
        return b, done

    def q_values(self, history: History) -> dict[str | None, float]:
        history = tuple(history)
        left = self.budget - len(history)
        b, done = self.belief_after(history)
        unit = b / float(b.sum())
        out: dict[str | None, float] = {None: float((self.p.utility @ unit).max())}
        if left <= 0:
            return out
        may = self.open_after(done)
        for src in range(self.p.n_sources):
            if not may[src]:
                continue
            total = -float(self.weighted_cost[src])
            for row in self.p.likelihoods[src]:
                child = unit * row
                if child.sum() > 0:
                    total += self.solve(child, done | 1 << src, left - 1)[0]
            out[self.p.source_ids[src]] = total
        return out

    def policy(self, history: History) -> str | None:
        history = tuple(history)
        left = self.budget - len(history)
        if left <= 0:
            return None
        b, done = self.belief_after(history)
        _, choice = self.solve(b, done, left)
        return None if choice < 0 else self.p.source_ids[choice]


def adaptive_oracle(
    problem: DecisionProblem,
    budget: int,
    *,
    belief: npt.ArrayLike | None = None,
    limits: DecisionLimits = DEFAULT_LIMITS,
) -> AdaptiveOracleResult:
    """The optimal adaptive inspection policy and its exact expected net value.

    Args:
        problem: The decision problem.
        budget: Maximum number of inspections.
        belief: Starting belief (default: the prior).
        limits: Size limits; the state count is estimated before any work is done.

    Raises:
        ProblemTooLargeError: with the estimated numbers, when the search would be too large.
        InvalidArgumentError: if ``budget`` is negative or the belief is malformed.
    """
    if budget < 0:
        raise InvalidArgumentError(f"budget must be ≥ 0, got {budget}")
    solver = _Solver(problem, budget, normalized(problem, belief), limits)
    solver.check()
    v, choice = solver.solve(solver.start, 0, solver.budget)
    return AdaptiveOracleResult(
        v_adaptive=v,
        first=None if choice < 0 else problem.source_ids[choice],
        budget=budget,
        n_states=len(solver.memo),
        policy=solver.policy,
        q_values=solver.q_values,
    )


@dataclass(frozen=True)
class PolicyEvaluation:
    """Exact evaluation of a deterministic adaptive policy.

    Attributes:
        value: expected net utility (act Bayes-optimally when the policy stops).
        expected_inspections: expected number of inspections made.
        inspection_probability: per source id, the probability that it gets inspected.
        n_nodes: decision nodes visited.
    """

    value: float
    expected_inspections: float
    inspection_probability: dict[str, float]
    n_nodes: int


def evaluate_policy(
    problem: DecisionProblem,
    policy: Policy,
    budget: int,
    *,
    belief: npt.ArrayLike | None = None,
    limits: DecisionLimits = DEFAULT_LIMITS,
) -> PolicyEvaluation:
    """Exact expected net value of ``policy`` by branching over every outcome.

    The policy is called with the history so far and returns the next source id or ``None``;
    after ``budget`` inspections it is not asked again.

    Raises:
        InvalidArgumentError: if the policy names a source twice or returns a non-id.
        UnknownNameError: if it names an unknown source.
        ProblemTooLargeError: if more than ``limits.max_adaptive_nodes`` nodes are visited.
    """
    if budget < 0:
        raise InvalidArgumentError(f"budget must be ≥ 0, got {budget}")
    start = normalized(problem, belief)
    probability = np.zeros(problem.n_sources)
    counter = [0]

    def visit(b: FloatArray, history: History, done: frozenset[int], left: int) -> float:
        counter[0] += 1
        if counter[0] > limits.max_adaptive_nodes:
            raise ProblemTooLargeError(
                f"evaluating the policy visited more than {limits.max_adaptive_nodes:,} nodes"
            )
        mass = float(b.sum())
        act = float((problem.utility @ b).max())
        if left <= 0:
            return act
        choice = policy(history)
        if choice is None:
            return act
        if not isinstance(choice, str):
            raise InvalidArgumentError(f"the policy returned {choice!r}, not a source id or None")
        i = problem.source_index(choice)
        if i in done:
            raise InvalidArgumentError(f"the policy inspected {choice!r} twice")
        if not problem.available(done)[i]:
            raise InvalidArgumentError(f"the policy inspected {choice!r} before it was revealed")
        probability[i] += mass
        total = -problem.cost_weight * float(problem.costs[i]) * mass
        for o, row in enumerate(problem.likelihoods[i]):
            child = b * row
            if child.sum() > 0:
                total += visit(child, (*history, (choice, o)), done | {i}, left - 1)
        return total

    v = visit(start, (), frozenset(), budget)
    return PolicyEvaluation(
        value=v,
        expected_inspections=float(probability.sum()),
        inspection_probability={
            s: float(x) for s, x in zip(problem.source_ids, probability, strict=True)
        },
        n_nodes=counter[0],
    )


def policy_value(
    problem: DecisionProblem,
    policy: Policy,
    budget: int,
    *,
    belief: npt.ArrayLike | None = None,
    limits: DecisionLimits = DEFAULT_LIMITS,
) -> float:
    """Exact expected net value of a deterministic adaptive policy (see :func:`evaluate_policy`)."""
    return evaluate_policy(problem, policy, budget, belief=belief, limits=limits).value


def static_policy(order: Sequence[str]) -> Policy:
    """The adaptive policy that inspects ``order`` one after another regardless of outcomes."""
    fixed = tuple(order)

    def policy(history: History) -> str | None:
        return fixed[len(history)] if len(history) < len(fixed) else None

    return policy
