"""Records of predicted-VOC calibration (document 000 §17.2, §20.3, §25 "priority inflation")."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["CalibrationBucket", "CalibrationRow"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CalibrationBucket(_Model):
    """One bucket of the reliability table: predictions in ``[lo, hi]``.

    Attributes:
        lo: Smallest prediction in the bucket.
        hi: Largest prediction in the bucket.
        n: Chosen computations in it.
        predicted: Their mean predicted net VOC.
        realised: Their mean realised value (exact change in V when each was added).
    """

    lo: float
    hi: float
    n: int
    predicted: float
    realised: float


class CalibrationRow(_Model):
    """Calibration of one controller policy's predicted net VOC over a run.

    Attributes:
        policy: The policy.
        n: Chosen computations with a prediction.
        buckets: Equal-count buckets of the reliability table, by prediction.
        slope: OLS slope of realised on predicted (1 = calibrated; < 1 = overconfident);
            ``None`` when every prediction is equal.
        intercept: Its intercept.
        ece: Expected calibration error, ``Σ_b (n_b/n)·|predicted_b − realised_b|``.
        mean_predicted: Mean prediction.
        mean_realised: Mean realised value.
        inflation_share: Share of predictions at or above 90% of the largest one (§25).
    """

    policy: str
    n: int
    buckets: list[CalibrationBucket]
    slope: float | None
    intercept: float | None
    ece: float
    mean_predicted: float
    mean_realised: float
    inflation_share: float
