"""Fit the calibration map of the default estimator (document 000 §20.3; issue 24).

The model-based estimator (uncalibrated) plays training-stream scenarios of every inspection
family in the static condition; each read it chooses gives a pair (predicted net VOC at
selection, exact realised marginal value ``V(S ∪ {s}) − V(S)`` from the oracle), the same pairs
the benchmark's calibration report measures (:func:`heedful.bench.run.calibration.pairs_of`).
Pool-adjacent-violators fits the monotone map on the positive predictions (the map leaves
non-positive ones alone, :mod:`heedful.attention.voc_calibration`). Training scenarios come from
:data:`heedful.learn.config.TRAIN_STREAM`, never from an evaluation stream.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from heedful.attention.voc_calibration import VocCalibration
from heedful.bench.policies.voc import ControllerPolicy
from heedful.bench.run.calibration import pairs_of
from heedful.errors import InvalidArgumentError
from heedful.learn.calibration import IsotonicCalibrator
from heedful.learn.dataset import training_scenarios

__all__ = ["calibration_pairs", "fit_voc_calibration"]


def calibration_pairs(families: Sequence[str], count: int, seed: int) -> list[tuple[float, float]]:
    """(predicted, realised) of every read the uncalibrated model-based controller chooses on
    ``count`` training scenarios of each family."""
    policy = ControllerPolicy(estimator="model")
    out: list[tuple[float, float]] = []
    for family in families:
        for scenario in training_scenarios(family, count, seed):
            out.extend(pairs_of(policy, scenario))
    return out


def fit_voc_calibration(
    families: Sequence[str], count: int, seed: int, command: str = ""
) -> tuple[VocCalibration, int]:
    """The fitted map and the number of positive predictions it was fitted on.

    Raises:
        InvalidArgumentError: if the scenarios gave no positive prediction to fit.
    """
    pairs = [(p, r) for p, r in calibration_pairs(families, count, seed) if p > 0.0]
    if not pairs:
        raise InvalidArgumentError("no positive prediction to calibrate on these scenarios")
    pred = np.array([p for p, _ in pairs])
    real = np.array([r for _, r in pairs])
    iso = IsotonicCalibrator().fit(pred, real)
    assert iso.knots_x is not None and iso.knots_y is not None
    fitted_on = (
        f"{len(pairs)} reads of the uncalibrated model-based controller on {count} training-"
        f"stream scenarios (seed {seed}) of each of {','.join(families)}"
        + (f"; {command}" if command else "")
    )
    cal = VocCalibration(
        tuple(float(x) for x in iso.knots_x),
        tuple(float(y) for y in iso.knots_y),
        fitted_on,
    )
    return cal, len(pairs)
