"""The calibration map of the default estimator's predicted VOC (document 000 §20.3).

A monotone map ``predicted net VOC → expected realised value`` fitted by isotonic regression
(pool-adjacent-violators, :class:`heedful.learn.calibration.IsotonicCalibrator`) on the model-
based estimator's predictions and the exact realised values of the reads it chose, on scenarios
of the *training* seed stream (``heedful learn calibrate`` writes ``data/voc_calibration.json``;
never an evaluation scenario). This module only applies the fitted knots, so attention depends on
neither learn nor bench.

Applying the map changes what a prediction *says*, never what the controller *does*:

* it is **sign-preserving** — a positive prediction stays positive and a non-positive one is
  left as it is, so the stopping rule (best net VOC ≤ 0) stops exactly where it did;
* it is **strictly increasing** — a small slope (``TIE_SLOPE``) is added to the isotonic steps,
  so no two different predictions become equal and the ranking is the estimator's own.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from heedful.errors import InvalidArgumentError

__all__ = ["TIE_SLOPE", "VocCalibration", "default_calibration"]

#: Slope added to the isotonic steps so the map is strictly increasing (keeps every ranking).
TIE_SLOPE = 1e-3
_FILE = "voc_calibration.json"


@dataclass(frozen=True)
class VocCalibration:
    """Fitted isotonic knots (``knots_x`` sorted) and where they came from.

    Between knots the map interpolates linearly; outside them it is constant (plus the tie
    slope). Only positive predictions are mapped (see the module doc).
    """

    knots_x: tuple[float, ...]
    knots_y: tuple[float, ...]
    fitted_on: str = ""

    def __post_init__(self) -> None:
        xs, ys = self.knots_x, self.knots_y
        if not xs or len(xs) != len(ys):
            raise InvalidArgumentError("calibration knots must be non-empty and pair up")
        if not all(math.isfinite(v) for v in (*xs, *ys)):
            raise InvalidArgumentError("calibration knots must be finite")
        if any(b < a for a, b in itertools.pairwise(xs)):
            raise InvalidArgumentError("calibration knots_x must be sorted")
        if any(b < a for a, b in itertools.pairwise(ys)):
            raise InvalidArgumentError("calibration knots_y must be non-decreasing")

    def apply(self, predicted: float) -> float:
        """The calibrated value of one prediction."""
        if not predicted > 0.0:
            return predicted
        y = float(np.interp(predicted, self.knots_x, self.knots_y))
        return max(y, 0.0) + TIE_SLOPE * predicted

    def to_dict(self) -> dict[str, Any]:
        """Plain data, as the JSON file holds it."""
        return {
            "knots_x": list(self.knots_x),
            "knots_y": list(self.knots_y),
            "fitted_on": self.fitted_on,
        }

    @classmethod
    def from_dict(cls, data: Any, where: str = "<calibration>") -> VocCalibration:
        """Rebuild from :meth:`to_dict` data.

        Raises:
            InvalidArgumentError: naming ``where`` and what is wrong.
        """
        if not isinstance(data, dict):
            raise InvalidArgumentError(f"{where}: calibration must be an object")
        arrays: list[tuple[float, ...]] = []
        for key in ("knots_x", "knots_y"):
            v = data.get(key)
            if not isinstance(v, list) or not all(
                isinstance(t, int | float) and not isinstance(t, bool) for t in v
            ):
                raise InvalidArgumentError(f"{where}: {key} must be a list of numbers")
            arrays.append(tuple(float(t) for t in v))
        fitted_on = data.get("fitted_on", "")
        if not isinstance(fitted_on, str):
            raise InvalidArgumentError(f"{where}: fitted_on must be a string")
        try:
            return cls(arrays[0], arrays[1], fitted_on)
        except InvalidArgumentError as exc:
            raise InvalidArgumentError(f"{where}: {exc}") from None


@cache
def default_calibration() -> VocCalibration:
    """The shipped map (``heedful/attention/data/voc_calibration.json``)."""
    text = resources.files("heedful.attention").joinpath("data", _FILE).read_text("utf-8")
    return VocCalibration.from_dict(json.loads(text), where=f"heedful/attention/data/{_FILE}")
