from __future__ import annotations

import pytest
from tests_attention_time import NOW

from heedful.attention.config import EstimatorConfig
from heedful.attention.context import DecisionModel
from heedful.attention.controller import Controller, Stop
from heedful.attention.model_estimator import ModelEstimator, estimated_problem
from heedful.decision import myopic_voi
from heedful.model.candidate import Candidate
from heedful.model.scenario import UtilityRule


def _xor_controller(budget: int, pairs: bool = True, lookahead: bool = True) -> Controller:
    estimator = ModelEstimator(pairs=pairs, lookahead=lookahead)
    ctl = Controller(clock=lambda: NOW, estimator=estimator)
    for var in ("x", "y"):
        ctl.register_source(f"read_{var}", reports=[var], authority=0.99, cost={"tool_calls": 1})
        ctl.record_belief(var, None, domain=["0", "1"], volatility="immutable")
    ctl.state_decision(
        DecisionModel(
            variables={"x": ("0", "1"), "y": ("0", "1")},
            actions={
                "go": (
                    UtilityRule(when={"x": "0", "y": "0"}, value=1.0),
                    UtilityRule(when={"x": "1", "y": "1"}, value=1.0),
                    UtilityRule(value=-1.0),
                ),
                "stay": (UtilityRule(value=0.0),),
            },
            cost_weight=0.01,
        )
    )
    ctl.begin_turn(budget=budget)
    return ctl


def test_model_estimate_equals_exact_myopic_voi(deploy_controller: Controller) -> None:
    deploy_controller.estimator = ModelEstimator()
    deploy_controller.begin_turn(budget=3)
    scored = deploy_controller.refresh()
    ctx = deploy_controller.context()
    assert ctx.decision is not None
    problem = estimated_problem(ctx.decision, ctx, EstimatorConfig())
    for cand, est in scored:
        assert est.net == pytest.approx(myopic_voi(problem, None, cand.target).net, abs=1e-12)


def test_model_gross_value_never_exceeds_vpi(deploy_controller: Controller) -> None:
    deploy_controller.estimator = ModelEstimator()
    deploy_controller.begin_turn(budget=3)
    for _, est in deploy_controller.refresh():
        assert est.vpi is not None and est.gross <= est.vpi + 1e-12


def test_jointly_informative_sources_are_read_when_no_single_one_pays() -> None:
    step = _xor_controller(budget=2).next()
    assert isinstance(step, Candidate) and step.target in ("read_x", "read_y")


def test_without_pairs_or_lookahead_the_myopic_controller_stops_on_xor() -> None:
    assert isinstance(_xor_controller(budget=2, pairs=False, lookahead=False).next(), Stop)


@pytest.mark.parametrize(("pairs", "lookahead"), [(True, False), (False, True)])
def test_pairs_or_a_lookahead_plan_each_find_the_xor_reads(pairs: bool, lookahead: bool) -> None:
    step = _xor_controller(budget=2, pairs=pairs, lookahead=lookahead).next()
    assert isinstance(step, Candidate) and step.target in ("read_x", "read_y")


def test_pairs_are_not_started_when_only_one_read_remains() -> None:
    assert isinstance(_xor_controller(budget=1).next(), Stop)


def test_the_second_member_of_a_pair_pays_after_the_first_is_seen() -> None:
    ctl = _xor_controller(budget=2)
    first = ctl.next()
    assert isinstance(first, Candidate)
    ctl.resolve(first.id, succeeded=True, observations={first.claim_ids[0]: "1"})
    second = ctl.next()
    assert isinstance(second, Candidate) and second.target != first.target


def test_a_decision_too_large_to_enumerate_falls_back_to_the_heuristic(
    deploy_controller: Controller,
) -> None:
    deploy_controller.estimator = ModelEstimator(EstimatorConfig(max_enumeration=2))
    deploy_controller.begin_turn(budget=3)
    scored = deploy_controller.refresh()
    assert scored and all(est.method == "heuristic" for _, est in scored)
