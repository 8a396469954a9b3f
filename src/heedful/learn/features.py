"""The feature vector of one candidate computation, from visible information only (§20.1).

Every feature is computed through the public controller/estimator API from the
:class:`~heedful.attention.AttentionContext` the controller hands its estimator — registered
source metadata, held beliefs, the stated decision, what is already committed and the budget
left. Nothing PRIVATE exists there, and no identifier, label, kind, family or wording is used:
a model trained on some families must not key on names that mean something only in them.

The features (``FEATURE_NAMES``, in order):

=====================  ===========================================================================
``model_net``          net VOI of the model-based estimator (exact myopic VOI on the estimated
                       problem, with its plan/pair credit)
``model_gap``          ``model_net`` minus the best ``model_net`` of the other unread sources
``model_rank``         rank of ``model_net`` among unread sources, 0 (best) … 1 (worst)
``model_vpi``          value of perfect information of the estimated problem (BMPS upper bound)
``heur_net``           net VOC of the heuristic estimator (SPEC §4.1 formula)
``heur_gross``         its gross value ``p_change · E|ΔU|``
``p_change``           heuristic probability the read changes the decision
``p_stale``            heuristic probability the belief it checks is stale
``p_wrong``            heuristic probability the belief it checks is wrong
``loss``               heuristic ``E|ΔU|`` of acting on a wrong value
``cost_term``          ``cost_weight × scalar cost`` of the read
``authority``          the source's authority for the decision variables it reports (max)
``log_age_h``          ``log(1 + age of the source's data in hours)``
``n_relevant``         decision variables it reports
``covered``            share of those already reported by a committed source
``redundancy``         other sources reporting the same decision variables (mean count)
``confidence``         mean confidence of the beliefs held on those variables (0 if none)
``n_committed``        reads already committed this turn
``budget_left``        reads left this turn (capped at 10; 10 when unlimited)
``model_pos``          ``max(model_net, 0)`` (hinge: the linear model can bend at zero)
``model_top``          1 when ``model_net`` is the best of the unread sources, else 0
``heur_pos``           ``max(heur_net, 0)``
=====================  ===========================================================================
"""

from __future__ import annotations

import hashlib
import math

import numpy as np

from heedful.attention import AttentionContext, Estimate, HeuristicEstimator, ModelEstimator
from heedful.model.candidate import Candidate, CandidateKind

__all__ = ["FEATURE_NAMES", "FeatureExtractor", "features_hash"]

FEATURE_NAMES: tuple[str, ...] = (
    "model_net",
    "model_gap",
    "model_rank",
    "model_vpi",
    "heur_net",
    "heur_gross",
    "p_change",
    "p_stale",
    "p_wrong",
    "loss",
    "cost_term",
    "authority",
    "log_age_h",
    "n_relevant",
    "covered",
    "redundancy",
    "confidence",
    "n_committed",
    "budget_left",
    "model_pos",
    "model_top",
    "heur_pos",
)

_BUDGET_CAP = 10.0


def features_hash(names: tuple[str, ...] = FEATURE_NAMES) -> str:
    """A short hash of the feature list, recorded in a model's manifest (checked on load)."""
    return hashlib.sha256("\n".join(names).encode()).hexdigest()[:16]


class FeatureExtractor:
    """Compute :data:`FEATURE_NAMES` for a candidate in a context.

    Args:
        heuristic: The heuristic estimator whose pieces become features.
        model: The model-based estimator whose values become features.
    """

    def __init__(
        self, heuristic: HeuristicEstimator | None = None, model: ModelEstimator | None = None
    ) -> None:
        self.heuristic = heuristic or HeuristicEstimator()
        self.model = model or ModelEstimator()

    def heuristic_estimate(self, candidate: Candidate, context: AttentionContext) -> Estimate:
        """The heuristic estimate (also the fallback for non-inspection candidates)."""
        return self.heuristic.estimate(candidate, context)

    def features(
        self, candidate: Candidate, context: AttentionContext, heur: Estimate | None = None
    ) -> np.ndarray:
        """The feature vector (float64, ``len(FEATURE_NAMES)``) of an inspection candidate."""
        heur = heur or self.heuristic.estimate(candidate, context)
        sid = candidate.target
        val = (
            self.model.valuation(context)
            if candidate.kind is CandidateKind.INSPECT_SOURCE
            else None
        )
        if val is not None and sid in val.net:
            model_net = val.net[sid]
            others = [v for s, v in val.net.items() if s != sid]
            gap = model_net - max(others) if others else 0.0
            rank = sum(v > model_net for v in others) / len(others) if others else 0.0
            vpi = val.vpi
        else:  # too large to value exactly, or no stated decision: the heuristic stands in
            model_net, gap, rank, vpi = heur.net, 0.0, 0.5, heur.expected_loss
        source = context.sources.get(sid)
        relevant: tuple[str, ...] = ()
        if source is not None:
            wanted = set(context.decision.relevant_variables) if context.decision else None
            relevant = tuple(v for v in source.reports if wanted is None or v in wanted)
        committed = set(context.committed)
        authority = 0.0
        covered = redundancy = conf = 0.0
        for var in relevant:
            claim = context.claims.get(var)
            ctype = claim.claim_type if claim is not None else var
            authority = max(authority, source.authority_for(ctype)) if source else authority
            reporting = context.sources_reporting(var)
            covered += any(s.id in committed for s in reporting)
            redundancy += sum(1 for s in reporting if s.id != sid)
            if claim is not None and claim.value is not None:
                conf += claim.confidence
        n = len(relevant)
        if n:
            covered, redundancy, conf = covered / n, redundancy / n, conf / n
        budget = _BUDGET_CAP if context.budget_left is None else float(context.budget_left)
        age_h = source.age_s / 3600.0 if source is not None else 0.0
        return np.array(
            [
                model_net,
                gap,
                rank,
                vpi,
                heur.net,
                heur.gross,
                heur.p_change,
                heur.p_stale,
                heur.p_wrong,
                heur.expected_loss,
                heur.cost_term,
                authority,
                math.log1p(max(age_h, 0.0)),
                float(n),
                covered,
                redundancy,
                conf,
                float(len(context.committed)),
                min(budget, _BUDGET_CAP),
                max(model_net, 0.0),
                1.0 if gap >= 0.0 else 0.0,
                max(heur.net, 0.0),
            ],
            dtype=np.float64,
        )
