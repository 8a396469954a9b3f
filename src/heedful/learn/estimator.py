"""The learned estimator: the ranker's prediction as a candidate's net VOC (§20.1).

It has the estimator shape of :mod:`heedful.attention.estimators` (``estimate(candidate,
context)``), so the unchanged controller — generators, guard, budget, governance floors, stopping
rule — runs on it: only the number that ranks inspection candidates is learned. Every other kind
of candidate keeps the heuristic's estimate.
"""

from __future__ import annotations

from dataclasses import replace

from heedful.attention import AttentionContext, Estimate
from heedful.errors import InvalidArgumentError
from heedful.learn.calibration import IsotonicCalibrator
from heedful.learn.features import FEATURE_NAMES, FeatureExtractor
from heedful.learn.ranker import RidgeRanker
from heedful.model.candidate import Candidate, CandidateKind

__all__ = ["LearnedEstimator"]


class LearnedEstimator:
    """Net VOC of an inspection = the ranker's prediction from :data:`FEATURE_NAMES`.

    Args:
        model: A fitted ranker over :data:`FEATURE_NAMES`.
        extractor: Feature extractor (default: default heuristic and model-based estimators).
        calibrator: Optional calibration of the prediction to realised value (§20.3).

    Raises:
        InvalidArgumentError: if the model was trained on other features.
    """

    name = "learned"

    def __init__(
        self,
        model: RidgeRanker,
        extractor: FeatureExtractor | None = None,
        calibrator: IsotonicCalibrator | None = None,
    ) -> None:
        if tuple(model.feature_names) != FEATURE_NAMES:
            raise InvalidArgumentError(
                "the model was trained on other features than this version computes; "
                "retrain it with `heedful learn train`"
            )
        self.model = model
        self.extractor = extractor or FeatureExtractor()
        self.calibrator = calibrator

    def estimate(self, candidate: Candidate, context: AttentionContext) -> Estimate:
        """The learned net value of an inspection; the heuristic's for anything else."""
        heur = self.extractor.heuristic_estimate(candidate, context)
        if candidate.kind is not CandidateKind.INSPECT_SOURCE:
            return heur
        x = self.extractor.features(candidate, context, heur)
        net = self.model.predict_one(x)
        if self.calibrator is not None:
            net = self.calibrator.predict_one(net)
        return replace(
            heur,
            net=net,
            gross=net + heur.cost_term + heur.switch_term,
            method=self.name,
        )
