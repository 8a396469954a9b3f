"""Regret search: a linear correction fitted to the exact regret of the policy it drives.

The ridge (:mod:`heedful.learn.ranker`) fits the oracle label candidate by candidate (pointwise):
small errors near zero — where the stopping decision is made — cost as much squared loss as
errors that change nothing, and it never validated better than the model-based estimate. This
fits the *policy* instead (a listwise objective, document 000 §20.1): the score of a candidate is

    model_net + b + Σ_k w_k · x_k / scale_k

and the weights are chosen to minimise the mean exact static regret ``V* − V(S)`` of the
controller ranking by that score on the training scenarios — every visited state valued by the
exact oracle, on the states this very policy visits (on-policy by construction). The fit is a
greedy coordinate search: each step tries adding ``g · scale(model_net)`` to one weight (``g`` from
``RankerConfig.search_grid``; the intercept is a coordinate too) and keeps the step that lowers
the training regret most, while it lowers it by at least ``search_min_gain`` and no more than
``search_terms`` weights are non-zero. Regret is piecewise constant in the weights, so no
gradient method applies; the few terms and the minimum gain keep the fit from chasing noise, and
the one-standard-error validation rule of :func:`heedful.learn.train.select_model` decides
whether it is used at all.

The result is a :class:`~heedful.learn.ranker.RidgeRanker` (the same plain-JSON linear model:
one dot product per candidate), with ``ridge`` null and the search recorded in its manifest.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from heedful.errors import InvalidArgumentError
from heedful.learn.config import RankerConfig
from heedful.learn.features import FEATURE_NAMES
from heedful.learn.ranker import RidgeRanker
from heedful.learn.validate import Scorer, StateCache

__all__ = ["objective", "regret_search"]

_BASE = FEATURE_NAMES.index("model_net")
_INTERCEPT = -1  # the coordinate index of the intercept
_REF_REGRET = 0.01  # typical mean regret of voc-model: "both" weighs the two objectives alike
_REF_SCORE = 10.0  # typical 100 − score of voc-model


def _scales(caches: Sequence[StateCache]) -> np.ndarray:
    """Standard deviation of each feature over the states the model-based order visits.

    Only those states (not every state a cache holds), so the scales — and with them the search
    grid — depend on the training scenarios alone, not on what was asked of the caches before.
    """
    identity = RidgeRanker.identity().predict
    rows: list[np.ndarray] = []
    for cache in caches:
        path = cache.rollout(identity)
        for k in range(len(path) + 1):
            rows.extend(cache.states.get(frozenset(path[:k]), {}).values())
    if not rows:
        return np.ones(len(FEATURE_NAMES))
    scale = np.asarray(rows).std(axis=0)
    scale[scale < 1e-12] = 1.0
    return scale


def _model(weights: np.ndarray, intercept: float, scale: np.ndarray) -> RidgeRanker:
    model = RidgeRanker.identity()
    model.weights = weights.copy()
    model.scale = scale.copy()
    model.intercept = intercept
    model._fold()
    return model


def objective(caches: Sequence[StateCache], score: Scorer, kind: str) -> float:
    """Mean static regret (``"regret"``), mean ``100 − score`` (``"score"``) or both of a scorer.

    ``"both"`` is ``regret / 0.01 + (100 − score) / 10``: each over a typical value of
    ``voc-model``'s, so the two weigh alike.

    Raises:
        InvalidArgumentError: an unknown kind.
    """
    if kind == "regret":
        values = [c.regret(score) for c in caches]
    elif kind == "score":
        values = [v for c in caches if (v := c.score_loss(score)) is not None]
    elif kind == "both":
        return (
            objective(caches, score, "regret") / _REF_REGRET
            + objective(caches, score, "score") / _REF_SCORE
        )
    else:
        raise InvalidArgumentError(
            f"search objective must be 'regret', 'score' or 'both', got {kind!r}"
        )
    return float(np.mean(values)) if values else 0.0


def regret_search(
    caches: Sequence[StateCache], config: RankerConfig
) -> tuple[RidgeRanker, dict[str, Any]]:
    """Fit the score's weights by greedy coordinate search on the training regret.

    Args:
        caches: State caches of the training scenarios (grown as new states are reached).
        config: ``search_grid``, ``search_terms``, ``search_min_gain``.

    Returns:
        The fitted model (the identity when no step helped) and a report of the search.
    """
    d = len(FEATURE_NAMES)
    scale = _scales(caches)
    unit = float(scale[_BASE])  # one step g moves a weight by g·sd(model_net) per feature sd
    weights = np.zeros(d)
    intercept = 0.0

    def loss(w: np.ndarray, b: float) -> float:
        return objective(caches, _model(w, b, scale).predict, config.search_objective)

    current = loss(weights, intercept)
    start = current
    steps: list[dict[str, Any]] = []
    while len(steps) < config.search_max_steps:
        active = set(np.flatnonzero(weights).tolist())
        coords = [k for k in range(d) if k in active or len(active) < config.search_terms] + [
            _INTERCEPT
        ]
        best: tuple[float, int, float] | None = None
        for k in coords:
            for g in config.search_grid:
                w, b = weights.copy(), intercept
                if k == _INTERCEPT:
                    b += g * unit
                else:
                    w[k] += g * unit
                value = loss(w, b)
                if best is None or value < best[0] - 1e-12:
                    best = (value, k, g)
        if best is None or current - best[0] < config.search_min_gain:
            break
        value, k, g = best
        if k == _INTERCEPT:
            intercept += g * unit
        else:
            weights[k] += g * unit
        current = value
        steps.append(
            {
                "coordinate": "intercept" if k == _INTERCEPT else FEATURE_NAMES[k],
                "step": g,
                "train_regret": value,
            }
        )
    report = {
        "scenarios": len(caches),
        "start_regret": start,
        "train_regret": current,
        "steps": steps,
        "terms": {FEATURE_NAMES[k]: float(weights[k] / scale[k]) for k in np.flatnonzero(weights)},
        "intercept": intercept,
    }
    model = _model(weights, intercept, scale)
    model.ridge = math.inf
    model.manifest["fit"] = "search"
    return model, report
