from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive_decision import brute_oracle, brute_value, random_scenario

from heedful.decision import (
    DecisionLimits,
    DecisionProblem,
    all_subset_values,
    compile_problem,
    static_oracle,
    value,
)
from heedful.decision.reference import naive_static_oracle, naive_value
from heedful.decision.static import forced_read_bound
from heedful.errors import InvalidArgumentError, ProblemTooLargeError
from heedful.model import scenario_from_dict

SEEDS = st.integers(min_value=0, max_value=2**31 - 1)


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS)
def test_value_of_every_subset_matches_brute_force(seed: int) -> None:
    sc = random_scenario(seed)
    p = compile_problem(sc.view, sc.truth)
    ids = sc.view.source_ids
    rng = np.random.default_rng(seed)
    for _ in range(4):
        size = int(rng.integers(0, len(ids) + 1))
        subset = [str(x) for x in rng.choice(ids, size=size, replace=False)]
        assert value(p, subset) == pytest.approx(brute_value(sc, subset), abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS)
def test_static_oracle_matches_brute_force(seed: int) -> None:
    sc = random_scenario(seed)
    p = compile_problem(sc.view, sc.truth)
    got = static_oracle(p, sc.view.budget)
    want = brute_oracle(sc, sc.view.budget)
    assert got.v_star == pytest.approx(want["v_star"], abs=1e-9)
    assert got.u_random == pytest.approx(want["u_random"], abs=1e-9)
    assert got.v_empty == pytest.approx(want["v_empty"], abs=1e-12)
    assert got.optimal_sets == want["optimal_sets"]
    assert got.critical == want["critical"]


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS)
def test_every_subset_value_of_the_enumeration_matches_value(seed: int) -> None:
    sc = random_scenario(seed)
    p = compile_problem(sc.view, sc.truth)
    subsets, values = all_subset_values(p, p.n_sources)
    for s_arr, v in zip(subsets, values, strict=True):
        for row, got in zip(s_arr, v, strict=True):
            assert got == pytest.approx(value(p, [int(i) for i in row]), abs=1e-9)


def _random_raw_problem(rng: np.random.Generator) -> DecisionProblem:
    """General arrays: dense random likelihoods, proportional rows, constant rows, zeros."""
    n_w = int(rng.integers(1, 7))
    n_a = int(rng.integers(1, 4))
    liks = []
    for _ in range(int(rng.integers(1, 6))):
        k = int(rng.integers(1, 4))
        lik = rng.dirichlet(np.ones(k), size=n_w).T
        kind = rng.integers(0, 4)
        if kind == 1:  # split a row into two proportional halves
            lik = np.vstack([lik[:1] * 0.3, lik[:1] * 0.7, lik[1:]])
        elif kind == 2:  # add a constant "failed" row
            lik = np.vstack([lik * 0.6, np.full((1, n_w), 0.4)])
        elif kind == 3:  # a deterministic, possibly informative channel
            lik = np.zeros((k, n_w))
            lik[rng.integers(0, k, size=n_w), np.arange(n_w)] = 1.0
        liks.append(lik)
    n = len(liks)
    return DecisionProblem(
        prior=rng.dirichlet(np.ones(n_w)),
        utility=rng.normal(size=(n_a, n_w)).round(2),
        likelihoods=liks,
        costs=rng.uniform(0, 2, size=n),
        cost_weight=float(rng.choice([0.0, 0.02])),
        source_ids=[f"s{i}" for i in range(n)],
        action_ids=[f"a{i}" for i in range(n_a)],
    )


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, budget=st.integers(0, 5))
def test_static_oracle_matches_reference_on_general_arrays(seed: int, budget: int) -> None:
    p = _random_raw_problem(np.random.default_rng(seed))
    v_star, optimal, u_random, v_empty = naive_static_oracle(p, budget)
    got = static_oracle(p, budget)
    assert got.v_star == pytest.approx(v_star, abs=1e-9)
    assert got.u_random == pytest.approx(u_random, abs=1e-9)
    assert got.v_empty == pytest.approx(v_empty, abs=1e-12)
    want = sorted(tuple(sorted(p.source_ids[i] for i in s)) for s in optimal)
    assert sorted(got.optimal_sets) == want


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS)
def test_value_matches_reference_on_general_arrays(seed: int) -> None:
    p = _random_raw_problem(np.random.default_rng(seed))
    for size in range(p.n_sources + 1):
        for subset in itertools.combinations(range(p.n_sources), size):
            assert value(p, subset) == pytest.approx(naive_value(p, subset), abs=1e-9)


def _xor() -> DecisionProblem:
    raw = {
        "format": "heedful.scenario/v1",
        "id": "xor",
        "budget": 2,
        "cost_weight": 0.01,
        "variables": {
            "x": {"domain": ["0", "1"], "prior": [0.5, 0.5]},
            "y": {"domain": ["0", "1"], "prior": [0.5, 0.5]},
        },
        "actions": {
            "same": {
                "utility": [
                    {"when": {"x": "0", "y": "0"}, "value": 1.0},
                    {"when": {"x": "1", "y": "1"}, "value": 1.0},
                    {"value": 0.0},
                ]
            },
            "differ": {
                "utility": [
                    {"when": {"x": "0", "y": "0"}, "value": 0.0},
                    {"when": {"x": "1", "y": "1"}, "value": 0.0},
                    {"value": 1.0},
                ]
            },
        },
        "sources": [
            {"id": "sx", "reports": ["x"], "accuracy": 1.0, "cost": {"tool_calls": 1}},
            {"id": "sy", "reports": ["y"], "accuracy": 1.0, "cost": {"tool_calls": 1}},
            {"id": "noise", "cost": {"tool_calls": 1}},
        ],
    }
    sc = scenario_from_dict(raw)
    return compile_problem(sc.view, sc.truth)


def test_jointly_informative_sources_are_each_worthless_alone() -> None:
    p = _xor()
    assert value(p, ["sx"]) == pytest.approx(value(p, []) - 0.01)
    assert value(p, ["sy"]) == pytest.approx(value(p, []) - 0.01)


def test_static_oracle_picks_both_jointly_informative_sources() -> None:
    result = static_oracle(_xor(), 2)
    assert result.optimal_sets == (("sx", "sy"),)
    assert result.v_star == pytest.approx(1.0 - 0.02)
    assert result.critical == ("sx", "sy")


def test_u_random_is_the_mean_over_subsets_of_exactly_the_budget_size() -> None:
    p = _xor()
    pairs = [("sx", "sy"), ("sx", "noise"), ("sy", "noise")]
    mean = sum(value(p, s) for s in pairs) / 3
    assert static_oracle(p, 2).u_random == pytest.approx(mean, abs=1e-12)


def test_uninformative_scenario_has_no_gap_between_oracle_and_random() -> None:
    p = DecisionProblem(
        prior=[0.3, 0.7],
        utility=[[1.0, 0.0], [0.0, 1.0]],
        likelihoods=[np.ones((1, 2)), np.array([[1.0, 1.0], [0.0, 0.0]])],
        costs=[1.0, 2.0],
        cost_weight=0.0,
        source_ids=["empty", "echo"],
        action_ids=["x", "y"],
    )
    result = static_oracle(p, 2)
    assert result.v_star - result.u_random < 1e-9
    assert not result.informative


def test_costly_zero_information_source_is_never_in_an_optimal_set() -> None:
    result = static_oracle(_xor(), 2)
    assert "noise" not in result.critical


def test_budget_zero_gives_the_empty_set() -> None:
    result = static_oracle(_xor(), 0)
    assert result.optimal_sets == ((),)
    assert result.v_star == result.v_empty == result.u_random


def test_budget_above_the_number_of_sources_uses_all_of_them_for_random() -> None:
    p = _xor()
    assert static_oracle(p, 9).u_random == pytest.approx(value(p, p.source_ids))


def test_negative_budget_is_rejected() -> None:
    with pytest.raises(InvalidArgumentError, match="budget"):
        static_oracle(_xor(), -1)


def test_too_large_enumeration_is_refused_with_numbers() -> None:
    with pytest.raises(ProblemTooLargeError, match="8 subsets"):
        static_oracle(_xor(), 3, limits=DecisionLimits(max_subsets=6))


def test_value_of_a_large_set_is_refused_when_rows_explode() -> None:
    rng = np.random.default_rng(3)
    liks = [rng.dirichlet(np.ones(4), size=3).T for _ in range(8)]
    p = DecisionProblem(
        prior=[0.2, 0.3, 0.5],
        utility=rng.normal(size=(2, 3)),
        likelihoods=liks,
        costs=np.zeros(8),
        cost_weight=0.0,
        source_ids=[f"s{i}" for i in range(8)],
        action_ids=["x", "y"],
    )
    with pytest.raises(ProblemTooLargeError, match="limit"):
        value(p, p.source_ids, limits=DecisionLimits(max_rows=100))


def _mixed_problem(seed: int, n: int) -> DecisionProblem:
    """Sources with 2, 3 and 4 informative outcomes, some failing, on 6 worlds."""
    rng = np.random.default_rng(seed)
    liks = []
    for i in range(n):
        k = 2 + i % 3
        lik = rng.dirichlet(np.ones(k) * 0.7, size=6).T
        if i % 4 == 1:
            lik = np.vstack([lik * 0.8, np.full((1, 6), 0.2)])
        liks.append(lik)
    return DecisionProblem(
        prior=rng.dirichlet(np.ones(6)),
        utility=rng.normal(size=(3, 6)),
        likelihoods=liks,
        costs=rng.uniform(0, 1, size=n),
        cost_weight=0.01,
        source_ids=[f"s{i}" for i in range(n)],
        action_ids=["a", "b", "c"],
    )


@pytest.mark.parametrize("budget", [1, 2, 3, 4])
def test_static_oracle_matches_reference_with_mixed_outcome_counts(budget: int) -> None:
    p = _mixed_problem(11, 8)
    v_star, optimal, u_random, _ = naive_static_oracle(p, budget)
    got = static_oracle(p, budget)
    assert got.v_star == pytest.approx(v_star, abs=1e-9)
    assert got.u_random == pytest.approx(u_random, abs=1e-9)
    assert len(got.optimal_sets) == len(optimal)


def test_static_oracle_gives_the_same_values_when_work_is_chunked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import heedful.decision.static as static_module

    p = _mixed_problem(5, 8)
    _, whole = all_subset_values(p, 4)
    monkeypatch.setattr(static_module, "_CHUNK_ELEMENTS", 50)
    _, chunked = all_subset_values(p, 4)
    for a, b in zip(whole, chunked, strict=True):
        assert a == pytest.approx(b, abs=1e-12)


def _many_sources(n: int, budget: int) -> DecisionProblem:
    raw = {
        "format": "heedful.scenario/v1",
        "id": "many",
        "family": "T",
        "task": "ship or hold?",
        "budget": budget,
        "variables": {"up": {"domain": ["yes", "no"], "prior": [0.5, 0.5]}},
        "actions": {
            "ship": {"utility": [{"when": {"up": "yes"}, "value": 1.0}, {"value": -1.0}]},
            "hold": {"utility": [{"value": 0.0}]},
        },
        "sources": [
            {"id": f"s{i}", "reports": ["up"], "accuracy": 0.6 + 0.3 * i / n} for i in range(n)
        ],
    }
    sc = scenario_from_dict(raw)
    return compile_problem(sc.view, sc.truth)


def test_static_oracle_refuses_by_memory_before_allocating() -> None:
    # 490 sources at budget 3: 19.6M subsets (under max_subsets) took 2.9 GB and died.
    with pytest.raises(ProblemTooLargeError, match="GB of memory"):
        static_oracle(_many_sources(490, 3), 3)


def test_memory_limit_is_a_config_number() -> None:
    problem = _many_sources(60, 3)
    with pytest.raises(ProblemTooLargeError, match="36,051 subsets"):
        static_oracle(problem, 3, limits=DecisionLimits(max_static_bytes=1e6))
    assert static_oracle(problem, 3).n_subsets == 36_051


# -- hidden sources (issue 23): a source read only after the source that reveals it ------------


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS)
def test_static_oracle_with_hidden_sources_matches_brute_force(seed: int) -> None:
    sc = random_scenario(seed, hidden=True)
    p = compile_problem(sc.view, sc.truth)
    got = static_oracle(p, sc.view.budget)
    want = brute_oracle(sc, sc.view.budget)
    assert got.v_star == pytest.approx(want["v_star"], abs=1e-9)
    assert got.u_random == pytest.approx(want["u_random"], abs=1e-9)
    assert got.optimal_sets == want["optimal_sets"]
    assert got.critical == want["critical"]


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, budget=st.integers(0, 4))
def test_static_oracle_with_hidden_sources_matches_the_reference(seed: int, budget: int) -> None:
    sc = random_scenario(seed, hidden=True)
    p = compile_problem(sc.view, sc.truth)
    v_star, optimal, u_random, _ = naive_static_oracle(p, budget)
    got = static_oracle(p, budget)
    assert got.v_star == pytest.approx(v_star, abs=1e-9)
    assert got.u_random == pytest.approx(u_random, abs=1e-9)
    want = sorted((tuple(sorted(p.source_ids[i] for i in s)) for s in optimal), key=_by_size)
    assert list(got.optimal_sets) == want


def _by_size(t: tuple[str, ...]) -> tuple[int, tuple[str, ...]]:
    return (len(t), t)


_HIDDEN = {
    "format": "heedful.scenario/v1",
    "id": "hidden-live",
    "budget": 2,
    "cost_weight": 0.01,
    "variables": {"v": {"domain": ["up", "down"], "prior": [0.5, 0.5]}},
    "actions": {
        "ship": {"utility": [{"when": {"v": "up"}, "value": 1.0}, {"value": -1.0}]},
        "hold": {"utility": [{"value": 0.0}]},
    },
    "sources": [
        {"id": "index", "reports": [], "cost": {"tool_calls": 1}},
        {"id": "noise", "reports": [], "cost": {"tool_calls": 1}},
        {"id": "live", "reports": ["v"], "accuracy": 0.99, "revealed_by": "index"},
    ],
}


def test_a_hidden_source_is_read_only_with_its_revealer() -> None:
    sc = scenario_from_dict(_HIDDEN)
    p = compile_problem(sc.view, sc.truth)
    assert p.source_ids == ("index", "noise", "live")
    got = static_oracle(p, 2)
    assert got.optimal_sets == (("index", "live"),)
    # Alone, the live read would be worth more — but it cannot be named before the index.
    assert value(p, ["live"]) > got.v_star
    assert static_oracle(p, 1).optimal_sets == ((),)


def test_u_random_with_hidden_sources_counts_listed_sources_only() -> None:
    sc = scenario_from_dict(_HIDDEN)
    p = compile_problem(sc.view, sc.truth)
    assert static_oracle(p, 2).u_random == pytest.approx(value(p, ["index", "noise"]))


# -- the forced-read upper bound (document 000 §21) ----------------------------------------------


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, budget=st.integers(0, 3), hidden=st.booleans())
def test_forced_read_bound_matches_brute_force_and_bounds_the_oracle(
    seed: int, budget: int, hidden: bool
) -> None:
    sc = random_scenario(seed, max_sources=5, max_joint=60, hidden=hidden)
    p = compile_problem(sc.view, sc.truth)
    rng = np.random.default_rng(seed)
    forced = sorted({int(i) for i in rng.choice(p.n_sources, size=min(2, p.n_sources))})
    rev = p.revealed_by or (-1,) * p.n_sources
    others = [i for i in range(p.n_sources) if i not in forced]
    want = max(
        naive_value(p, [*s, *forced]) + p.cost_weight * float(p.costs[forced].sum())
        for k in range(min(budget, len(others)) + 1)
        for s in itertools.combinations(others, k)
        if all(rev[i] < 0 or rev[i] in s or rev[i] in forced for i in s)
    )
    got = forced_read_bound(p, budget, forced)
    assert got == pytest.approx(want, abs=1e-9)
    assert got >= static_oracle(p, budget).v_star - 1e-9
