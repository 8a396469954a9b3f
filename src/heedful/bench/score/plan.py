"""Planning a comparison from a pilot run (document 000 §23, steps 1–5).

Run 50–100 development trials, estimate the spread of the paired differences, and compute how
many scenarios a paired comparison needs before a long run. Scenarios are the unit: trials of one
scenario share it and are not independent, so the spread used is that of the per-scenario mean
paired difference, and the answer is a number of scenarios at the pilot's trials per scenario.

For a two-sided test at level ``α`` with power ``1 − β`` to detect a mean paired difference ``D``:
``n = ⌈((z_{1−α/2} + z_{1−β}) · σ / D)²⌉`` with ``σ`` the standard deviation of per-scenario mean
differences; the interval's expected half-width at ``n`` is ``z_{1−α/2} · σ / √n``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from heedful.bench.results import Results, TrialRecord
from heedful.errors import InvalidArgumentError

__all__ = ["PlanRow", "plan_comparisons"]

_METRICS = ("score", "regret", "net_utility")


@dataclass(frozen=True)
class PlanRow:
    """The sample size one comparison needs.

    Attributes:
        policy_a: First policy.
        policy_b: Second policy.
        pilot_scenarios: Scenarios with a pair in the pilot.
        trials_per_scenario: Mean trials per scenario in the pilot.
        mean_diff: Pilot mean of ``metric_a − metric_b`` (per-scenario means, averaged).
        sd: Standard deviation of the per-scenario mean differences.
        needed_scenarios: Scenarios needed to detect ``min_diff`` (``None``: the pilot shows no
            spread at all, so any number separates it).
        half_width_now: Expected interval half-width at the pilot's size.
        enough: The pilot already has as many scenarios as needed.
    """

    policy_a: str
    policy_b: str
    pilot_scenarios: int
    trials_per_scenario: float
    mean_diff: float
    sd: float
    needed_scenarios: int | None
    half_width_now: float
    enough: bool


def _value(t: TrialRecord, metric: str) -> float | None:
    if metric == "score":
        return None if t.uninformative else t.score
    return float(getattr(t, metric))


def plan_comparisons(
    results: Results,
    *,
    min_diff: float,
    metric: str = "score",
    policies: Sequence[str] | None = None,
    family: str | None = None,
    level: float = 0.95,
    power: float = 0.8,
) -> list[PlanRow]:
    """How many scenarios each pairwise comparison needs to separate ``min_diff``.

    Args:
        results: A pilot run (not sealed: the per-trial records are needed).
        min_diff: The smallest difference worth detecting (> 0, in the metric's units).
        metric: ``score``, ``regret`` or ``net_utility``.
        policies: Policies to compare pairwise (default: every policy of the run).
        family: Only trials of this family label (default: all).
        level: Confidence level of the test.
        power: Power to detect ``min_diff``.

    Raises:
        InvalidArgumentError: sealed results, bad arguments, unknown policies, no pairs.
    """
    if results.sealed:
        raise InvalidArgumentError(
            "planning needs a pilot run's per-trial records; a sealed hold-out has none"
        )
    if not results.trials:  # a D/J run keeps its trials by kind; planning sizes inspection ones
        raise InvalidArgumentError(
            "planning needs a pilot run's inspection trials (families A-C, E-I); this run has none"
        )
    if not (min_diff > 0 and math.isfinite(min_diff)):
        raise InvalidArgumentError(f"--min-diff must be a positive number, got {min_diff}")
    if metric not in _METRICS:
        raise InvalidArgumentError(f"metric must be one of {', '.join(_METRICS)}, not {metric!r}")
    if not (0 < level < 1 and 0 < power < 1):
        raise InvalidArgumentError("level and power must be between 0 and 1")
    trials = [t for t in results.trials if family is None or t.family == family]
    known = list(dict.fromkeys(t.policy for t in trials))
    if not trials:
        raise InvalidArgumentError(f"no trial of family {family!r} in the results")
    names = list(policies) if policies else known
    for n in names:
        if n not in known:
            raise InvalidArgumentError(f"policy {n!r} is not in the results; it has {known}")
    if len(names) < 2:
        raise InvalidArgumentError("planning compares at least two policies")
    z_a = NormalDist().inv_cdf(0.5 + level / 2)
    z_b = NormalDist().inv_cdf(power)
    by_key = {(t.policy, t.scenario_id, t.trial): t for t in trials}
    rows: list[PlanRow] = []
    for a, b in itertools.combinations(names, 2):
        per_scenario: dict[str, list[float]] = {}
        for (pol, sid, trial), ta in by_key.items():
            tb = by_key.get((b, sid, trial))
            if pol != a or tb is None:
                continue
            va, vb = _value(ta, metric), _value(tb, metric)
            if va is not None and vb is not None:
                per_scenario.setdefault(sid, []).append(va - vb)
        if not per_scenario:
            continue
        means = np.array([np.mean(v) for v in per_scenario.values()])
        m = means.size
        sd = float(means.std(ddof=1)) if m > 1 else 0.0
        needed = None if sd == 0 else math.ceil(((z_a + z_b) * sd / min_diff) ** 2)
        rows.append(
            PlanRow(
                policy_a=a,
                policy_b=b,
                pilot_scenarios=m,
                trials_per_scenario=float(np.mean([len(v) for v in per_scenario.values()])),
                mean_diff=float(means.mean()),
                sd=sd,
                needed_scenarios=needed,
                half_width_now=z_a * sd / math.sqrt(m),
                enough=needed is None or m >= needed,
            )
        )
    if not rows:
        raise InvalidArgumentError("no matched pairs of trials between the chosen policies")
    return rows
