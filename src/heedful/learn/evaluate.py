"""Score learned policies against fixed ones on bench scenarios, with paired intervals.

Used by ``benchmarks/learn_*.py`` and the tests: a thin layer over
:func:`heedful.bench.run.benchmark.run_benchmark` (the same oracle, worlds and statistics as
``heedful bench run``) that returns the numbers a learning report needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from heedful.bench.results import PolicySpec, Results, TrialRecord
from heedful.bench.run.benchmark import run_benchmark
from heedful.bench.stats import MeanCI, PairedDiff, bootstrap_mean, paired_difference
from heedful.model import Scenario

__all__ = ["Comparison", "compare_policies", "gains_by_family"]


@dataclass(frozen=True)
class Comparison:
    """Per-policy mean regret and score, and paired regret differences against a reference.

    Attributes:
        regret: Policy → mean attention regret (utility units; lower is better) with its CI.
        score: Policy → mean attention score over informative trials with its CI.
        paired: Policy → mean paired regret difference ``regret(policy) − regret(reference)``
            (positive: the reference regrets less, i.e. is better), clustered by scenario;
            ``a_better`` counts pairs where the policy is better, ``b_better`` the reference.
        results: The full results.
    """

    regret: dict[str, MeanCI | None]
    score: dict[str, MeanCI | None]
    paired: dict[str, PairedDiff | None]
    results: Results


def _clustered(records: Sequence[TrialRecord], rng: np.random.Generator) -> MeanCI | None:
    return bootstrap_mean(
        [t.regret for t in records], rng, clusters=[t.scenario_id for t in records]
    )


def compare_policies(
    scenarios: Sequence[Scenario],
    policies: Sequence[PolicySpec | str],
    reference: str,
    *,
    trials: int = 1,
    seed: int = 0,
    adaptive: bool = False,
) -> Comparison:
    """Run ``policies`` on ``scenarios`` and compare each with ``reference`` (one of them)."""
    res = run_benchmark(scenarios, policies, trials=trials, seed=seed, adaptive=adaptive)
    rng = np.random.default_rng([seed, 7])
    by: dict[str, list[TrialRecord]] = {}
    for t in res.trials:
        by.setdefault(t.policy, []).append(t)
    regret = {p: _clustered(ts, rng) for p, ts in by.items()}
    score = {
        p: bootstrap_mean(
            [t.score for t in ts if t.score is not None and not t.uninformative],
            rng,
            clusters=[t.scenario_id for t in ts if t.score is not None and not t.uninformative],
        )
        for p, ts in by.items()
    }
    ref = {(t.scenario_id, t.trial): t for t in by.get(reference, [])}
    paired: dict[str, PairedDiff | None] = {}
    for p, ts in by.items():
        if p == reference:
            continue
        pairs = [(ref[(t.scenario_id, t.trial)], t) for t in ts if (t.scenario_id, t.trial) in ref]
        paired[p] = paired_difference(
            [b.regret for _, b in pairs],
            [a.regret for a, _ in pairs],
            rng,
            clusters=[a.scenario_id for a, _ in pairs],
            higher_is_better=False,
        )
    return Comparison(regret, score, paired, res)


def gains_by_family(
    results: Results, policy: str, other: str, *, seed: int = 0
) -> dict[str, tuple[PairedDiff | None, PairedDiff | None]]:
    """Per family, how much better ``policy`` does than ``other`` on the same trials.

    Returns family → (``regret(other) − regret(policy)``, ``score(policy) − score(other)``),
    each a paired mean with a bootstrap CI clustered by scenario: positive means ``policy`` is
    better on both. Trials where either score is undefined (uninformative) are left out of the
    score difference.
    """
    rng = np.random.default_rng([seed, 11])
    mine = {(t.scenario_id, t.trial): t for t in results.trials if t.policy == policy}
    out: dict[str, tuple[PairedDiff | None, PairedDiff | None]] = {}
    pairs_by: dict[str, list[tuple[TrialRecord, TrialRecord]]] = {}
    for t in results.trials:
        if t.policy == other and (t.scenario_id, t.trial) in mine:
            pairs_by.setdefault(t.family, []).append((mine[(t.scenario_id, t.trial)], t))
    for family in sorted(pairs_by):
        pairs = pairs_by[family]
        regret = paired_difference(
            [o.regret for _, o in pairs],
            [p.regret for p, _ in pairs],
            rng,
            clusters=[p.scenario_id for p, _ in pairs],
        )
        scored = [(p, o) for p, o in pairs if p.score is not None and o.score is not None]
        score = paired_difference(
            [p.score for p, _ in scored if p.score is not None],
            [o.score for _, o in scored if o.score is not None],
            rng,
            clusters=[p.scenario_id for p, _ in scored],
        )
        out[family] = (regret, score)
    return out
