from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive_decision import brute_adaptive, random_scenario

from heedful.decision import (
    DecisionLimits,
    DecisionProblem,
    History,
    adaptive_oracle,
    compile_problem,
    evaluate_policy,
    policy_value,
    static_oracle,
    static_policy,
    value,
)
from heedful.decision.reference import naive_adaptive_value
from heedful.errors import InvalidArgumentError, ProblemTooLargeError, UnknownNameError
from heedful.model import scenario_from_dict

SEEDS = st.integers(min_value=0, max_value=2**31 - 1)


def _small(seed: int) -> DecisionProblem:
    sc = random_scenario(seed, max_sources=5, max_joint=60)
    return compile_problem(sc.view, sc.truth)


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS)
def test_adaptive_oracle_matches_the_tests_brute_force(seed: int) -> None:
    sc = random_scenario(seed, max_sources=5, max_joint=60)
    p = compile_problem(sc.view, sc.truth)
    budget = sc.view.budget
    assert adaptive_oracle(p, budget).v_adaptive == pytest.approx(
        brute_adaptive(sc, budget), abs=1e-9
    )


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, budget=st.integers(0, 4))
def test_adaptive_oracle_matches_the_reference(seed: int, budget: int) -> None:
    p = _small(seed)
    got = adaptive_oracle(p, budget).v_adaptive
    assert got == pytest.approx(naive_adaptive_value(p, budget), abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, budget=st.integers(0, 4))
def test_adaptive_is_at_least_static(seed: int, budget: int) -> None:
    p = _small(seed)
    assert adaptive_oracle(p, budget).v_adaptive >= static_oracle(p, budget).v_star - 1e-9


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS)
def test_adaptive_with_budget_one_equals_static_with_budget_one(seed: int) -> None:
    p = _small(seed)
    assert adaptive_oracle(p, 1).v_adaptive == pytest.approx(static_oracle(p, 1).v_star, abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, budget=st.integers(0, 4))
def test_the_oracle_policy_achieves_the_oracle_value(seed: int, budget: int) -> None:
    p = _small(seed)
    result = adaptive_oracle(p, budget)
    assert policy_value(p, result.policy, budget) == pytest.approx(result.v_adaptive, abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS)
def test_a_fixed_order_policy_is_worth_the_static_value_of_its_set(seed: int) -> None:
    p = _small(seed)
    rng = np.random.default_rng(seed)
    size = int(rng.integers(0, p.n_sources + 1))
    order = [str(s) for s in rng.permutation(p.source_ids)[:size]]
    assert policy_value(p, static_policy(order), size) == pytest.approx(value(p, order), abs=1e-9)


def _xor() -> DecisionProblem:
    same = [
        {"when": {"x": "0", "y": "0"}, "value": 1.0},
        {"when": {"x": "1", "y": "1"}, "value": 1.0},
        {"value": 0.0},
    ]
    differ = [{**r, "value": 1.0 - r["value"]} for r in same]
    raw = {
        "format": "heedful.scenario/v1",
        "id": "xor",
        "budget": 2,
        "cost_weight": 0.01,
        "variables": {
            "x": {"domain": ["0", "1"], "prior": [0.5, 0.5]},
            "y": {"domain": ["0", "1"], "prior": [0.5, 0.5]},
        },
        "actions": {"same": {"utility": same}, "differ": {"utility": differ}},
        "sources": [
            {"id": "noise", "cost": {"tool_calls": 1}},
            {"id": "sx", "reports": ["x"], "accuracy": 1.0, "cost": {"tool_calls": 1}},
            {"id": "sy", "reports": ["y"], "accuracy": 1.0, "cost": {"tool_calls": 1}},
        ],
    }
    sc = scenario_from_dict(raw)
    return compile_problem(sc.view, sc.truth)


def test_adaptive_oracle_inspects_both_jointly_informative_sources() -> None:
    p = _xor()
    result = adaptive_oracle(p, 2)
    assert result.first == "sx"
    assert result.policy((("sx", 0),)) == "sy"
    assert result.v_adaptive == pytest.approx(0.98)


def test_adaptive_oracle_stops_at_once_without_budget() -> None:
    result = adaptive_oracle(_xor(), 0)
    assert result.first is None
    assert result.policy(()) is None


def test_oracle_policy_stops_when_the_budget_is_spent() -> None:
    result = adaptive_oracle(_xor(), 2)
    assert result.policy((("sx", 0), ("sy", 1))) is None


def test_policy_evaluation_reports_inspection_probabilities() -> None:
    p = _xor()
    evaluation = evaluate_policy(p, static_policy(["sx", "sy"]), 2)
    assert evaluation.expected_inspections == pytest.approx(2.0)
    assert evaluation.inspection_probability == {"noise": 0.0, "sx": 1.0, "sy": 1.0}


def test_policy_is_not_asked_beyond_the_budget() -> None:
    p = _xor()
    asked: list[History] = []

    def greedy(history: History) -> str | None:
        asked.append(history)
        return ["sx", "sy", "noise"][len(history)]

    assert policy_value(p, greedy, 1) == pytest.approx(value(p, ["sx"]))
    assert all(len(h) == 0 for h in asked)


def test_policy_inspecting_a_source_twice_is_rejected() -> None:
    with pytest.raises(InvalidArgumentError, match="twice"):
        policy_value(_xor(), lambda h: "sx", 2)


def test_policy_naming_an_unknown_source_is_rejected() -> None:
    with pytest.raises(UnknownNameError, match="nope"):
        policy_value(_xor(), lambda h: "nope", 2)


def test_adaptive_oracle_refuses_oversized_problems_up_front() -> None:
    with pytest.raises(ProblemTooLargeError, match="decision nodes"):
        adaptive_oracle(_xor(), 2, limits=DecisionLimits(max_adaptive_nodes=2))


def test_adaptive_oracle_rejects_negative_budget() -> None:
    with pytest.raises(InvalidArgumentError, match="budget"):
        adaptive_oracle(_xor(), -1)


# -- hidden sources (issue 23) -------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS)
def test_adaptive_oracle_with_hidden_sources_matches_the_tests_brute_force(seed: int) -> None:
    sc = random_scenario(seed, max_sources=5, max_joint=60, hidden=True)
    p = compile_problem(sc.view, sc.truth)
    budget = sc.view.budget
    result = adaptive_oracle(p, budget)
    assert result.v_adaptive == pytest.approx(brute_adaptive(sc, budget), abs=1e-9)
    assert policy_value(p, result.policy, budget) == pytest.approx(result.v_adaptive, abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, budget=st.integers(0, 4))
def test_adaptive_oracle_with_hidden_sources_matches_the_reference(seed: int, budget: int) -> None:
    sc = random_scenario(seed, max_sources=5, max_joint=60, hidden=True)
    p = compile_problem(sc.view, sc.truth)
    got = adaptive_oracle(p, budget).v_adaptive
    assert got == pytest.approx(naive_adaptive_value(p, budget), abs=1e-9)
    assert got >= static_oracle(p, budget).v_star - 1e-9


def test_a_hidden_source_is_offered_only_after_its_revealer() -> None:
    sc = scenario_from_dict(
        {
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
                {"id": "live", "reports": ["v"], "accuracy": 0.99, "revealed_by": "index"},
            ],
        }
    )
    p = compile_problem(sc.view, sc.truth)
    result = adaptive_oracle(p, 2)
    assert result.first == "index"
    assert "live" not in result.q_values(())
    assert "live" in result.q_values((("index", 0),))
    with pytest.raises(InvalidArgumentError, match="before it was revealed"):
        policy_value(p, lambda h: "live" if not h else None, 2)
