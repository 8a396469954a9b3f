"""Slow reference implementations — deliberately naive, for tests and the speed benchmark.

Plain Python loops over subsets, joint outcomes, worlds and actions, straight from the formulas
of SPEC §3. Never use these in production code: they exist so that the fast implementations have
something obviously correct to be compared against (and ``benchmarks/oracle_speed.py`` reports the
speed-up against them).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from heedful.decision.problem import DecisionProblem


def naive_value(problem: DecisionProblem, subset: Sequence[int]) -> float:
    """``V(S)`` by summing over every joint outcome, every world and every action."""
    subset = sorted(subset)
    n_w = problem.n_worlds
    prior = [float(x) for x in problem.prior]
    util = [[float(x) for x in row] for row in problem.utility]
    liks = [[[float(x) for x in row] for row in problem.likelihoods[s]] for s in subset]
    total = 0.0
    for outcome in itertools.product(*(range(len(lik)) for lik in liks)):
        best = None
        for a in range(problem.n_actions):
            acc = 0.0
            for w in range(n_w):
                p = prior[w]
                for lik, o in zip(liks, outcome, strict=True):
                    p *= lik[o][w]
                acc += p * util[a][w]
            best = acc if best is None or acc > best else best
        total += best if best is not None else 0.0
    cost = sum(float(problem.costs[s]) for s in subset)
    return total - problem.cost_weight * cost


def naive_static_oracle(
    problem: DecisionProblem, budget: int
) -> tuple[float, list[tuple[int, ...]], float, float]:
    """``(V*, optimal sets as index tuples, U_random, V(∅))`` by valuing every subset naively."""
    n = problem.n_sources
    k = min(budget, n)
    rev = problem.revealed_by or (-1,) * n
    listed = [i for i in range(n) if rev[i] < 0]
    values: dict[tuple[int, ...], float] = {}
    for size in range(k + 1):
        for subset in itertools.combinations(range(n), size):
            values[subset] = naive_value(problem, subset)
    # A hidden source counts only with its revealer in the set (issue 23).
    feasible = {s: v for s, v in values.items() if all(rev[i] < 0 or rev[i] in s for i in s)}
    v_star = max(feasible.values())
    optimal = [s for s, v in feasible.items() if v >= v_star - 1e-9]
    k_random = min(budget, len(listed))
    top = [v for s, v in values.items() if len(s) == k_random and all(i in listed for i in s)]
    return v_star, optimal, sum(top) / len(top), values[()]


def naive_adaptive_value(problem: DecisionProblem, budget: int) -> float:
    """Optimal adaptive value by plain recursion over every ordered inspection history."""
    n_w = problem.n_worlds
    util = [[float(x) for x in row] for row in problem.utility]
    rev = problem.revealed_by or (-1,) * problem.n_sources

    def act(belief: list[float]) -> float:
        return max(sum(belief[w] * util[a][w] for w in range(n_w)) for a in range(len(util)))

    def best(belief: list[float], done: frozenset[int], left: int) -> float:
        result = act(belief)
        if left == 0:
            return result
        for s in range(problem.n_sources):
            if s in done or (rev[s] >= 0 and rev[s] not in done):
                continue
            mass = sum(belief)
            v = -problem.cost_weight * float(problem.costs[s]) * mass
            for row in problem.likelihoods[s]:
                child = [belief[w] * float(row[w]) for w in range(n_w)]
                if sum(child) > 0:
                    v += best(child, done | {s}, left - 1)
            result = max(result, v)
        return result

    return best([float(x) for x in problem.prior], frozenset(), min(budget, problem.n_sources))
