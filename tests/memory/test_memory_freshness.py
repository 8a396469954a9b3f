"""Freshness: p_stale and the Cho & Garcia-Molina change-rate estimator (document 000 §9)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pydantic import ValidationError

from heedful.errors import InvalidArgumentError
from heedful.memory import FreshnessConfig, Store, cho_garcia_molina_rate, p_stale
from heedful.model.claim import Claim
from heedful.model.scenario import Volatility


@pytest.mark.parametrize(
    ("volatility", "per_hour"),
    [
        (Volatility.IMMUTABLE, 0.0),
        (Volatility.LOW, 0.001),
        (Volatility.MEDIUM, 0.05),
        (Volatility.HIGH, 0.5),
        (Volatility.VERY_HIGH, 5.0),
    ],
)
def test_default_hazards_match_spec(volatility: Volatility, per_hour: float) -> None:
    assert p_stale(volatility, 3600.0) == pytest.approx(1 - math.exp(-per_hour))


def test_fresh_evidence_is_never_stale() -> None:
    assert p_stale(Volatility.VERY_HIGH, 0.0) == 0.0


def test_immutable_never_goes_stale() -> None:
    assert p_stale(Volatility.IMMUTABLE, 1e12) == 0.0


def test_hazards_can_be_overridden() -> None:
    config = FreshnessConfig(
        hazards_per_hour={**FreshnessConfig().hazards_per_hour, Volatility.LOW: 1.0}
    )
    assert p_stale(Volatility.LOW, 3600.0, config) == pytest.approx(1 - math.exp(-1))
    assert p_stale(Volatility.LOW, 3600.0, {Volatility.LOW: 2.0}) == pytest.approx(1 - math.exp(-2))


def test_config_rejects_missing_or_negative_hazards() -> None:
    with pytest.raises(ValidationError):
        FreshnessConfig(hazards_per_hour={Volatility.LOW: 1.0})
    with pytest.raises(ValidationError):
        FreshnessConfig(hazards_per_hour={v: -1.0 for v in Volatility})


def test_negative_age_is_rejected() -> None:
    with pytest.raises(InvalidArgumentError, match="age"):
        p_stale(Volatility.LOW, -1.0)


def test_p_stale_is_monotone_in_age() -> None:
    ages = [0, 60, 600, 3600, 86400]
    values = [p_stale(Volatility.MEDIUM, a) for a in ages]
    assert values == sorted(values)


def test_estimator_exact_one_change_one_unchanged() -> None:
    # 1/(e^λ − 1) = 1  ⇒  λ = ln 2
    assert cho_garcia_molina_rate([1.0, 1.0], [True, False]) == pytest.approx(math.log(2), 1e-9)


def test_estimator_exact_two_changes_one_unchanged() -> None:
    # 2/(e^λ − 1) = 1  ⇒  λ = ln 3
    rate = cho_garcia_molina_rate([1.0, 1.0, 1.0], [True, True, False])
    assert rate == pytest.approx(math.log(3), 1e-9)


def test_estimator_scales_with_time_unit() -> None:
    rate = cho_garcia_molina_rate([3600.0, 3600.0], [True, False])
    assert rate == pytest.approx(math.log(2) / 3600.0, 1e-9)


def test_estimator_without_changes_is_zero() -> None:
    assert cho_garcia_molina_rate([1.0, 2.0, 5.0], [False, False, False]) == 0.0


def test_estimator_with_only_changes_is_finite_and_bounded() -> None:
    rate = cho_garcia_molina_rate([2.0, 2.0, 2.0], [True, True, True])
    assert rate == pytest.approx(math.log(7) / 2.0)


def test_estimator_rejects_bad_input() -> None:
    with pytest.raises(InvalidArgumentError):
        cho_garcia_molina_rate([], [])
    with pytest.raises(InvalidArgumentError):
        cho_garcia_molina_rate([1.0], [True, False])
    with pytest.raises(InvalidArgumentError):
        cho_garcia_molina_rate([0.0], [True])


@pytest.mark.parametrize("true_rate", [0.2, 1.0, 3.0])
def test_estimator_recovers_simulated_poisson_rate(true_rate: float) -> None:
    rng = np.random.default_rng(20261129)
    intervals = rng.uniform(0.05, 2.0, size=4000)
    changed = rng.random(4000) < -np.expm1(-true_rate * intervals)
    estimate = cho_garcia_molina_rate(intervals.tolist(), changed.tolist())
    assert estimate == pytest.approx(true_rate, rel=0.1)


def test_store_learns_hazard_from_observations(store: Store) -> None:
    for at, value in [(0.0, "a"), (3600.0, "b"), (7200.0, "b")]:
        store.record_observation("dep", value, at)
    assert store.change_history("dep") == ([3600.0, 3600.0], [True, False])
    assert store.learned_hazard_per_hour("dep") == pytest.approx(math.log(2))


def test_store_hazard_needs_two_observations(store: Store) -> None:
    store.record_observation("dep", "a", 0.0)
    assert store.learned_hazard_per_hour("dep") is None


def test_simultaneous_observations_are_merged(store: Store) -> None:
    store.record_observation("dep", "a", 0.0)
    store.record_observation("dep", "b", 0.0)
    store.record_observation("dep", "b", 10.0)
    assert store.change_history("dep") == ([10.0], [False])


def test_store_p_stale_switches_to_learned_hazard_with_enough_revisits() -> None:
    config = FreshnessConfig(min_revisits_to_learn=2)
    with Store.open(freshness=config) as store:
        store.add_claim(
            Claim(id="c", subject="dep", value="a", volatility=Volatility.LOW, observed_at=0.0)
        )
        assert store.hazard_per_hour("c") == 0.001
        for at, value in [(0.0, "a"), (3600.0, "b"), (7200.0, "b")]:
            store.record_observation("dep", value, at)
        assert store.hazard_per_hour("c") == pytest.approx(math.log(2))
        assert store.hazard_per_hour("c", learned=False) == 0.001
        assert store.p_stale("c", now=3600.0) == pytest.approx(0.5)


def test_store_p_stale_rejects_time_before_observation(store: Store) -> None:
    store.add_claim(Claim(id="c", subject="dep", value="a", observed_at=100.0))
    with pytest.raises(InvalidArgumentError, match="before"):
        store.p_stale("c", now=50.0)


def test_class_hazard_pools_subjects_of_one_claim_type(store: Store) -> None:
    for subject in ("x", "y"):
        store.add_claim(
            Claim(id=subject, subject=subject, value=0, claim_type="cfg", observed_at=0.0)
        )
    store.add_claim(Claim(id="z", subject="z", value=0, claim_type="other", observed_at=0.0))
    for at, value in [(0.0, 0), (3600.0, 1)]:
        store.record_observation("x", value, at)
    for at, value in [(0.0, 0), (3600.0, 0)]:
        store.record_observation("y", value, at)
    for at, value in [(0.0, 0), (3600.0, 1), (7200.0, 2)]:
        store.record_observation("z", value, at)
    assert store.learned_class_hazard_per_hour("cfg") == pytest.approx(math.log(2))
    assert store.learned_class_hazard_per_hour("missing") is None
