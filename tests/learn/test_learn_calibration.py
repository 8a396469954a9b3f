"""Isotonic calibration of predicted net VOC and the expected calibration error."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from heedful.attention import HeuristicEstimator
from heedful.errors import InvalidArgumentError
from heedful.learn.calibration import (
    CalibratedEstimator,
    IsotonicCalibrator,
    expected_calibration_error,
)


def test_ece_is_zero_for_a_calibrated_prediction_and_the_gap_for_a_shifted_one() -> None:
    p = np.linspace(-1, 1, 100)
    assert expected_calibration_error(p, p) == pytest.approx(0.0)
    assert expected_calibration_error(p + 0.3, p) == pytest.approx(0.3)


def test_isotonic_fit_removes_an_overconfident_scale() -> None:
    rng = np.random.default_rng(0)
    pred = rng.uniform(-0.2, 0.8, 2000)
    realised = 0.25 * pred + rng.normal(0, 0.01, pred.size)  # "predicted 0.8 rarely matters"
    cal = IsotonicCalibrator().fit(pred[:1000], realised[:1000])
    before = expected_calibration_error(pred[1000:], realised[1000:])
    after = expected_calibration_error(cal.predict(pred[1000:]), realised[1000:])
    assert before > 0.1 and after < 0.01


@given(st.lists(st.floats(-5, 5), min_size=2, max_size=60), st.integers(0, 2**31))
def test_calibrated_map_is_monotone(values: list[float], seed: int) -> None:
    rng = np.random.default_rng(seed)
    pred = np.array(values)
    cal = IsotonicCalibrator().fit(pred, rng.normal(size=pred.size))
    grid = np.linspace(-6, 6, 50)
    assert np.all(np.diff(cal.predict(grid)) >= -1e-12)


def test_calibrator_round_trips_as_plain_data() -> None:
    cal = IsotonicCalibrator().fit(np.array([0.0, 1.0, 2.0]), np.array([0.0, 0.5, 0.4]))
    back = IsotonicCalibrator.from_dict(cal.to_dict())
    np.testing.assert_allclose(back.predict(np.array([0.5, 1.5])), cal.predict([0.5, 1.5]))
    with pytest.raises(InvalidArgumentError, match="knots_x"):
        IsotonicCalibrator.from_dict({"knots_x": [], "knots_y": [1.0]})


def test_calibrated_estimator_maps_the_net_value() -> None:
    cal = IsotonicCalibrator().fit(np.array([-1.0, 1.0]), np.array([-0.5, 0.5]))
    est = CalibratedEstimator(HeuristicEstimator(), cal)
    assert est.name == "heuristic+calibrated"
