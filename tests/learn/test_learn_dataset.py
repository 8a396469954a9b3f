"""Training data: disjoint seed streams, oracle labels, and features from visible data only."""

from __future__ import annotations

import numpy as np
import pytest

from heedful import decision
from heedful.bench.seeds import Stream
from heedful.bench.worlds.families import generate_family
from heedful.learn.config import LearnConfig, RankerConfig
from heedful.learn.dataset import OracleLabeler, collect_scenario, training_scenarios
from heedful.learn.features import FEATURE_NAMES
from heedful.learn.train import train_model


def _fingerprint(s) -> tuple:
    return tuple(sorted((k, tuple(v)) for k, v in s.truth.priors.items()))


def test_training_scenarios_come_from_a_stream_no_evaluation_uses() -> None:
    train = {_fingerprint(s) for s in training_scenarios("G", 8, 0)}
    for stream in (Stream.DEV, Stream.HOLDOUT):
        evaluation = {_fingerprint(s) for s in generate_family("G", 8, 0, stream=stream)}
        assert not train & evaluation


@pytest.mark.parametrize("family", ["G", "C", "A"])
def test_greedy_on_exact_labels_is_the_static_oracle(family: str) -> None:
    for scenario in training_scenarios(family, 3, 5):
        lab = OracleLabeler(scenario)
        ids = list(lab.problem.source_ids)
        chosen: list[str] = []
        while len(chosen) < lab.budget:
            labels = {s: lab.label(chosen, s) for s in ids if s not in chosen}
            best = max(labels, key=lambda s: labels[s] or -np.inf)
            if (labels[best] or 0.0) <= 1e-12:
                break
            chosen.append(best)
        v_star = decision.static_oracle(lab.problem, lab.budget).v_star
        assert lab.set_value(chosen) == pytest.approx(v_star, abs=1e-9)


def test_labels_are_negative_for_reads_off_every_optimal_plan() -> None:
    scenario = training_scenarios("G", 1, 0)[0]
    lab = OracleLabeler(scenario)
    oracle = decision.static_oracle(lab.problem, lab.budget)
    members = {m for t in oracle.optimal_sets for m in t}
    for sid in lab.problem.source_ids:
        label = lab.label([], sid)
        assert label is not None
        if sid in members:
            assert label == pytest.approx(oracle.v_star - oracle.v_empty)
        else:
            assert label < 0


def _renamed(scenario):
    """The same scenario with every id, label, text and family name changed."""
    view, truth = scenario.view, scenario.truth
    ren = {s.id: f"zz{i}" for i, s in enumerate(view.sources)}
    sources = tuple(
        s.model_copy(update={"id": ren[s.id], "label": "x", "content": "y", "kind": "document"})
        for s in view.sources
    )
    view2 = view.model_copy(
        update={"id": "other", "family": "renamed", "task": "t", "sources": sources}
    )
    truth2 = truth.model_copy(update={"sources": {ren[k]: v for k, v in truth.sources.items()}})
    return scenario.model_copy(update={"view": view2, "truth": truth2})


def test_features_ignore_ids_labels_wording_and_family() -> None:
    scenario = training_scenarios("G", 1, 3)[0]
    a = collect_scenario(scenario, 0, np.random.default_rng(0), random_rollouts=0)
    b = collect_scenario(_renamed(scenario), 0, np.random.default_rng(0), random_rollouts=0)
    assert a.x.shape[1] == len(FEATURE_NAMES) and a.x.shape[0] > 0
    np.testing.assert_allclose(np.sort(a.x, axis=0), np.sort(b.x, axis=0))
    np.testing.assert_allclose(np.sort(a.y), np.sort(b.y))


def test_training_records_its_manifest() -> None:
    config = LearnConfig(ranker=RankerConfig(validation_count=4))
    model = train_model(["A"], 3, seed=4, rounds=1, config=config, command="test")
    man = model.manifest
    assert man["families"] == ["A"] and man["count"] == 3 and man["seed"] == 4
    assert man["rows"] > 0 and man["features_hash"] and man["heedful_version"]
    assert man["seed_stream"] not in {int(s) for s in Stream}
    val = man["validation"]
    assert val["scenarios_per_family"] == 4 and val["scenarios"] <= 4
    assert set(val["mean_regret"]) == {"none", "100.0", "1000.0", "10000.0", "1000000.0", "search"}
    assert val["selected"] in val["mean_regret"]
    assert man["search"]["scenarios"] <= 3 and man["config"]["search_objective"] == "regret"
    if val["selected"] == "none":  # no correction: the model-based estimate as it is
        assert man["fit"] == "none" and man["ridge"] is None and not np.any(model.weights)
    elif val["selected"] == "search":
        assert man["fit"] == "search" and man["ridge"] is None
    else:
        assert man["fit"] == "ridge" and man["ridge"] == float(val["selected"])


def test_stop_offset_separates_states_worth_continuing_from_states_to_stop() -> None:
    from heedful.learn.dataset import Dataset
    from heedful.learn.train import stop_offset

    # State 0: stopping is optimal (every label < 0); state 1: reading on is (best label > 0).
    y = np.array([-0.1, -0.2, 0.3, -0.1])
    pred = np.array([0.05, 0.0, 0.2, 0.1])
    data = Dataset(np.zeros((4, len(FEATURE_NAMES))), y, np.zeros(4, int), np.array([0, 0, 1, 1]))
    delta = stop_offset(pred, data)
    assert 0.05 <= delta < 0.2
