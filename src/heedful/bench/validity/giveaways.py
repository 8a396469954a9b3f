"""Give-away probes: policies that read only surface features a scenario must not leak.

Every probe ranks the sources **that report a decision variable** (which any policy may read
off the view: a source that reports none is never worth a read, and says so openly) by surface
features alone and inspects the top ``budget``. Its score (the static oracle 100, random over
all sources 0; document 000 §14.5) is compared with **random among the relevant sources** — a
policy that knows which sources report what the decision needs and nothing else. If the surface
carried nothing about which of those is critical (in an optimal set), the probe scores like that
baseline.

Two kinds of probe:

* **token probes** (``kind``, ``id-suffix``, ``position``, ``label-words``) learn, on a training
  set, how often a source carrying each token is critical (Laplace-smoothed rates);
* **fitted probes** (``lengths``, ``loudness``, ``salience``, ``cost``, ``surface``) fit an
  L2-regularised logistic regression of criticality on numeric view features a rational policy
  should not need — text lengths, counts of capitals and urgent words, the ``salience`` fields,
  the cost, and all of them together — each taken as ``log1p`` and centred within its scenario
  (so a rule like "the shortest teaser among the relevant sources" is one weight).

They are fitted on one seed stream and scored on another (issue 9: ``kind`` alone scored 90.8 on
family B; issue 23: "the shortest relevant teaser" scored 82 on B and I, the dearest relevant
source 79.9 on B).

**Cost is part of the objective.** A trial's value is its decision value net of
``cost_weight × cost`` (SPEC §2–§3; document 000 §3.1: VOC is the expected improvement *minus*
the cost), so a policy that reads cheap relevant sources first earns real value that says
nothing about which source holds the answer. A give-away check asks whether a cue *labels the
answer*, so the probes that read the cost (:data:`COST_PROBES`) are also fitted and scored on
the **gross** decision value (``solve(..., gross=True)``: the same scenarios with
``cost_weight`` 0, so criticality, the oracle, random over all sources and random among the
relevant sources are all gross). There cost can help a probe only by marking the informative
source; ``check_family`` judges those probes on that figure and reports the net one beside it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np

from heedful import decision
from heedful.model import Scenario, ScenarioView

#: The surface tokens of the source at ``position`` of a view.
Features = Callable[[ScenarioView, int], tuple[str, ...]]
#: The numeric surface features of the source at ``position`` of a view.
Numeric = Callable[[ScenarioView, int], tuple[float, ...]]

_SUFFIX = re.compile(r"-\d+$")
_WORD = re.compile(r"[a-z0-9]+")
_CAPS = re.compile(r"[A-Z]")
_SHOUT = re.compile(r"\b[A-Z][A-Z0-9-]{1,}\b")


def _kind(view: ScenarioView, i: int) -> tuple[str, ...]:
    return (view.sources[i].kind,)


def _id_suffix(view: ScenarioView, i: int) -> tuple[str, ...]:
    return ("suffix" if _SUFFIX.search(view.sources[i].id) else "plain",)


def _position(view: ScenarioView, i: int) -> tuple[str, ...]:
    n = len(view.sources)
    # Absolute position from both ends and the relative decile.
    return (f"first{i}", f"last{n - 1 - i}", f"decile{10 * i // max(n, 1)}")


def _label_words(view: ScenarioView, i: int) -> tuple[str, ...]:
    return tuple(sorted(set(_WORD.findall(view.sources[i].label.lower())))) or ("<none>",)


def _lengths(view: ScenarioView, i: int) -> tuple[float, ...]:
    s = view.sources[i]
    return (len(s.content), len(s.content.split()), len(s.label), len(s.id))


def _loudness(view: ScenarioView, i: int) -> tuple[float, ...]:
    text = view.sources[i].content
    return (
        len(_CAPS.findall(text)),
        len(_SHOUT.findall(text)),
        text.count("!") + text.count("repeated"),
    )


def _salience(view: ScenarioView, i: int) -> tuple[float, ...]:
    c = view.sources[i].salience
    # An unknown recency counts as long ago (a day).
    recency = 86_400.0 if c.recency_s is None else c.recency_s
    return (c.urgent_words, c.verbosity, recency, c.repeats)


def _cost(view: ScenarioView, i: int) -> tuple[float, ...]:
    c = view.sources[i].cost
    return (c.tokens, c.latency_ms, c.tool_calls)


def _surface(view: ScenarioView, i: int) -> tuple[float, ...]:
    return (*_lengths(view, i), *_loudness(view, i), *_salience(view, i), *_cost(view, i))


#: The token probes, by name.
TOKEN_PROBES: dict[str, Features] = {
    "kind": _kind,
    "id-suffix": _id_suffix,
    "position": _position,
    "label-words": _label_words,
}
#: The fitted probes, by name.
FITTED_PROBES: dict[str, Numeric] = {
    "lengths": _lengths,
    "loudness": _loudness,
    "salience": _salience,
    "cost": _cost,
    "surface": _surface,
}
#: Every probe a family is checked against.
PROBES: tuple[str, ...] = (*TOKEN_PROBES, *FITTED_PROBES)
#: The probes whose features include the cost: judged on the gross decision value (module doc).
COST_PROBES: tuple[str, ...] = ("cost", "surface")


@dataclass(frozen=True)
class ProbeScore:
    """A probe's mean normalised score, beside random among the relevant sources.

    Attributes:
        probe: The probe's name.
        mean: Mean score over the informative test scenarios (random = 0, oracle = 100).
        low: Lower end of the 95% interval of ``mean`` (normal approximation).
        high: Upper end.
        n: Informative test scenarios scored.
        baseline: Mean score of random among the relevant sources on the same scenarios.
        excess_low: Lower end of the 95% interval of the paired excess ``mean − baseline``.
        excess_high: Upper end.
        gross: Whether this is the gross decision value (``cost_weight`` 0: fitted on gross
            criticality, scored and normalised gross) rather than the net one.
    """

    probe: str
    mean: float
    low: float
    high: float
    n: int
    baseline: float = 0.0
    excess_low: float = -math.inf
    excess_high: float = math.inf
    gross: bool = False

    @property
    def excess(self) -> float:
        """``mean − baseline``: what the surface adds to knowing which sources are relevant."""
        return self.mean - self.baseline


@dataclass(frozen=True)
class _Solved:
    view: ScenarioView
    problem: decision.DecisionProblem
    static: decision.StaticOracleResult
    relevant: tuple[int, ...]
    baseline: float
    gross: bool = False


def decision_relevant(view: ScenarioView) -> tuple[int, ...]:
    """Positions of the sources that report a variable some utility rule depends on."""
    needed = {v for a in view.actions.values() for rule in a.utility for v in rule.when}
    return tuple(i for i, s in enumerate(view.sources) if set(s.reports) & needed)


#: Subsets of the relevant sources valued for the random-among-relevant baseline (all of them
#: when there are no more).
_RANDOM_SUBSETS = 64


def _normalised(static: decision.StaticOracleResult, value: float) -> float:
    return 100.0 * (value - static.u_random) / (static.v_star - static.u_random)


def _random_relevant(
    view: ScenarioView, problem: decision.DecisionProblem, relevant: Sequence[int]
) -> float:
    # Exact mean over every subset of the relevant sources of size min(budget, n) (sampled,
    # seeded by the scenario, when there are more than 64).
    ids = [view.sources[i].id for i in relevant]
    k = min(view.budget, len(ids))
    if math.comb(len(ids), k) <= _RANDOM_SUBSETS:
        subsets = [list(c) for c in combinations(ids, k)]
    else:
        rng = np.random.default_rng(len(view.sources) * 7919 + view.budget)
        subsets = [
            [ids[j] for j in rng.choice(len(ids), size=k, replace=False)]
            for _ in range(_RANDOM_SUBSETS)
        ]
    return float(np.mean([decision.value(problem, s) for s in subsets]))


def solve(scenarios: Sequence[Scenario], *, gross: bool = False) -> list[_Solved]:
    """Compile every informative scenario, run its static oracle and value random among its
    relevant sources.

    Args:
        scenarios: The scenarios.
        gross: Value everything at ``cost_weight`` 0 (the gross decision value; module doc).
    """
    out = []
    for s in scenarios:
        problem = decision.compile_problem(s.view, s.truth)
        if gross:
            problem = replace(problem, cost_weight=0.0)
        static = decision.static_oracle(problem, s.view.budget)
        if static.informative:
            relevant = decision_relevant(s.view)
            base = _normalised(static, _random_relevant(s.view, problem, relevant))
            out.append(_Solved(s.view, problem, static, relevant, base, gross))
    return out


def _token_model(train: Sequence[_Solved], features: Features) -> Callable[[_Solved], list[float]]:
    hits: dict[str, list[int]] = {}
    total_hit = total = 0
    for sv in train:
        critical = set(sv.static.critical)
        for i in sv.relevant:
            hit = int(sv.view.sources[i].id in critical)
            total_hit, total = total_hit + hit, total + 1
            for tok in features(sv.view, i):
                h = hits.setdefault(tok, [0, 0])
                h[0] += hit
                h[1] += 1
    base = (total_hit + 1) / (total + 2)
    # Laplace-smoothed towards the base rate, so a token seen once does not decide alone.
    rates = {t: (h + 2 * base) / (n + 2) for t, (h, n) in hits.items()}

    def key(sv: _Solved) -> list[float]:
        return [
            float(np.mean([rates.get(t, base) for t in features(sv.view, i)])) for i in sv.relevant
        ]

    return key


def _design(sv: _Solved, features: Numeric) -> np.ndarray:
    x = np.log1p(np.maximum(np.asarray([features(sv.view, i) for i in sv.relevant], float), 0.0))
    return x - x.mean(axis=0) if len(x) else x


def fit_logistic(x: np.ndarray, y: np.ndarray, *, l2: float = 1.0, steps: int = 25) -> np.ndarray:
    """Weights (intercept first) of an L2-regularised logistic regression, by Newton's method.

    The features are standardised inside; the returned weights apply to the raw ``x``.
    """
    mu, sd = x.mean(axis=0), x.std(axis=0)
    sd = np.where(sd > 1e-12, sd, 1.0)
    z = np.hstack([np.ones((len(x), 1)), (x - mu) / sd])
    w = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -30, 30)))
        grad = z.T @ (p - y) + penalty * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty + 1e-9)
        w = w - np.linalg.solve(hess, grad)
    raw = np.empty_like(w)
    raw[1:] = w[1:] / sd
    raw[0] = w[0] - float(raw[1:] @ mu)
    return raw


def _fitted_model(train: Sequence[_Solved], features: Numeric) -> Callable[[_Solved], list[float]]:
    xs: list[np.ndarray] = []
    ys: list[float] = []
    for sv in train:
        critical = set(sv.static.critical)
        xs.append(_design(sv, features))
        ys.extend(float(sv.view.sources[i].id in critical) for i in sv.relevant)
    x = np.vstack([a for a in xs if len(a)]) if any(len(a) for a in xs) else np.zeros((0, 1))
    w = fit_logistic(x, np.asarray(ys)) if len(x) else np.zeros(2)

    def key(sv: _Solved) -> list[float]:
        return [float(v) for v in _design(sv, features) @ w[1:]] if sv.relevant else []

    return key


def score_probe(
    name: str,
    train: Sequence[_Solved],
    test: Sequence[_Solved],
    rng: np.random.Generator,
    *,
    tie_breaks: int = 3,
) -> ProbeScore:
    """Learn the probe ``name`` on ``train`` and score it on ``test`` (see the module doc)."""
    if name in TOKEN_PROBES:
        key_of = _token_model(train, TOKEN_PROBES[name])
    elif name in FITTED_PROBES:
        key_of = _fitted_model(train, FITTED_PROBES[name])
    else:
        raise KeyError(f"unknown probe {name!r}; probes: {', '.join(PROBES)}")
    scores, excess = [], []
    for sv in test:
        key = key_of(sv)
        budget = min(sv.view.budget, len(sv.relevant))
        values = []
        for _ in range(tie_breaks):
            jitter = rng.random(len(key))
            order = sorted(range(len(key)), key=lambda j: (-key[j], jitter[j]))
            chosen = [sv.view.sources[sv.relevant[j]].id for j in order[:budget]]
            values.append(decision.value(sv.problem, chosen))
        score = _normalised(sv.static, float(np.mean(values)))
        scores.append(score)
        excess.append(score - sv.baseline)
    mean, low, high = _interval(scores)
    _, ex_low, ex_high = _interval(excess)
    base = float(np.mean([sv.baseline for sv in test])) if test else math.nan
    gross = bool(test) and all(sv.gross for sv in test)
    return ProbeScore(name, mean, low, high, len(scores), base, ex_low, ex_high, gross)


def _interval(values: Sequence[float]) -> tuple[float, float, float]:
    arr = np.asarray(values, float)
    mean = float(arr.mean()) if arr.size else math.nan
    se = float(arr.std(ddof=1) / math.sqrt(arr.size)) if arr.size > 1 else math.inf
    return mean, mean - 1.96 * se, mean + 1.96 * se
