"""Give-away probes: policies that read only surface features a scenario must not leak.

A probe learns, on a training set of scenarios, how often a source with a given surface feature
(its ``kind``, whether its id carries a ``-N`` suffix, its position in the list, the words of its
label) is *critical* — a member of an optimal static set — and then inspects, on other scenarios,
the ``budget`` sources whose features were most often critical (ties broken at random). If the
surface carried nothing about criticality, such a probe scores like random: 0 on the normalised
scale where the static oracle is 100 (document 000 §14.5). A probe far above 0 has found a
give-away (issue 9: a policy reading only ``kind`` scored 90.8 on family B).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from heedful import decision
from heedful.model import Scenario, ScenarioView

#: The surface features of the source at ``position`` of a view, as tokens.
Features = Callable[[ScenarioView, int], tuple[str, ...]]

_SUFFIX = re.compile(r"-\d+$")
_WORD = re.compile(r"[a-z0-9]+")


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


#: The probes every family is checked against, by name.
PROBES: dict[str, Features] = {
    "kind": _kind,
    "id-suffix": _id_suffix,
    "position": _position,
    "label-words": _label_words,
}


@dataclass(frozen=True)
class ProbeScore:
    """A probe's mean normalised score with its 95% confidence interval.

    Attributes:
        probe: The probe's name.
        mean: Mean score over the informative test scenarios (random = 0, oracle = 100).
        low: Lower end of the 95% interval (normal approximation).
        high: Upper end.
        n: Informative test scenarios scored.
    """

    probe: str
    mean: float
    low: float
    high: float
    n: int


@dataclass(frozen=True)
class _Solved:
    view: ScenarioView
    problem: decision.DecisionProblem
    static: decision.StaticOracleResult


def solve(scenarios: Sequence[Scenario]) -> list[_Solved]:
    """Compile every informative scenario and run its static oracle."""
    out = []
    for s in scenarios:
        problem = decision.compile_problem(s.view, s.truth)
        static = decision.static_oracle(problem, s.view.budget)
        if static.informative:
            out.append(_Solved(s.view, problem, static))
    return out


def _rates(train: Sequence[_Solved], features: Features) -> tuple[dict[str, float], float]:
    hits: dict[str, list[int]] = {}
    total_hit = total = 0
    for sv in train:
        critical = set(sv.static.critical)
        for i, src in enumerate(sv.view.sources):
            hit = int(src.id in critical)
            total_hit, total = total_hit + hit, total + 1
            for tok in features(sv.view, i):
                h = hits.setdefault(tok, [0, 0])
                h[0] += hit
                h[1] += 1
    base = (total_hit + 1) / (total + 2)
    # Laplace-smoothed towards the base rate, so a token seen once does not decide alone.
    return {t: (h + 2 * base) / (n + 2) for t, (h, n) in hits.items()}, base


def score_probe(
    name: str,
    train: Sequence[_Solved],
    test: Sequence[_Solved],
    rng: np.random.Generator,
    *,
    tie_breaks: int = 3,
) -> ProbeScore:
    """Learn the probe ``name`` on ``train`` and score it on ``test`` (see the module doc)."""
    features = PROBES[name]
    rates, base = _rates(train, features)
    scores = []
    for sv in test:
        view = sv.view
        key = [
            float(np.mean([rates.get(t, base) for t in features(view, i)]))
            for i in range(len(view.sources))
        ]
        budget = min(view.budget, len(view.sources))
        values = []
        for _ in range(tie_breaks):
            jitter = rng.random(len(key))
            order = sorted(range(len(key)), key=lambda i: (-key[i], jitter[i]))
            chosen = [view.sources[i].id for i in order[:budget]]
            values.append(decision.value(sv.problem, chosen))
        st = sv.static
        scores.append(100.0 * (float(np.mean(values)) - st.u_random) / (st.v_star - st.u_random))
    arr = np.asarray(scores)
    mean = float(arr.mean()) if arr.size else math.nan
    se = float(arr.std(ddof=1) / math.sqrt(arr.size)) if arr.size > 1 else math.inf
    return ProbeScore(name, mean, mean - 1.96 * se, mean + 1.96 * se, int(arr.size))
