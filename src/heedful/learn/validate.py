"""Validation of fitted rankers: the static regret of the policy each one drives.

Choosing among fitted models (penalties, "no correction at all") needs the regret of the policy
each one drives on validation scenarios. Running the real controller once per model and scenario
repeats the expensive part — the feature vectors (which call the model-based estimator) — for
every model, although most models walk through the same states. :class:`StateCache` runs the real
controller once per *state* (committed set) and keeps the feature vectors of the inspection
candidates it generated there; a model's static rollout is then the controller's own rule on those
vectors — read the best predicted candidate (with the selector's bounded aging bonus) while a
prediction is > 0 and the budget lasts — and the controller is asked again only for a state no
model has reached before. A test checks the
rollout against the real controller's choices.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from heedful.attention import AttentionContext, Estimate, SelectorConfig
from heedful.bench.run.runner import collect_choices
from heedful.decision import UNINFORMATIVE_TOLERANCE
from heedful.errors import ProblemTooLargeError
from heedful.learn.dataset import EstimatorPolicy, OracleLabeler
from heedful.learn.features import FEATURE_NAMES, FeatureExtractor
from heedful.model import Scenario
from heedful.model.candidate import Candidate, CandidateKind, Trigger

__all__ = ["StateCache", "validation_regrets"]

Scorer = Callable[[np.ndarray], np.ndarray]
_FORCED = 10.0
_COST = FEATURE_NAMES.index("cost_term")


class _PathRecorder:
    """Estimator that records every inspection candidate's features and follows a fixed path."""

    name = "path-recorder"

    def __init__(
        self,
        extractor: FeatureExtractor,
        path: Sequence[str],
        sink: dict[frozenset[str], dict[str, np.ndarray]],
    ) -> None:
        self.extractor = extractor
        self.path = list(path)
        self.sink = sink

    def estimate(self, candidate: Candidate, context: AttentionContext) -> Estimate:
        heur = self.extractor.heuristic_estimate(candidate, context)
        # An exploration candidate is picked only by the exploration quota, which the bench's
        # configuration turns off: the selector never picks it on its value, so the rollouts
        # must not either.
        if candidate.kind is not CandidateKind.INSPECT_SOURCE or (
            candidate.trigger is Trigger.EXPLORATION
        ):
            return heur
        x = self.extractor.features(candidate, context, heur)
        self.sink.setdefault(frozenset(context.committed), {})[candidate.target] = x
        k = len(context.committed)
        on_path = k < len(self.path) and candidate.target == self.path[k]
        net = _FORCED if on_path else -_FORCED
        return Estimate(candidate.id, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, net, self.name)


class StateCache:
    """Feature vectors of the controller's candidates per visited state of one scenario.

    Args:
        scenario: A scenario with its truth (for the exact static values).
        extractor: Feature extractor shared across scenarios.

    Raises:
        ValueError, ProblemTooLargeError: when the scenario is too large to value exactly.
    """

    def __init__(self, scenario: Scenario, extractor: FeatureExtractor) -> None:
        self.scenario = scenario
        self.labeler = OracleLabeler(scenario)
        self.extractor = extractor
        self.best = float(self.labeler.values.max())
        self.states: dict[frozenset[str], dict[str, np.ndarray]] = {}
        # The candidates of a state stacked once (ids, matrix): rollouts re-read them often.
        self._stacked: dict[frozenset[str], tuple[list[str], np.ndarray]] = {}
        self._aging = SelectorConfig()

    def _expand(self, path: Sequence[str]) -> None:
        """Run the real controller along ``path`` and record the states it passes through."""
        recorder = _PathRecorder(self.extractor, path, self.states)
        policy = EstimatorPolicy(recorder)
        task = self.scenario.view.task_view()
        policy.reset(task, np.random.default_rng(0))
        collect_choices(policy, task, None)
        self.states.setdefault(frozenset(path), {})  # no candidate there: the controller stops

    def rollout(self, score: Scorer) -> list[str]:
        """The static choices of the controller ranking its candidates by ``score``."""
        path: list[str] = []
        waited: dict[str, int] = {}
        while len(path) < self.scenario.view.budget:
            key = frozenset(path)
            if key not in self.states:
                self._expand(path)
            if key not in self._stacked:
                candidates = self.states[key]
                self._stacked[key] = (
                    list(candidates),
                    np.array(list(candidates.values())) if candidates else np.zeros((0, 0)),
                )
            ids, x = self._stacked[key]
            if not ids:
                break
            pred = score(x)
            eligible = pred > 0.0
            if not eligible.any():
                break
            # The selector's bounded aging bonus: reorders eligible candidates, by the number of
            # choices each was passed over at (estimates with a positive gross value only).
            ranked = np.where(eligible, pred, -np.inf)
            if waited:
                aged = np.array([min(self._aging.aging_rate * waited.get(i, 0),
                                     self._aging.aging_cap) for i in ids])  # fmt: skip
                ranked = ranked + np.where(pred + x[:, _COST] > 0.0, aged, 0.0)
            best = int(np.argmax(ranked))
            for i in np.flatnonzero(eligible):
                waited[ids[i]] = waited.get(ids[i], 0) + 1
            waited.pop(ids[best], None)
            path.append(ids[best])
        return path

    def regret(self, score: Scorer) -> float:
        """``V* − V(S)`` of the static choices under ``score`` (exact, on the true problem)."""
        return self.best - self.labeler.set_value(self.rollout(score))

    @property
    def gap(self) -> float:
        """``V* − U_random``: what the bench's attention score divides the regret by."""
        return self.best - self.labeler.u_random

    def score_loss(self, score: Scorer) -> float | None:
        """``100 − score`` of the static choices (``100 · regret / gap``; the bench's score).

        None when the scenario is uninformative (no policy can beat random; the bench leaves
        such trials out of its score means).
        """
        if self.gap < UNINFORMATIVE_TOLERANCE:
            return None
        return 100.0 * self.regret(score) / self.gap


def validation_regrets(
    caches: Sequence[StateCache], scorers: Mapping[str, Scorer]
) -> dict[str, np.ndarray]:
    """Per-scenario static regret of each scorer's policy (same scenario order for all)."""
    return {name: np.array([c.regret(score) for c in caches]) for name, score in scorers.items()}


def state_caches(scenarios: Sequence[Scenario], extractor: FeatureExtractor) -> list[StateCache]:
    """A cache per scenario small enough to value exactly (the others are skipped)."""
    out = []
    for scenario in scenarios:
        try:
            out.append(StateCache(scenario, extractor))
        except (ValueError, ProblemTooLargeError):
            continue
    return out
