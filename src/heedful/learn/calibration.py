"""Calibration of predicted net VOC to the realised value gain (document 000 §20.3).

"If candidates predicted at 0.8 rarely matter, the controller is overconfident." An
:class:`IsotonicCalibrator` fits a monotone map from predicted value to realised value by pool-
adjacent-violators (PAV) — monotone so the ranking the estimator makes is kept, only its scale
is corrected. :func:`expected_calibration_error` measures the gap in equal-mass bins.
:class:`CalibratedEstimator` wraps any estimator so the controller uses the calibrated value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from heedful.attention import AttentionContext, Estimate, Estimator
from heedful.errors import InvalidArgumentError
from heedful.model.candidate import Candidate

__all__ = ["CalibratedEstimator", "IsotonicCalibrator", "expected_calibration_error"]


def expected_calibration_error(
    predicted: np.ndarray, realised: np.ndarray, bins: int = 10
) -> float:
    """Expected calibration error of a real-valued prediction, in the label's units.

    The rows are sorted by prediction and cut into ``bins`` equal-mass bins; the ECE is the
    row-weighted mean over bins of ``|mean predicted − mean realised|``.

    Raises:
        InvalidArgumentError: on empty or mismatched inputs, or ``bins < 1``.
    """
    p = np.asarray(predicted, dtype=np.float64)
    r = np.asarray(realised, dtype=np.float64)
    if p.shape != r.shape or p.ndim != 1 or p.size == 0:
        raise InvalidArgumentError("ECE needs two equal-length, non-empty 1-d arrays")
    if bins < 1:
        raise InvalidArgumentError(f"bins must be ≥ 1, got {bins}")
    order = np.argsort(p, kind="stable")
    total = 0.0
    for chunk in np.array_split(order, min(bins, p.size)):
        if chunk.size:
            total += chunk.size * abs(float(p[chunk].mean() - r[chunk].mean()))
    return total / p.size


@dataclass
class IsotonicCalibrator:
    """A non-decreasing step map ``predicted → realised`` fitted by PAV.

    Between knots the map interpolates linearly; outside them it is constant.
    """

    knots_x: np.ndarray | None = None
    knots_y: np.ndarray | None = None

    def fit(self, predicted: np.ndarray, realised: np.ndarray) -> IsotonicCalibrator:
        """Fit on paired predictions and realised values; return self.

        Raises:
            InvalidArgumentError: on empty, mismatched or non-finite inputs.
        """
        p = np.asarray(predicted, dtype=np.float64)
        r = np.asarray(realised, dtype=np.float64)
        if p.shape != r.shape or p.ndim != 1 or p.size == 0:
            raise InvalidArgumentError("calibration needs two equal-length, non-empty 1-d arrays")
        if not (np.isfinite(p).all() and np.isfinite(r).all()):
            raise InvalidArgumentError("calibration inputs must be finite")
        order = np.argsort(p, kind="stable")
        xs, ys = p[order], r[order]
        # Pool adjacent violators: blocks of (sum, count, x-mean), merged while decreasing.
        sums: list[float] = []
        counts: list[int] = []
        xsum: list[float] = []
        for x, y in zip(xs, ys, strict=True):
            sums.append(float(y))
            counts.append(1)
            xsum.append(float(x))
            while len(sums) > 1 and sums[-2] / counts[-2] > sums[-1] / counts[-1]:
                s, c, xx = sums.pop(), counts.pop(), xsum.pop()
                sums[-1] += s
                counts[-1] += c
                xsum[-1] += xx
        self.knots_x = np.array([xx / c for xx, c in zip(xsum, counts, strict=True)])
        self.knots_y = np.array([s / c for s, c in zip(sums, counts, strict=True)])
        return self

    def predict(self, predicted: np.ndarray) -> np.ndarray:
        """Calibrated values of an array of predictions."""
        if self.knots_x is None or self.knots_y is None:
            raise InvalidArgumentError("the calibrator is not fitted")
        return np.interp(np.asarray(predicted, dtype=np.float64), self.knots_x, self.knots_y)

    def predict_one(self, predicted: float) -> float:
        """Calibrated value of one prediction."""
        return float(self.predict(np.array([predicted]))[0])

    def to_dict(self) -> dict[str, Any]:
        """Plain data (knots) for a model file."""
        if self.knots_x is None or self.knots_y is None:
            raise InvalidArgumentError("the calibrator is not fitted")
        return {"knots_x": self.knots_x.tolist(), "knots_y": self.knots_y.tolist()}

    @classmethod
    def from_dict(cls, data: Any, where: str = "<calibration>") -> IsotonicCalibrator:
        """Rebuild from :meth:`to_dict` data.

        Raises:
            InvalidArgumentError: naming ``where`` and what is wrong.
        """
        if not isinstance(data, dict):
            raise InvalidArgumentError(f"{where}: calibration must be an object")
        arrays = []
        for key in ("knots_x", "knots_y"):
            v = data.get(key)
            if (
                not isinstance(v, list)
                or not v
                or not all(isinstance(t, int | float) and math.isfinite(t) for t in v)
            ):
                raise InvalidArgumentError(f"{where}: {key} must be a non-empty list of numbers")
            arrays.append(np.array(v, dtype=np.float64))
        if arrays[0].size != arrays[1].size or np.any(np.diff(arrays[0]) < 0):
            raise InvalidArgumentError(f"{where}: knots must pair up and be sorted")
        return cls(arrays[0], arrays[1])


class CalibratedEstimator:
    """Any estimator with its net value mapped through a fitted calibrator (§20.3).

    Args:
        base: The estimator to calibrate.
        calibrator: A fitted :class:`IsotonicCalibrator`.
    """

    def __init__(self, base: Estimator, calibrator: IsotonicCalibrator) -> None:
        self.base = base
        self.calibrator = calibrator
        self.name = f"{base.name}+calibrated"

    def estimate(self, candidate: Candidate, context: AttentionContext) -> Estimate:
        """The base estimate with its net value calibrated (gross moves with it)."""
        est = self.base.estimate(candidate, context)
        net = self.calibrator.predict_one(est.net)
        return replace(est, net=net, gross=est.gross + (net - est.net), method=self.name)
