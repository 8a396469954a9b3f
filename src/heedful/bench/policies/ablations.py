"""The rest of document 000 §21's ablation table on inspection scenarios.

``voc-no-goal`` (VOC minus goal relevance) and ``voc-no-cost`` (VOC minus the cost term) are the
heuristic controller with one term of its estimator taken out — by wrapping the controller's own
:class:`~heedful.attention.HeuristicEstimator`, never by re-implementing it:

* minus goal relevance: every claim counts as pivotal with the estimator's default pivotality
  (its loss stays), so the decision no longer says which claims matter;
* minus the cost term: predicted VOC is the gross value less the switch term only, so reads are
  valued as if free (the stopping rule then stops only on zero value).

``forced-authoritative`` is the upper-bound diagnostic "forced authoritative read": it reads the
most authoritative source of every decision variable first (by authority, within the budget),
then the remaining sources by authority — enforcement, not attention, so it is not in ``all``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from heedful.attention import AttentionContext, Estimate, Estimator, HeuristicEstimator
from heedful.bench.policies.baselines import RankingPolicy
from heedful.bench.policies.voc import ControllerPolicy
from heedful.bench.policy import register_policy
from heedful.model import TaskView
from heedful.model.candidate import Candidate

__all__ = ["ForcedAuthoritativePolicy", "NoCostEstimator", "NoGoalEstimator"]


class NoGoalEstimator(HeuristicEstimator):
    """The heuristic estimator with goal relevance (decision pivotality) taken out."""

    name = "heuristic-no-goal"

    def impact(self, claim_id: str, candidate: Candidate, context: AttentionContext):  # type: ignore[no-untyped-def]
        """Same loss, but the default pivotality for every claim."""
        found = super().impact(claim_id, candidate, context)
        loss = found.loss if found.loss > 0 else self.config.default_loss
        return replace(found, pivotality=self.config.default_pivotality, loss=loss)


class NoCostEstimator(HeuristicEstimator):
    """The heuristic estimator with the cost term taken out."""

    name = "heuristic-no-cost"

    def estimate(self, candidate: Candidate, context: AttentionContext) -> Estimate:
        """The heuristic estimate, with ``cost_term = 0``."""
        e = super().estimate(candidate, context)
        return replace(e, cost_term=0.0, net=e.gross - e.switch_term)


class _Ablated(ControllerPolicy):
    in_default_suite = False
    estimator_class: type[HeuristicEstimator] = HeuristicEstimator

    def __init__(self) -> None:
        super().__init__(estimator="heuristic")

    def _make_estimator(self) -> Estimator:
        return self.estimator_class()


@register_policy("voc-no-goal")
class VocNoGoalPolicy(_Ablated):
    """VOC minus goal relevance (document 000 §21)."""

    estimator_class = NoGoalEstimator


@register_policy("voc-no-cost")
class VocNoCostPolicy(_Ablated):
    """VOC minus the cost term (document 000 §21)."""

    estimator_class = NoCostEstimator


@register_policy("forced-authoritative")
class ForcedAuthoritativePolicy(RankingPolicy):
    """Read the most authoritative source of each decision variable first (upper bound)."""

    in_default_suite = False

    def rank(self, view: TaskView, rng: np.random.Generator) -> list[str]:
        """Best source per decision variable (by authority, then cost), then the rest."""
        used = {v for a in view.actions.values() for r in a.utility for v in r.when}
        by_authority = sorted(view.sources, key=lambda s: (-s.authority, s.cost.scalar()))
        first: list[str] = []
        for var in sorted(used):
            best = next((s.id for s in by_authority if var in s.reports), None)
            if best is not None and best not in first:
                first.append(best)
        return first + [s.id for s in by_authority if s.id not in first]
