from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heedful.bench.results import load_results
from heedful.bench.run.benchmark import run_benchmark
from heedful.bench.stats import bootstrap_mean, clustered_proportion, wilson_interval
from heedful.bench.worlds.families import generate_family
from heedful.errors import HeedfulError, InvalidArgumentError
from heedful.model import Condition, scenario_from_dict


def test_results_file_that_is_not_utf8_is_an_invalid_argument(tmp_path: Path) -> None:
    f = tmp_path / "results.json"
    f.write_bytes(b"\xff\xfe{}")
    with pytest.raises(InvalidArgumentError, match="UTF-8"):
        load_results(f)


def _huge(scenario_id: str) -> dict[str, Any]:
    # 18 binary variables: 262,144 joint worlds, above the exact-valuation limit
    variables = {f"v{i}": {"domain": ["a", "b"], "prior": [0.5, 0.5]} for i in range(18)}
    return {
        "format": "heedful.scenario/v1",
        "id": scenario_id,
        "budget": 0,
        "variables": variables,
        "actions": {"go": {"utility": [{"value": 1.0}]}},
    }


def test_sealed_run_errors_do_not_name_the_scenario() -> None:
    scenario = scenario_from_dict(_huge("secret-holdout-case-7"))
    with pytest.raises(HeedfulError) as info:
        run_benchmark([scenario], ["random"], trials=1, seed=0, sealed=True)
    assert "secret-holdout-case-7" not in str(info.value)


def test_unsealed_run_errors_still_name_the_scenario() -> None:
    scenario = scenario_from_dict(_huge("open-case-7"))
    with pytest.raises(HeedfulError, match="open-case-7"):
        run_benchmark([scenario], ["random"], trials=1, seed=0)


def test_clustered_proportion_of_identical_trials_counts_each_scenario_once() -> None:
    # 10 scenarios × 5 trials that always agree within a scenario: 10 observations, not 50
    flags = [c < 7 for c in range(10) for _ in range(5)]
    clusters = [c for c in range(10) for _ in range(5)]
    got = clustered_proportion(flags, clusters)
    assert (got.k, got.n) == (35, 50)
    assert (got.lo, got.hi) == pytest.approx(wilson_interval(7, 10))


def test_clustered_proportion_of_independent_trials_is_the_plain_wilson_interval() -> None:
    # every scenario holds the same mix: no between-scenario variation, no inflation
    flags = [t < 2 for _ in range(8) for t in range(4)]
    clusters = [c for c in range(8) for _ in range(4)]
    got = clustered_proportion(flags, clusters)
    assert (got.lo, got.hi) == pytest.approx(wilson_interval(16, 32))


def test_clustered_proportion_of_one_scenario_is_the_plain_wilson_interval() -> None:
    got = clustered_proportion([True, False, True], ["s", "s", "s"])
    assert (got.lo, got.hi) == pytest.approx(wilson_interval(2, 3))


def test_optimal_rate_interval_treats_scenarios_not_trials_as_the_unit() -> None:
    scenarios = generate_family("G", 6, 3)
    r = run_benchmark(scenarios, ["recency"], trials=4, seed=0)
    row = r.aggregates.row("recency")
    per_scenario = {t.scenario_id: t.optimal for t in r.trials}
    assert row.optimal.n == 24
    k = sum(per_scenario.values())
    assert (row.optimal.lo, row.optimal.hi) == pytest.approx(wilson_interval(k, 6))


def test_initiation_rates_treat_scenarios_not_trials_as_the_unit() -> None:
    scenarios = generate_family("B", 5, 3, condition=Condition.UNPROMPTED)
    r = run_benchmark(scenarios, ["voc-guarded"], trials=3, seed=0)
    row = next(x for x in r.aggregates.initiation if x.policy == "voc-guarded")
    assert row.n_trials == 15
    per_scenario = {
        t.scenario_id: t.initiation.authoritative_inspected
        for t in r.trials
        if t.initiation is not None
    }
    k = sum(per_scenario.values())
    rate = row.authoritative_rate
    assert (rate.lo, rate.hi) == pytest.approx(wilson_interval(k, len(per_scenario)))


def test_bootstrap_of_varying_trials_of_one_scenario_is_not_a_point() -> None:
    values = [0.0, 1.0] * 20
    ci = bootstrap_mean(values, np.random.default_rng(0), clusters=["only"] * 40)
    assert ci is not None
    assert ci.lo < 0.5 < ci.hi


def test_paired_regret_counts_lower_regret_as_better() -> None:
    scenarios = generate_family("G", 4, 5)
    r = run_benchmark(scenarios, ["oracle", "random"], trials=3, seed=0)
    pair = next(p for p in r.aggregates.paired if (p.policy_a, p.policy_b) == ("oracle", "random"))
    # the oracle's regret is never above random's: it is better (or tied) on every trial
    assert pair.regret.mean <= 0
    assert pair.regret.a_better > 0
    assert pair.regret.b_better == 0


@pytest.mark.parametrize("weight", [0.0, 0.1])
def test_utility_per_compute_divides_by_the_unweighted_scalar_cost(
    tiny_raw: dict[str, Any], weight: float
) -> None:
    # document 000 §17.1: decision utility / (tokens + tool + latency cost), whatever cost_weight
    scenario = scenario_from_dict({**tiny_raw, "cost_weight": weight})
    r = run_benchmark([scenario], ["oracle"], trials=10, seed=1)
    compute = sum(scenario.view.source(s).cost.scalar() for t in r.trials for s in t.inspected)
    assert compute > 0
    expected = sum(t.utility for t in r.trials) / compute
    assert expected != 0
    assert r.aggregates.row("oracle").utility_per_compute == pytest.approx(expected)


@settings(max_examples=60, deadline=None)
@given(
    per_cluster=st.lists(st.lists(st.booleans(), min_size=1, max_size=6), min_size=1, max_size=8)
)
def test_clustered_interval_holds_p_and_is_never_narrower_than_independent_trials(
    per_cluster: list[list[bool]],
) -> None:
    flags = [f for c in per_cluster for f in c]
    clusters = [i for i, c in enumerate(per_cluster) for _ in c]
    got = clustered_proportion(flags, clusters)
    plain_lo, plain_hi = wilson_interval(sum(flags), len(flags))
    assert got.p is not None
    assert got.lo - 1e-12 <= got.p <= got.hi + 1e-12
    assert got.lo <= plain_lo + 1e-12 and got.hi >= plain_hi - 1e-12
