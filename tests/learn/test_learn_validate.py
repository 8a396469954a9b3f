"""Validation rollouts on cached states equal the real controller's; model selection."""

from __future__ import annotations

import numpy as np

from heedful.bench.run.runner import collect_choices
from heedful.learn.config import DEFAULT_LEARN_CONFIG
from heedful.learn.dataset import EstimatorPolicy, training_scenarios
from heedful.learn.estimator import LearnedEstimator
from heedful.learn.features import FEATURE_NAMES, FeatureExtractor
from heedful.learn.model_files import load_ranker
from heedful.learn.ranker import RidgeRanker
from heedful.learn.train import select_model
from heedful.learn.validate import state_caches


def _real_choices(model: RidgeRanker, scenario) -> list[str]:
    policy = EstimatorPolicy(LearnedEstimator(model))
    task = scenario.view.task_view()
    policy.reset(task, np.random.default_rng(0))
    history, _ = collect_choices(policy, task, None)
    return [o.source_id for o in history]


def _reversed_model() -> RidgeRanker:
    """A deliberately bad correction: ranks by minus the model-based estimate, plus a bonus."""
    model = RidgeRanker.identity()
    assert model.weights is not None
    model.weights[FEATURE_NAMES.index("model_net")] = -2.0
    model.intercept = 0.05
    model._fold()
    return model


def test_cached_rollout_is_the_real_controllers_choice() -> None:
    scenarios = training_scenarios("G", 3, 7) + training_scenarios("B", 2, 7)
    caches = state_caches(scenarios, FeatureExtractor())
    assert caches
    for model in (load_ranker(None), RidgeRanker.identity(), _reversed_model()):
        for cache in caches:
            assert cache.rollout(model.predict) == _real_choices(model, cache.scenario)


def test_identity_predicts_the_model_based_estimate_and_saves_ridge_as_null(tmp_path) -> None:
    model = RidgeRanker.identity()
    x = np.random.default_rng(0).normal(size=(5, len(FEATURE_NAMES)))
    assert np.array_equal(model.predict(x), x[:, FEATURE_NAMES.index("model_net")])
    path = tmp_path / "m.json"
    model.save(path)
    assert '"ridge": null' in path.read_text()
    again = RidgeRanker.from_dict(model.to_dict())
    assert np.array_equal(again.predict(x), model.predict(x))


def test_selection_keeps_no_correction_when_the_fit_validates_worse() -> None:
    validation = training_scenarios("G", 4, 9)
    chosen, report = select_model({1.0: _reversed_model()}, validation, DEFAULT_LEARN_CONFIG)
    assert report["selected"] == "none" and not np.any(chosen.weights)
    assert report["mean_regret"]["1.0"] > report["mean_regret"]["none"]
    assert report["scenarios"] == 4
