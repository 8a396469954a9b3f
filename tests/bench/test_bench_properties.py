from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heedful.bench.score.scoring import ScenarioOracle
from heedful.bench.stats import wilson_interval
from heedful.bench.worlds.families import generate_family

_SCENARIOS = generate_family("G", 2, seed=21) + generate_family("B", 2, seed=21)
_ORACLES = [ScenarioOracle.prepare(s, adaptive=False) for s in _SCENARIOS]


@given(st.integers(0, 500), st.integers(1, 500))
def test_wilson_interval_brackets_the_observed_proportion(k: int, n: int) -> None:
    k = min(k, n)
    lo, hi = wilson_interval(k, n)
    assert 0.0 <= lo <= k / n <= hi <= 1.0


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_no_set_within_budget_beats_the_oracle(data: st.DataObject) -> None:
    oracle = data.draw(st.sampled_from(_ORACLES))
    ids = list(oracle.problem.source_ids)
    size = data.draw(st.integers(0, oracle.budget))
    subset = data.draw(st.permutations(ids))[:size]
    value = oracle.set_value(subset)
    st_ = oracle.static
    assert value <= st_.v_star + 1e-9
    assert 100 * (value - st_.u_random) / (st_.v_star - st_.u_random) <= 100 + 1e-6


_SMALL = [o for o in _ORACLES if len(o.problem.source_ids) <= 12]  # family B


@pytest.mark.parametrize("index", range(len(_SMALL)))
def test_u_random_is_the_mean_value_of_full_budget_sets(index: int) -> None:
    oracle = _SMALL[index]
    k = min(oracle.budget, len(oracle.problem.source_ids))
    sets = list(itertools.combinations(oracle.problem.source_ids, k))
    mean = sum(oracle.set_value(s) for s in sets) / len(sets)
    assert mean == pytest.approx(oracle.static.u_random, abs=1e-9)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["G", "B", "A", "H"]))
def test_every_generated_scenario_is_small_enough_for_the_exact_oracle(
    seed: int, family: str
) -> None:
    (s,) = generate_family(family, 1, seed)
    worlds = 1
    for v in s.view.variables.values():
        worlds *= len(v.domain)
    assert len(s.view.sources) <= 30 and s.view.budget <= 5 and worlds <= 64
