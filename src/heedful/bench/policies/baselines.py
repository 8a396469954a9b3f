"""Baseline policies of document 000 §21: random, recency, loudness and authority-first.

Each ranks the sources once from visible metadata and inspects them in that order until the
budget is spent, so they behave the same in the static and the adaptive condition.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from heedful.bench.policy import Observation, Policy, register_policy
from heedful.errors import InvalidArgumentError
from heedful.model import SourceView, TaskView


class RankingPolicy(Policy):
    """A policy that inspects sources in a fixed order computed at :meth:`reset`."""

    uses_observations = False

    def __init__(self) -> None:
        self._order: list[str] = []
        self._budget = 0

    @abstractmethod
    def rank(self, view: TaskView, rng: np.random.Generator) -> list[str]:
        """Return every source id, most wanted first."""

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        """Rank the sources of ``view`` for this trial."""
        self._order = self.rank(view, rng)
        self._budget = view.budget

    def next(self, history: Sequence[Observation]) -> str | None:
        """Return the best-ranked source not yet inspected, or ``None`` once the budget is spent."""
        if len(history) >= self._budget:
            return None
        done = {o.source_id for o in history}
        for sid in self._order:
            if sid not in done:
                return sid
        return None


def _stable_sort(view: TaskView, key: Callable[[SourceView], Any]) -> list[str]:
    # Python's sort is stable: ties keep file order.
    return [s.id for s in sorted(view.sources, key=key)]


@register_policy("random")
class RandomPolicy(RankingPolicy):
    """Inspect a uniformly random subset of ``budget`` sources (the lower bound of §21)."""

    deterministic = False

    def rank(self, view: TaskView, rng: np.random.Generator) -> list[str]:
        """Return a random permutation of the source ids."""
        ids = list(view.source_ids)
        return [ids[i] for i in rng.permutation(len(ids))]


@register_policy("recency")
class RecencyPolicy(RankingPolicy):
    """Newest first: the recency/urgency salience baseline of document 000 §21.

    Args:
        field: ``"recency_s"`` ranks by the visible recency cue ``salience.recency_s`` (falling
            back to ``age_s`` where a source has no cue); ``"age_s"`` ranks by the age of the
            data a source holds.
    """

    def __init__(self, field: str = "recency_s") -> None:
        super().__init__()
        if field not in ("recency_s", "age_s"):
            raise InvalidArgumentError(
                f"recency field must be 'recency_s' or 'age_s', not {field!r}"
            )
        self.field = field

    def _key(self, s: SourceView) -> float:
        if self.field == "recency_s" and s.salience.recency_s is not None:
            return s.salience.recency_s
        return s.age_s

    def rank(self, view: TaskView, rng: np.random.Generator) -> list[str]:
        """Return source ids, smallest recency first."""
        return _stable_sort(view, self._key)


@register_policy("loudness")
class LoudnessPolicy(RankingPolicy):
    """Loudest first: urgent words, verbosity and repeats (keyword-urgency salience).

    The loudness of a source is ``urgent_weight·urgent_words + verbosity_weight·verbosity +
    repeats_weight·repeats``.
    """

    def __init__(
        self,
        urgent_weight: float = 1.0,
        verbosity_weight: float = 0.01,
        repeats_weight: float = 0.5,
    ) -> None:
        super().__init__()
        self.urgent_weight = urgent_weight
        self.verbosity_weight = verbosity_weight
        self.repeats_weight = repeats_weight

    def loudness(self, s: SourceView) -> float:
        """Return the loudness of one source."""
        c = s.salience
        return (
            self.urgent_weight * c.urgent_words
            + self.verbosity_weight * c.verbosity
            + self.repeats_weight * c.repeats
        )

    def rank(self, view: TaskView, rng: np.random.Generator) -> list[str]:
        """Return source ids, loudest first."""
        return _stable_sort(view, lambda s: -self.loudness(s))


@register_policy("authority-first")
class AuthorityFirstPolicy(RankingPolicy):
    """Most authoritative source first; ties go to the cheaper source.

    Args:
        require_reports: If true, sources that report no variable are ranked last.
    """

    def __init__(self, require_reports: bool = False) -> None:
        super().__init__()
        self.require_reports = require_reports

    def rank(self, view: TaskView, rng: np.random.Generator) -> list[str]:
        """Return source ids by decreasing authority."""
        return _stable_sort(
            view,
            lambda s: (
                self.require_reports and not s.reports,
                -s.authority,
                s.cost.scalar(),
            ),
        )
