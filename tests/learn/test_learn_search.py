"""Regret search: a linear score fitted to the exact regret of the policy it drives."""

from __future__ import annotations

import math

import numpy as np
import pytest

from heedful import decision
from heedful.errors import InvalidArgumentError
from heedful.learn.config import RankerConfig
from heedful.learn.dataset import training_scenarios
from heedful.learn.features import FEATURE_NAMES, FeatureExtractor
from heedful.learn.ranker import RidgeRanker
from heedful.learn.search import objective, regret_search
from heedful.learn.validate import state_caches


@pytest.fixture(scope="module")
def caches():  # type: ignore[no-untyped-def]
    scenarios = training_scenarios("C", 6, 11) + training_scenarios("E", 6, 11)
    return state_caches(scenarios, FeatureExtractor())


def test_search_never_ends_above_where_it_started_and_reports_its_own_regret(caches) -> None:  # type: ignore[no-untyped-def]
    config = RankerConfig(search_terms=2, search_max_steps=3)
    model, report = regret_search(caches, config)
    assert report["train_regret"] <= report["start_regret"]
    assert report["start_regret"] == pytest.approx(
        objective(caches, RidgeRanker.identity().predict, "regret")
    )
    assert objective(caches, model.predict, "regret") == pytest.approx(report["train_regret"])
    assert len(report["terms"]) <= 2 and len(report["steps"]) <= 3
    assert math.isinf(model.ridge) and model.manifest["fit"] == "search"


def test_search_takes_no_step_that_gains_less_than_the_minimum(caches) -> None:  # type: ignore[no-untyped-def]
    model, report = regret_search(caches, RankerConfig(search_min_gain=1e9))
    assert report["steps"] == [] and report["terms"] == {}
    x = np.random.default_rng(0).normal(size=(4, len(FEATURE_NAMES)))
    assert np.allclose(model.predict(x), RidgeRanker.identity().predict(x))


def test_search_model_saves_and_loads_as_plain_json(caches, tmp_path) -> None:  # type: ignore[no-untyped-def]
    model, _ = regret_search(caches, RankerConfig(search_terms=2, search_max_steps=2))
    path = tmp_path / "m.json"
    model.save(path)
    again = RidgeRanker.from_dict(__import__("json").loads(path.read_text()))
    x = np.random.default_rng(1).normal(size=(5, len(FEATURE_NAMES)))
    np.testing.assert_allclose(again.predict(x), model.predict(x))


def test_score_loss_is_the_bench_score_shortfall(caches) -> None:  # type: ignore[no-untyped-def]
    identity = RidgeRanker.identity().predict
    for cache in caches:
        oracle = decision.static_oracle(cache.labeler.problem, cache.scenario.view.budget)
        loss = cache.score_loss(identity)
        if oracle.v_star - oracle.u_random < decision.UNINFORMATIVE_TOLERANCE:
            assert loss is None
            continue
        value = cache.labeler.set_value(cache.rollout(identity))
        score = 100.0 * (value - oracle.u_random) / (oracle.v_star - oracle.u_random)
        assert loss == pytest.approx(100.0 - score)


def test_an_unknown_objective_is_one_clear_error(caches) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidArgumentError, match="search objective"):
        objective(caches, RidgeRanker.identity().predict, "accuracy")


def test_the_fit_does_not_depend_on_what_the_caches_were_asked_before() -> None:
    config = RankerConfig(search_terms=2, search_max_steps=2)
    scenarios = training_scenarios("G", 4, 12)
    fresh, _ = regret_search(state_caches(scenarios, FeatureExtractor()), config)
    used = state_caches(scenarios, FeatureExtractor())
    regret_search(used, RankerConfig(search_terms=3, search_max_steps=3, search_objective="score"))
    again, _ = regret_search(used, config)
    assert fresh.to_dict() == again.to_dict()
