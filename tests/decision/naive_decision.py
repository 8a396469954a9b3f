"""The tests' own brute force: straight from SPEC §2–§3, working on a Scenario (not on arrays).

Independent of ``heedful.decision.compile`` and of ``heedful.decision.reference``: worlds are
enumerated as dicts, utilities come from the rules, report probabilities from the prose of §2.
Also a seeded generator of small random scenarios.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from heedful.model import Scenario, scenario_from_dict

Outcome = dict[str, str] | None


def honest_key(source_id: str) -> str:
    """The key of "is this source honest" in a brute-force world (document 000 §24)."""
    return f"?{source_id}"


def worlds(sc: Scenario) -> list[tuple[dict[str, str], float]]:
    """Every joint world with its prior: the view's variables, then whether each source with a
    PRIVATE ``honesty`` is honest (``"yes"`` with probability ``honesty``) or lies (``"no"``)."""
    names = list(sc.view.variables)
    doubtful = [s.id for s in sc.sources if sc.truth.sources[s.id].honesty is not None]
    domains = [list(sc.view.variables[n].domain) for n in names] + [["yes", "no"]] * len(doubtful)
    keys = names + [honest_key(sid) for sid in doubtful]
    out = []
    for values in itertools.product(*domains):
        p = 1.0
        for n, v in zip(names, values[: len(names)], strict=True):
            p *= sc.truth.priors[n][sc.view.variables[n].domain.index(v)]
        for sid, v in zip(doubtful, values[len(names) :], strict=True):
            h = sc.truth.sources[sid].honesty or 0.0
            p *= h if v == "yes" else 1.0 - h
        out.append((dict(zip(keys, values, strict=True)), p))
    return out


def outcomes(sc: Scenario, source_id: str) -> list[Outcome]:
    reports = sc.source(source_id).reports
    if not reports:
        return [{}]
    doms = [sc.view.variables[v].domain for v in reports]
    return [dict(zip(reports, vals, strict=True)) for vals in itertools.product(*doms)] + [None]


def prob(sc: Scenario, source_id: str, outcome: Outcome, world: dict[str, str]) -> float:
    src = sc.source(source_id)
    truth = sc.truth.sources[source_id]
    if not src.reports:
        return 1.0
    if outcome is None:
        return truth.fails
    p = 1.0 - truth.fails
    lying = world.get(honest_key(source_id)) == "no"
    for var in src.reports:
        d = len(sc.view.variables[var].domain)
        if lying:
            # A liar reports uniformly at random, or uniformly among the false values.
            if truth.liar == "against" and d > 1:
                p *= 0.0 if outcome[var] == world[var] else 1.0 / (d - 1)
            else:
                p *= 1.0 / d
            continue
        if truth.echo is not None:
            p *= 1.0 if outcome[var] == truth.echo[var] else 0.0
            continue
        acc = truth.accuracy if truth.accuracy is not None else 0.0
        if d == 1:
            continue
        p *= acc if outcome[var] == world[var] else (1.0 - acc) / (d - 1)
    return p


def brute_value(sc: Scenario, subset: Sequence[str]) -> float:
    ws = worlds(sc)
    actions = list(sc.view.actions.values())
    utils = [[a.utility_of(w) for w, _ in ws] for a in actions]
    per_source = [[[prob(sc, s, o, w) for w, _ in ws] for o in outcomes(sc, s)] for s in subset]
    total = 0.0
    for combo in itertools.product(*(range(len(t)) for t in per_source)):
        joint = []
        for wi, (_, p) in enumerate(ws):
            for table, o in zip(per_source, combo, strict=True):
                p *= table[o][wi]
            joint.append(p)
        total += max(sum(j * u for j, u in zip(joint, row, strict=True)) for row in utils)
    cost = sum(sc.source(s).cost.scalar() for s in subset)
    return total - sc.view.cost_weight * cost


def revealer(sc: Scenario) -> dict[str, str]:
    """Hidden source id → the source whose read reveals it (issue 23)."""
    return {h.source.id: h.revealed_by for h in sc.truth.hidden}


def brute_oracle(sc: Scenario, budget: int) -> dict[str, Any]:
    ids = [s.id for s in sc.sources]
    listed = list(sc.view.source_ids)
    rev = revealer(sc)
    k = min(budget, len(ids))
    values = {
        tuple(sorted(s)): brute_value(sc, s)
        for size in range(k + 1)
        for s in itertools.combinations(ids, size)
    }
    # A set may hold a hidden source only together with the source that reveals it.
    feasible = {s: v for s, v in values.items() if all(m not in rev or rev[m] in s for m in s)}
    v_star = max(feasible.values())
    optimal = sorted(
        (s for s, v in feasible.items() if v >= v_star - 1e-9), key=lambda t: (len(t), t)
    )
    k_random = min(budget, len(listed))
    top = [v for s, v in values.items() if len(s) == k_random and set(s) <= set(listed)]
    return {
        "v_star": v_star,
        "optimal_sets": tuple(optimal),
        "u_random": sum(top) / len(top),
        "v_empty": values[()],
        "critical": tuple(i for i in ids if any(i in s for s in optimal)),
        "values": values,
    }


def random_scenario(
    seed: int,
    *,
    max_sources: int = 6,
    max_joint: int = 150,
    hidden: bool = False,
    untrusted: bool = False,
) -> Scenario:
    """A small random inspection scenario: 1–3 variables (2–3 values), 2–5 actions, 1–6 sources.

    Sources are noisy, failing, echo or report nothing; the product of all sources' outcome counts
    is kept below ``max_joint`` so that the brute force stays quick. With ``hidden``, each source
    after the first is hidden with chance 1/2, revealed by an earlier source (issue 23). With
    ``untrusted``, each noisy source is untrusted with chance 1/2, honest with a random
    probability, and a liar at random or against the truth (document 000 §24).
    """
    rng = np.random.default_rng(seed)
    n_vars = int(rng.integers(1, 4))
    variables: dict[str, Any] = {}
    for v in range(n_vars):
        d = int(rng.integers(2, 4))
        weights = rng.integers(1, 10, size=d)
        prior = [float(x) for x in weights / weights.sum()]
        variables[f"v{v}"] = {"domain": [f"x{i}" for i in range(d)], "prior": prior}
    names = list(variables)
    actions: dict[str, Any] = {}
    for a in range(int(rng.integers(2, 6))):
        rules = []
        for _ in range(int(rng.integers(0, 4))):
            chosen = rng.choice(names, size=int(rng.integers(1, n_vars + 1)), replace=False)
            when = {str(n): str(rng.choice(variables[str(n)]["domain"])) for n in chosen}
            rules.append({"when": when, "value": round(float(rng.normal()), 3)})
        rules.append({"value": round(float(rng.normal()), 3)})
        actions[f"a{a}"] = {"utility": rules}
    sources = []
    joint = 1
    for s in range(int(rng.integers(1, max_sources + 1))):
        kind = str(rng.choice(["noisy", "noisy", "failing", "echo", "empty"]))
        n_rep = int(rng.integers(1, min(2, n_vars) + 1))
        reports = [str(x) for x in rng.choice(names, size=n_rep, replace=False)]
        size = int(np.prod([len(variables[r]["domain"]) for r in reports])) + 1
        if kind == "empty" or joint * size > max_joint:
            kind, reports, size = "empty", [], 1
        joint *= size
        src: dict[str, Any] = {
            "id": f"s{s}",
            "reports": reports,
            "cost": {"tool_calls": int(rng.integers(0, 3)), "tokens": int(rng.integers(0, 500))},
        }
        if kind in ("noisy", "failing"):
            src["accuracy"] = round(float(rng.uniform(0.3, 1.0)), 3)
        if kind == "failing":
            src["fails"] = round(float(rng.uniform(0.05, 0.9)), 3)
        if kind == "echo":
            src["echo"] = {r: str(rng.choice(variables[r]["domain"])) for r in reports}
            src["fails"] = float(rng.choice([0.0, 0.2]))
        if untrusted and "accuracy" in src and rng.random() < 0.5:
            src["trusted"] = False
            src["honesty"] = round(float(rng.uniform(0.0, 1.0)), 3)
            src["liar"] = str(rng.choice(["random", "against"]))
        if hidden and s > 0 and rng.random() < 0.5:
            src["revealed_by"] = f"s{int(rng.integers(0, s))}"
        sources.append(src)
    raw = {
        "format": "heedful.scenario/v1",
        "id": f"random-{seed}",
        "budget": int(rng.integers(0, len(sources) + 1)),
        "cost_weight": float(rng.choice([0.0, 0.01, 0.05])),
        "variables": variables,
        "actions": actions,
        "sources": sources,
    }
    return scenario_from_dict(raw)


def brute_adaptive(sc: Scenario, budget: int) -> float:
    """Optimal adaptive value by recursion over every ordered history (no memo, no pruning)."""
    ws = worlds(sc)
    utils = [[a.utility_of(w) for w, _ in ws] for a in sc.view.actions.values()]
    ids = [s.id for s in sc.sources]
    rev = revealer(sc)
    weight = sc.view.cost_weight

    def act(joint: list[float]) -> float:
        return max(sum(j * u for j, u in zip(joint, row, strict=True)) for row in utils)

    def rec(joint: list[float], done: frozenset[str], left: int) -> float:
        best = act(joint)
        if left == 0:
            return best
        for s in ids:
            if s in done or (s in rev and rev[s] not in done):
                continue
            v = -weight * sc.source(s).cost.scalar() * sum(joint)
            for o in outcomes(sc, s):
                child = [j * prob(sc, s, o, w) for j, (w, _) in zip(joint, ws, strict=True)]
                if sum(child) > 0:
                    v += rec(child, done | {s}, left - 1)
            best = max(best, v)
        return best

    return rec([p for _, p in ws], frozenset(), min(budget, len(ids)))
