from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive_decision import random_scenario

from heedful.decision import (
    DecisionProblem,
    adaptive_oracle,
    best_action,
    compile_problem,
    myopic_voi,
    myopic_voi_all,
    outcome_index,
    posterior,
    sample_outcome,
    vpi,
)
from heedful.errors import InvalidArgumentError
from heedful.model import scenario_from_dict

SEEDS = st.integers(min_value=0, max_value=2**31 - 1)


def _problem(cost_weight: float = 0.0) -> DecisionProblem:
    return DecisionProblem(
        prior=[0.25, 0.75],
        utility=[[1.0, -1.0], [-1.0, 1.0], [0.0, 0.0]],
        likelihoods=[np.array([[0.8, 0.3], [0.2, 0.7]]), np.array([[0.5, 0.5], [0.5, 0.5]])],
        costs=[2.0, 1.0],
        cost_weight=cost_weight,
        source_ids=["good", "coin"],
        action_ids=["a", "b", "wait"],
    )


def test_posterior_applies_bayes_rule() -> None:
    post = posterior(_problem(), [("good", 0)])
    expected = np.array([0.25 * 0.8, 0.75 * 0.3])
    assert post == pytest.approx(expected / expected.sum())


def test_posterior_accepts_a_mapping_like_a_sequence() -> None:
    p = _problem()
    assert posterior(p, {"good": 1, "coin": 0}) == pytest.approx(
        posterior(p, [("good", 1), ("coin", 0)])
    )


def test_posterior_rejects_impossible_observations() -> None:
    p = DecisionProblem(
        prior=[1.0, 0.0],
        utility=[[1.0, 0.0]],
        likelihoods=[np.array([[1.0, 0.0], [0.0, 1.0]])],
        costs=[0.0],
        cost_weight=0.0,
        source_ids=["s"],
        action_ids=["a"],
    )
    with pytest.raises(InvalidArgumentError, match="probability zero"):
        posterior(p, [("s", 1)])


def test_posterior_rejects_outcome_out_of_range() -> None:
    with pytest.raises(InvalidArgumentError, match="out of range"):
        posterior(_problem(), [("good", 2)])


def test_best_action_maximises_expected_utility() -> None:
    action, eu = best_action(_problem())
    assert action == "b"
    assert eu == pytest.approx(0.5)


def test_best_action_breaks_ties_by_action_order() -> None:
    assert best_action(_problem(), [0.5, 0.5])[0] == "a"


def test_belief_of_wrong_shape_is_rejected() -> None:
    with pytest.raises(InvalidArgumentError, match="shape"):
        best_action(_problem(), [1.0])


def test_sample_outcome_is_reproducible_and_follows_the_likelihood() -> None:
    p = _problem()
    draws = [sample_outcome(p, "good", 0, np.random.default_rng(i)) for i in range(2000)]
    again = [sample_outcome(p, "good", 0, np.random.default_rng(i)) for i in range(2000)]
    assert draws == again
    assert np.mean(np.array(draws) == 0) == pytest.approx(0.8, abs=0.04)


def test_echo_source_always_samples_its_fixed_report() -> None:
    raw = {
        "format": "heedful.scenario/v1",
        "id": "e",
        "budget": 1,
        "variables": {"v": {"domain": ["x", "y"], "prior": [0.5, 0.5]}},
        "actions": {"a": {"utility": [{"value": 0.0}]}},
        "sources": [{"id": "cache", "reports": ["v"], "echo": {"v": "x"}}],
    }
    sc = scenario_from_dict(raw)
    p = compile_problem(sc.view, sc.truth)
    fixed = outcome_index(p, "cache", {"v": "x"})
    rng = np.random.default_rng(0)
    assert {sample_outcome(p, "cache", w, rng) for w in range(2) for _ in range(20)} == {fixed}


def test_myopic_voi_net_is_gross_minus_weighted_cost() -> None:
    voi = myopic_voi(_problem(cost_weight=0.01), [0.5, 0.5], "good")
    assert voi.gross > 0
    assert voi.cost == pytest.approx(0.02)
    assert voi.net == pytest.approx(voi.gross - 0.02)


def test_myopic_voi_of_an_uninformative_source_is_zero_gross() -> None:
    voi = myopic_voi(_problem(cost_weight=0.01), None, "coin")
    assert voi.gross == pytest.approx(0.0, abs=1e-15)
    assert voi.net < 0


def test_myopic_voi_all_covers_every_source() -> None:
    assert set(myopic_voi_all(_problem())) == {"good", "coin"}


def test_vpi_is_zero_when_one_action_dominates() -> None:
    p = DecisionProblem(
        prior=[0.5, 0.5],
        utility=[[2.0, 2.0], [1.0, 0.0]],
        likelihoods=[np.eye(2)],
        costs=[1.0],
        cost_weight=0.0,
        source_ids=["s"],
        action_ids=["a", "b"],
    )
    assert vpi(p) == 0.0


def test_vpi_of_a_coin_flip_between_two_bets() -> None:
    assert vpi(_problem(), [0.5, 0.5]) == pytest.approx(1.0)


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, budget=st.integers(1, 3))
def test_bmps_bracket_myopic_voi_le_voc_le_vpi(seed: int, budget: int) -> None:
    sc = random_scenario(seed, max_sources=5, max_joint=60)
    p = compile_problem(sc.view, sc.truth)
    belief = np.random.default_rng(seed).dirichlet(np.ones(p.n_worlds))
    act_now = best_action(p, belief)[1]
    voc_star = adaptive_oracle(p, budget, belief=belief).v_adaptive - act_now
    best_myopic = max(v.net for v in myopic_voi_all(p, belief).values())
    assert max(best_myopic, 0.0) <= voc_star + 1e-9
    assert voc_star <= vpi(p, belief) + 1e-9
