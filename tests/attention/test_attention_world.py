from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from tests_attention_time import NOW

from heedful.attention.estimators import HeuristicEstimator
from heedful.attention.world import World, observation_accuracy
from heedful.model.scenario import Volatility


def _world() -> World:
    w = World()
    w.register_source("s", reports=["c"], authority=0.9)
    w.record_belief("c", "x", now=NOW, domain=["x", "y"], confidence=0.5, volatility="immutable")
    return w


def test_evidence_updates_the_belief_by_bayes_rule() -> None:
    w = _world()
    # prior: keep 0.5 on x, rest uniform → [0.75, 0.25]; report y with accuracy 0.9.
    _, changed = w.record_evidence("c", "s", "y", now=NOW)
    assert changed
    m = w.marginal("c", NOW)
    assert m is not None
    np.testing.assert_allclose(m, [0.25, 0.75])
    assert w.beliefs["c"].value == "y" and w.beliefs["c"].confidence == pytest.approx(0.75)


def test_report_accuracy_decays_with_the_age_of_the_sources_data() -> None:
    hazards = {Volatility.HIGH: 0.5}
    fresh = observation_accuracy(0.9, 0.0, Volatility.HIGH, hazards, 2)
    old = observation_accuracy(0.9, 36_000.0, Volatility.HIGH, hazards, 2)
    assert fresh == pytest.approx(0.9) and old == pytest.approx(0.5, abs=0.01)


def test_a_learned_hazard_replaces_the_volatility_class_default() -> None:
    w = _world()  # immutable: the class default never goes stale
    later = NOW + timedelta(seconds=1)
    assert HeuristicEstimator().claim_p_stale(w.claim_state("c", later)) == 0.0
    w.set_learned_hazard("c", 3600.0)  # one change per second, learned from revisits
    assert HeuristicEstimator().claim_p_stale(w.claim_state("c", later)) == pytest.approx(
        1 - np.exp(-1.0)
    )


def test_a_domain_with_a_repeated_value_is_refused_and_nothing_is_recorded() -> None:
    from heedful.errors import InvalidArgumentError

    w = _world()
    with pytest.raises(InvalidArgumentError, match="distinct"):
        # Repeats made a one-valued claim look changeable: its reads were valued > 0.
        w.record_belief("d", "a", now=NOW, domain=["a", "a", "a"], volatility="high")
    assert "d" not in w.beliefs
