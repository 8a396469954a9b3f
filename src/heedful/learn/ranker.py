"""The supervised ranker: a linear correction of the model-based estimate, saved as plain JSON.

Its weights are fitted either by ridge regression on standardised features (here, pointwise on
the oracle label) or by the regret search of :mod:`heedful.learn.search` (on the exact regret of
the policy it drives); training keeps whichever validates best, or no correction at all.

Why a linear model on numpy and not gradient-boosted trees: the features already contain the
estimators' own values (the model-based VOI, the heuristic's pieces), so what is left to learn is
mostly how to *weigh and correct* them; a linear model does that with no new dependency, predicts
in a dot product (well under the 5 µs per candidate budget) and saves as a short list of numbers
anyone can read. Gradient-boosted trees (LightGBM) were measured on the same rows and did not
validate better, at tens of times the inference cost (docs/learn.md has the table).
``benchmarks/learn_transfer.py`` reports its score against ``voc-model``.

A saved model is JSON (``heedful.learned-ranker/v1``): weights, feature means and scales, the
feature names and their hash, and the training manifest (families, seeds, count, label, heedful
version). Never pickle: loading a model file runs no code.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from heedful.errors import InputError, InvalidArgumentError
from heedful.learn.features import FEATURE_NAMES, features_hash
from heedful.model.documents import read_document

__all__ = ["MODEL_FORMAT", "RidgeRanker", "load_model"]

MODEL_FORMAT = "heedful.learned-ranker/v1"


@dataclass
class RidgeRanker:
    """Ridge regression ``y ≈ x[base] + b + w · (x − mean) / scale``.

    With a ``base`` feature the model learns a *correction* to that feature (the model-based
    estimate by default): the ridge penalty then shrinks toward the base estimator rather than
    toward a constant, so a small or unrepresentative training set cannot make it worse than
    what it corrects by much.

    Args:
        ridge: L2 penalty on the standardised weights (the intercept is not penalised).
        base: Name of the feature the model corrects, or None for a plain regression.
        feature_names: Names of the columns (must match :data:`FEATURE_NAMES` to be used by
            the learned estimator).
        manifest: Free training metadata saved with the model.
    """

    ridge: float = 1.0
    base: str | None = "model_net"
    feature_names: tuple[str, ...] = FEATURE_NAMES
    manifest: dict[str, Any] = field(default_factory=dict)
    weights: np.ndarray | None = None
    intercept: float = 0.0
    mean: np.ndarray | None = None
    scale: np.ndarray | None = None
    _raw_w: np.ndarray = field(default_factory=lambda: np.zeros(0), init=False, repr=False)
    _raw_b: float = field(default=0.0, init=False, repr=False)

    def fit(self, x: np.ndarray, y: np.ndarray) -> RidgeRanker:
        """Fit on a ``(n, d)`` feature matrix and ``n`` labels; return self.

        Raises:
            InvalidArgumentError: on mismatched shapes, no rows, or non-finite values.
        """
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != len(self.feature_names) or x.shape[0] != y.shape[0]:
            raise InvalidArgumentError(
                f"fit needs x of shape (n, {len(self.feature_names)}) and n labels, "
                f"got {x.shape} and {y.shape}"
            )
        if x.shape[0] == 0:
            raise InvalidArgumentError("fit needs at least one training row")
        if not (np.isfinite(x).all() and np.isfinite(y).all()):
            raise InvalidArgumentError("training features and labels must be finite")
        if self.base is not None:
            if self.base not in self.feature_names:
                raise InvalidArgumentError(f"base feature {self.base!r} is not a feature")
            y = y - x[:, self.feature_names.index(self.base)]
        mean = x.mean(axis=0)
        scale = x.std(axis=0)
        scale[scale < 1e-12] = 1.0
        z = (x - mean) / scale
        y_mean = float(y.mean())
        gram = z.T @ z + self.ridge * np.eye(z.shape[1])
        self.weights = np.linalg.solve(gram, z.T @ (y - y_mean))
        self.intercept, self.mean, self.scale = y_mean, mean, scale
        # Fold standardisation into raw-space weights for a one-dot-product predict.
        self._fold()
        return self

    def _fold(self) -> None:
        assert self.weights is not None and self.mean is not None and self.scale is not None
        raw = self.weights / self.scale
        if self.base is not None:
            raw = raw.copy()
            raw[self.feature_names.index(self.base)] += 1.0
        self._raw_w = raw
        self._raw_b = self.intercept - float((self.weights / self.scale) @ self.mean)

    def _check_fitted(self) -> None:
        if self.weights is None or self.mean is None or self.scale is None:
            raise InvalidArgumentError("the ranker is not fitted")

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Predicted labels of a ``(n, d)`` matrix (or one ``(d,)`` row → shape ``(1,)``)."""
        self._check_fitted()
        x = np.atleast_2d(np.asarray(x, dtype=np.float64))
        return x @ self._raw_w + self._raw_b

    def predict_one(self, x: np.ndarray) -> float:
        """Predicted label of one feature vector (the controller's per-candidate call)."""
        return float(self._raw_w @ x) + self._raw_b

    @classmethod
    def identity(cls, feature_names: tuple[str, ...] = FEATURE_NAMES) -> RidgeRanker:
        """The "no correction" model: predicts its base feature (``model_net``) exactly.

        Training keeps it when no fitted correction beats it on validation scenarios; its
        penalty is infinite (saved as ``null``).
        """
        model = cls(ridge=math.inf, feature_names=feature_names)
        d = len(feature_names)
        model.weights, model.mean, model.scale = np.zeros(d), np.zeros(d), np.ones(d)
        model.intercept = 0.0
        model._fold()
        return model

    def shift(self, delta: float) -> None:
        """Add ``delta`` to every prediction (moves the intercept)."""
        self._check_fitted()
        self.intercept += delta
        self._fold()

    # -- plain-data persistence -----------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The model as JSON-ready plain data."""
        self._check_fitted()
        assert self.weights is not None and self.mean is not None and self.scale is not None
        return {
            "format": MODEL_FORMAT,
            "kind": "ridge",
            "ridge": self.ridge if math.isfinite(self.ridge) else None,
            "base": self.base,
            "feature_names": list(self.feature_names),
            "features_hash": features_hash(self.feature_names),
            "weights": [float(v) for v in self.weights],
            "intercept": self.intercept,
            "mean": [float(v) for v in self.mean],
            "scale": [float(v) for v in self.scale],
            "manifest": self.manifest,
        }

    @classmethod
    def from_dict(cls, data: Any, where: str = "<model>") -> RidgeRanker:
        """Rebuild a model from :meth:`to_dict` data.

        Raises:
            InvalidArgumentError: naming ``where`` and the field that is wrong.
        """
        if not isinstance(data, dict):
            raise InvalidArgumentError(f"{where}: a model file holds a JSON object")
        if data.get("format") != MODEL_FORMAT:
            raise InvalidArgumentError(
                f"{where}: format must be {MODEL_FORMAT!r}, got {data.get('format')!r}"
            )
        names = data.get("feature_names")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise InvalidArgumentError(f"{where}: feature_names must be a list of names")
        names_t = tuple(names)
        if data.get("features_hash") != features_hash(names_t):
            raise InvalidArgumentError(f"{where}: features_hash does not match feature_names")
        arrays = {}
        for key in ("weights", "mean", "scale"):
            arr = data.get(key)
            if (
                not isinstance(arr, list)
                or len(arr) != len(names_t)
                or not all(isinstance(v, int | float) and math.isfinite(v) for v in arr)
            ):
                raise InvalidArgumentError(f"{where}: {key} must be {len(names_t)} finite numbers")
            arrays[key] = np.array(arr, dtype=np.float64)
        if np.any(arrays["scale"] <= 0):
            raise InvalidArgumentError(f"{where}: scale must be positive")
        intercept = data.get("intercept")
        ridge = data.get("ridge", 1.0)
        ridge = math.inf if ridge is None else ridge  # null: the no-correction model
        if not isinstance(intercept, int | float) or not math.isfinite(intercept):
            raise InvalidArgumentError(f"{where}: intercept must be a finite number")
        if not isinstance(ridge, int | float) or not ridge >= 0:
            raise InvalidArgumentError(f"{where}: ridge must be a number ≥ 0 or null")
        manifest = data.get("manifest", {})
        if not isinstance(manifest, dict):
            raise InvalidArgumentError(f"{where}: manifest must be an object")
        base = data.get("base")
        if base is not None and base not in names_t:
            raise InvalidArgumentError(f"{where}: base must be null or one of feature_names")
        model = cls(ridge=float(ridge), base=base, feature_names=names_t, manifest=manifest)
        model.weights, model.mean, model.scale = arrays["weights"], arrays["mean"], arrays["scale"]
        model.intercept = float(intercept)
        model._fold()
        return model

    def save(self, path: str | Path) -> None:
        """Write the model as JSON (the parent folder must exist).

        Raises:
            InvalidArgumentError: if the file cannot be written.
        """
        p = Path(path)
        try:
            p.write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")
        except OSError as exc:
            raise InvalidArgumentError(f"cannot write model file {p}: {exc.strerror}") from None


def load_model(path: str | Path) -> RidgeRanker:
    """Read a model file written by :meth:`RidgeRanker.save`.

    Raises:
        InvalidArgumentError: one line naming the file and what is wrong with it.
    """
    p = Path(path)
    try:
        data = read_document(p, json_only=True)
    except InputError as exc:
        raise InvalidArgumentError(f"model file {exc}") from None
    return RidgeRanker.from_dict(data, str(p))
