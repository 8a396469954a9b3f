from __future__ import annotations

import numpy as np
import pytest

from heedful.decision import DecisionProblem, compile_problem, outcome_index, outcome_values
from heedful.decision.config import DecisionLimits
from heedful.errors import InvalidArgumentError, ProblemTooLargeError, UnknownNameError
from heedful.model import scenario_from_dict


def _scenario(**over: object) -> dict:
    raw: dict = {
        "format": "heedful.scenario/v1",
        "id": "t",
        "budget": 1,
        "cost_weight": 0.1,
        "variables": {
            "ver": {"domain": ["4.1", "4.2", "4.3"], "prior": [0.2, 0.5, 0.3]},
            "ok": {"domain": ["yes", "no"], "prior": [0.9, 0.1]},
        },
        "actions": {
            "a": {"utility": [{"when": {"ver": "4.1"}, "value": 1.0}, {"value": -1.0}]},
            "b": {"utility": [{"when": {"ok": "yes"}, "value": 0.5}, {"value": 0.0}]},
        },
        "sources": [
            {
                "id": "noisy",
                "reports": ["ver"],
                "accuracy": 0.8,
                "fails": 0.1,
                "cost": {"tool_calls": 1, "tokens": 500, "latency_ms": 250},
            },
            {"id": "echo", "reports": ["ver", "ok"], "echo": {"ver": "4.1", "ok": "no"}},
            {"id": "empty"},
        ],
    }
    raw.update(over)
    return raw


def _compile(**over: object) -> DecisionProblem:
    sc = scenario_from_dict(_scenario(**over))
    return compile_problem(sc.view, sc.truth)


def test_worlds_are_the_product_of_domains_last_variable_fastest() -> None:
    p = _compile()
    assert p.n_worlds == 6
    assert p.world(0) == {"ver": "4.1", "ok": "yes"}
    assert p.world(1) == {"ver": "4.1", "ok": "no"}
    assert p.world_index({"ver": "4.3", "ok": "no"}) == 5


def test_prior_is_the_product_of_per_variable_priors() -> None:
    p = _compile()
    assert p.prior[p.world_index({"ver": "4.2", "ok": "no"})] == pytest.approx(0.05)
    assert p.prior.sum() == pytest.approx(1.0)


def test_utility_uses_the_first_matching_rule() -> None:
    p = _compile()
    a = p.action_ids.index("a")
    b = p.action_ids.index("b")
    assert p.utility[a, p.world_index({"ver": "4.1", "ok": "no"})] == 1.0
    assert p.utility[a, p.world_index({"ver": "4.2", "ok": "yes"})] == -1.0
    assert p.utility[b, p.world_index({"ver": "4.3", "ok": "yes"})] == 0.5


def test_noisy_source_reports_truth_with_accuracy_else_uniform_and_fails() -> None:
    p = _compile()
    lik = p.likelihoods[p.source_index("noisy")]
    w = p.world_index({"ver": "4.2", "ok": "yes"})
    assert lik.shape == (4, 6)
    assert lik[outcome_index(p, "noisy", {"ver": "4.2"}), w] == pytest.approx(0.9 * 0.8)
    assert lik[outcome_index(p, "noisy", {"ver": "4.3"}), w] == pytest.approx(0.9 * 0.1)
    assert lik[outcome_index(p, "noisy", None), w] == pytest.approx(0.1)


def test_echo_source_always_reports_its_fixed_values() -> None:
    p = _compile()
    lik = p.likelihoods[p.source_index("echo")]
    fixed = outcome_index(p, "echo", {"ver": "4.1", "ok": "no"})
    assert np.all(lik[fixed] == 1.0)
    assert lik.shape[0] == 3 * 2 + 1


def test_source_reporting_nothing_has_one_outcome() -> None:
    p = _compile()
    assert p.n_outcomes("empty") == 1
    assert outcome_index(p, "empty", {}) == 0
    assert outcome_values(p, "empty", 0) == {}


def test_outcome_values_inverts_outcome_index() -> None:
    p = _compile()
    for sid in p.source_ids:
        for o in range(p.n_outcomes(sid)):
            assert outcome_index(p, sid, outcome_values(p, sid, o)) == o


def test_scalar_costs_follow_spec() -> None:
    p = _compile()
    assert p.costs[p.source_index("noisy")] == pytest.approx(1 + 0.5 + 0.25)
    assert p.cost_weight == 0.1


def test_unknown_source_is_named() -> None:
    p = _compile()
    with pytest.raises(UnknownNameError, match="nope"):
        p.source_index("nope")


def test_outcome_index_rejects_values_outside_the_source() -> None:
    p = _compile()
    with pytest.raises(InvalidArgumentError):
        outcome_index(p, "noisy", {"ok": "yes"})


def test_too_many_worlds_is_refused_with_numbers() -> None:
    sc = scenario_from_dict(_scenario())
    with pytest.raises(ProblemTooLargeError, match="6 joint worlds"):
        compile_problem(sc.view, sc.truth, limits=DecisionLimits(max_worlds=5))


def _raw(**over: object) -> dict:
    args: dict = {
        "prior": [0.5, 0.5],
        "utility": [[1.0, 0.0], [0.0, 1.0]],
        "likelihoods": [[[0.9, 0.2], [0.1, 0.8]]],
        "costs": [1.0],
        "cost_weight": 0.0,
        "source_ids": ["s"],
        "action_ids": ["x", "y"],
    }
    args.update(over)
    return args


def test_raw_constructor_accepts_consistent_arrays() -> None:
    p = DecisionProblem(**_raw())
    assert (p.n_worlds, p.n_actions, p.n_sources) == (2, 2, 1)
    assert not p.prior.flags.writeable


@pytest.mark.parametrize(
    ("over", "message"),
    [
        ({"prior": [0.5, 0.6]}, "prior"),
        ({"likelihoods": [[[0.9, 0.2], [0.2, 0.8]]]}, "column"),
        ({"utility": [[1.0, 0.0, 2.0]]}, "utility"),
        ({"source_ids": ["s", "t"]}, "agree"),
        ({"action_ids": ["x", "x"]}, "unique action"),
        ({"costs": [-1.0]}, "non-negative"),
        ({"cost_weight": -0.1}, "cost_weight"),
        ({"prior": [np.nan, 1.0]}, "finite"),
    ],
)
def test_raw_constructor_rejects_inconsistent_arrays(over: dict, message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        DecisionProblem(**_raw(**over))


def test_raw_problem_has_no_outcome_labels() -> None:
    p = DecisionProblem(**_raw())
    with pytest.raises(InvalidArgumentError, match="labels"):
        outcome_index(p, "s", None)
