"""Predicted-VOC calibration of the controller policies (document 000 §17.2, §20.3, §25).

For every inspection scenario and controller policy of a run, the policy is replayed in the static
condition (it commits to its reads one by one; a deterministic policy makes the same choices as in
its trials). For each read it chose, the *predicted* value is the net VOC the controller gave it
when selecting it (its ``candidate_selected`` trace event) and the *realised* value is exact, from
the oracle: ``V(S ∪ {s}) − V(S)``, the change in the set's value when the read is added to the
reads chosen before it (net of its cost, like the prediction).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from heedful import decision
from heedful.bench.kinds.inspection import collect_choices
from heedful.bench.policies.voc import ControllerPolicy
from heedful.bench.policy import get_policy
from heedful.bench.results.calibration import CalibrationBucket, CalibrationRow
from heedful.bench.results.plays import Plays, PlayTrace
from heedful.bench.views import policy_view
from heedful.model import Scenario
from heedful.model.candidate import EventType

__all__ = [
    "BUCKETS",
    "INFLATION_LEVEL",
    "MAX_SCENARIOS",
    "calibrate",
    "calibration_row",
    "pairs_of",
]

_PREDICTORS = ("default", "heuristic", "model")
#: Buckets of the reliability table (equal counts).
BUCKETS = 5
#: Scenarios replayed per run at most (evenly spaced over the run's list): a replay costs as
#: much as the policy's own trial, so large runs are calibrated on a sample.
MAX_SCENARIOS = 60
#: A prediction at or above this share of the largest one is "near the maximum" (§25).
INFLATION_LEVEL = 0.9


def pairs_of(
    policy: ControllerPolicy,
    scenario: Scenario,
    play: PlayTrace | None = None,
    values: dict[tuple[str, ...], float] | None = None,
) -> list[tuple[float, float]]:
    """(predicted net VOC, realised marginal value) of every read ``policy`` chooses.

    Args:
        policy: The controller policy.
        scenario: The scenario it plays (static condition).
        play: Its static play of ``scenario`` kept by the run, read instead of a replay.
        values: ``V(S)`` by sorted set, shared between the policies valued on ``scenario``.
    """
    if play is None:
        view = policy_view(scenario)
        policy.reset(view, np.random.default_rng(0))
        history, _ = collect_choices(policy, view, None, scenario.reveals())
        chosen = [o.source_id for o in history]
        predicted: dict[str, float] = {}
        for ev in policy.controller.trace.of(EventType.CANDIDATE_SELECTED):
            target = ev.detail.get("target")
            if isinstance(target, str) and ev.predicted_voc is not None:
                predicted.setdefault(target, ev.predicted_voc)
    else:
        chosen, predicted = list(play.inspected), play.predicted()
    values = {} if values is None else values
    problem: list[decision.DecisionProblem] = []

    def value(subset: list[str]) -> float:
        key = tuple(sorted(subset))
        if key not in values:
            if not problem:
                problem.append(decision.compile_problem(scenario.view, scenario.truth))
            values[key] = decision.value(problem[0], list(key))
        return values[key]

    out: list[tuple[float, float]] = []
    before = value([])
    for k, sid in enumerate(chosen):
        after = value(chosen[: k + 1])
        if sid in predicted:
            out.append((predicted[sid], after - before))
        before = after
    return out


def calibration_row(policy: str, pairs: Sequence[tuple[float, float]]) -> CalibrationRow | None:
    """The reliability table, slope, ECE and inflation share of (predicted, realised) pairs."""
    if not pairs:
        return None
    pred = np.array([p for p, _ in pairs])
    real = np.array([r for _, r in pairs])
    order = np.argsort(pred, kind="stable")
    buckets = []
    for part in np.array_split(order, min(BUCKETS, len(order))):
        if len(part) == 0:
            continue
        buckets.append(
            CalibrationBucket(
                lo=float(pred[part].min()),
                hi=float(pred[part].max()),
                n=len(part),
                predicted=float(pred[part].mean()),
                realised=float(real[part].mean()),
            )
        )
    n = len(pairs)
    ece = sum(b.n / n * abs(b.predicted - b.realised) for b in buckets)
    slope = intercept = None
    if float(np.var(pred)) > 1e-12:
        s, i = np.polyfit(pred, real, 1)
        slope, intercept = float(s), float(i)
    top = float(pred.max())
    inflation = float((pred >= INFLATION_LEVEL * top).mean()) if top > 0 else 0.0
    return CalibrationRow(
        policy=policy,
        n=n,
        buckets=buckets,
        slope=slope,
        intercept=intercept,
        ece=float(ece),
        mean_predicted=float(pred.mean()),
        mean_realised=float(real.mean()),
        inflation_share=inflation,
    )


def calibrate(
    scenarios: Sequence[Scenario],
    policies: Sequence[str],
    max_scenarios: int = MAX_SCENARIOS,
    plays: Plays | None = None,
) -> list[CalibrationRow]:
    """One calibration row per VOC-predicting controller policy among ``policies``, on at most
    ``max_scenarios`` scenarios evenly spaced over ``scenarios``.

    ``plays``: static plays of these policies (with their default parameters) kept by a run
    (:mod:`heedful.bench.results.plays`); a scenario's trial-0 play found there is not replayed.
    """
    if len(scenarios) > max_scenarios:
        picks = sorted({int(i) for i in np.linspace(0, len(scenarios) - 1, max_scenarios)})
        scenarios = [scenarios[i] for i in picks]
    plays = plays or {}
    values: list[dict[tuple[str, ...], float]] = [{} for _ in scenarios]
    rows = []
    for name in policies:
        policy = get_policy(name)
        # Single-signal baselines score by a signal, not a predicted value: nothing to calibrate.
        if not isinstance(policy, ControllerPolicy) or policy.estimator not in _PREDICTORS:
            continue
        pairs = [
            pair
            for s, v in zip(scenarios, values, strict=True)
            for pair in pairs_of(policy, s, plays.get((name, s.id, 0)), v)
        ]
        row = calibration_row(name, pairs)
        if row is not None:
            rows.append(row)
    return rows
