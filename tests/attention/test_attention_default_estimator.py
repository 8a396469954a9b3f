"""Controller()'s default estimator: model-based, with calibrated predictions (issue 24)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from heedful.attention import Controller, ModelEstimator
from heedful.attention.voc_calibration import VocCalibration, default_calibration
from heedful.errors import InvalidArgumentError


def test_controller_defaults_to_the_calibrated_model_based_estimator() -> None:
    est = Controller().estimator
    assert isinstance(est, ModelEstimator)
    assert est.calibration is default_calibration()
    assert ModelEstimator().calibration is None  # voc-model's estimator stays uncalibrated


def test_the_shipped_map_says_where_it_was_fitted() -> None:
    cal = default_calibration()
    assert len(cal.knots_x) >= 2
    assert "training-stream" in cal.fitted_on and "heedful learn calibrate" in cal.fitted_on


def test_the_map_keeps_every_sign_and_every_ranking() -> None:
    cal = default_calibration()
    rng = np.random.default_rng(3)
    top = max(cal.knots_x)
    xs = np.concatenate(
        [rng.uniform(-1.0, 2 * top, 400), np.array(cal.knots_x), [0.0, 1e-12, -1e-12, 5.0]]
    )
    xs = np.unique(xs)
    ys = [cal.apply(float(x)) for x in xs]
    for x, y in zip(xs, ys, strict=True):
        assert (y > 0) == (x > 0)
        if x <= 0:
            assert y == x  # a non-positive prediction is left as it is
    assert all(b > a for a, b in itertools.pairwise(ys))  # strictly increasing


def test_a_flat_map_still_breaks_no_tie() -> None:
    cal = VocCalibration((0.0, 1.0), (0.5, 0.5))
    assert cal.apply(0.2) < cal.apply(0.3)
    assert cal.apply(0.2) > 0


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ([1, 2], "must be an object"),
        ({"knots_x": [0.0, 1.0], "knots_y": [0.0]}, "pair up"),
        ({"knots_x": [1.0, 0.0], "knots_y": [0.0, 1.0]}, "knots_x must be sorted"),
        ({"knots_x": [0.0, 1.0], "knots_y": [1.0, 0.0]}, "non-decreasing"),
        ({"knots_x": [0.0, True], "knots_y": [0.0, 1.0]}, "knots_x must be a list of numbers"),
        ({"knots_x": [0.0], "knots_y": [float("nan")]}, "finite"),
        ({"knots_x": [0.0], "knots_y": [0.0], "fitted_on": 3}, "fitted_on must be a string"),
    ],
)
def test_a_bad_map_is_one_clear_error_naming_the_file(data: object, needle: str) -> None:
    with pytest.raises(InvalidArgumentError, match=needle) as err:
        VocCalibration.from_dict(data, where="cal.json")
    assert str(err.value).startswith("cal.json: ")


def test_the_map_round_trips() -> None:
    cal = default_calibration()
    assert VocCalibration.from_dict(cal.to_dict()) == cal
