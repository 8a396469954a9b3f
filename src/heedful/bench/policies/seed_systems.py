"""The two seed systems as benchmark peers: document 003's salience pipeline and document 002's
triage formula (SPEC §5, issue 5). Both rank sources from the visible view only.

The mappings from a scenario view to each system's inputs are written down in
``docs/seed-systems.md``; they aim to be faithful, not weak.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from heedful.bench.policies.baselines import RankingPolicy
from heedful.bench.policy import Observation, register_policy
from heedful.engine.config import TriageConfig
from heedful.engine.triage import urgency as triage_urgency
from heedful.memory.freshness import p_stale
from heedful.model import Goal, GoalPriority, GoalTimescale, SourceView, TaskView
from heedful.salience import (
    AttentionSystem,
    alerting_urgency,
    executive_tools,
    orienting_topics,
    selective_filter,
)

# A fixed instant: document 002's urgency reads deadlines against "now"; inspection scenarios
# have no deadlines (the decision is due at the end of the trial), so the time is irrelevant.
_NOW = datetime(2026, 1, 1, tzinfo=UTC)


def source_text(source: SourceView) -> str:
    """The text a salience pipeline sees for a source: its visible label and content."""
    return f"{source.label}. {source.content}".strip()


@register_policy("salience-003")
class Salience003Policy(RankingPolicy):
    """Document 003's pipeline as an inspection policy.

    The task is processed as the conversation's turn (orienting gives the task's topics). Each
    source is ranked by, in order: the alerting urgency of its label and content; whether
    selective attention keeps it under the task's topics, then how many task topics it names;
    how many tools executive attention prioritises for it; then file order.
    """

    def rank(self, view: TaskView, rng: np.random.Generator) -> list[str]:
        """Rank the sources of ``view`` as the salience pipeline would."""
        task_topics = AttentionSystem().process(view.task).context_filter
        keyed = []
        for position, source in enumerate(view.sources):
            text = source_text(source)
            urgency = alerting_urgency(text)
            kept = bool(task_topics) and bool(selective_filter([text], task_topics))
            named = sum(1 for t in task_topics if selective_filter([text], [t]))
            tools = executive_tools(urgency, orienting_topics(text))
            keyed.append(((-urgency, -int(kept), -named, -len(tools), position), source.id))
        return [sid for _, sid in sorted(keyed)]


@dataclass(frozen=True)
class _Item:
    source_id: str
    urgency: float
    gap: float
    authority: float
    position: int


def _stake_priority(view: TaskView) -> dict[str, GoalPriority | None]:
    """Priority of each variable from the utility spread of the rules that mention it."""
    spread: dict[str, float] = {}
    for action in view.actions.values():
        values = [r.value for r in action.utility]
        width = max(values) - min(values)
        for rule in action.utility:
            for var in rule.when:
                spread[var] = max(spread.get(var, 0.0), width)
    top = max(spread.values(), default=0.0)
    out: dict[str, GoalPriority | None] = {}
    for var in view.variables:
        s = spread.get(var, 0.0)
        if top <= 0 or s <= 0:
            out[var] = None
        elif s >= 2 * top / 3:
            out[var] = GoalPriority.HIGH
        elif s >= top / 3:
            out[var] = GoalPriority.NORMAL
        else:
            out[var] = GoalPriority.LOW
    return out


@register_policy("triage-002")
class Triage002Policy(RankingPolicy):
    """Document 002's triage ``urgency × gap + 0.3 × surprise`` applied to each source.

    Each source is an attention item for the variables it reports (the best one counts):

    * urgency = deadline proximity × priority weight, by :func:`heedful.engine.triage.urgency`
      on a goal that is due now (timescale ``immediate``) whose priority comes from the stakes
      of the variable — the spread of utilities of the actions whose rules mention it (high ≥ ⅔
      of the largest spread, normal ≥ ⅓, low below); a source informing no decision variable
      has no goal and gets the document's goal-less urgency 0.1;
    * gap = 1 − coverage, where the coverage of a variable is the confidence of the belief held
      about it times its freshness ``1 − p_stale(volatility, belief age)``; no belief → gap 1;
    * surprise = 1 for a variable on which an observation contradicted the belief (adaptive
      condition), else 0.

    Ties break by authority, then file order. Reranks after every observation.
    """

    def __init__(self) -> None:
        super().__init__()
        self._view: TaskView | None = None
        self._config = TriageConfig()

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        """Remember the view; ranking happens at every step."""
        self._view = view
        super().reset(view, rng)

    def rank(self, view: TaskView, rng: np.random.Generator) -> list[str]:
        """Rank the sources with no observation yet."""
        return self._rank(view, ())

    def next(self, history: Sequence[Observation]) -> str | None:
        """Rerank with the surprise seen so far, then inspect the best source not yet seen."""
        if self._view is not None:
            self._order = self._rank(self._view, history)
        return super().next(history)

    def _rank(self, view: TaskView, history: Sequence[Observation]) -> list[str]:
        beliefs = {b.variable: b for b in view.beliefs}
        surprised = {
            var
            for obs in history
            if obs.values
            for var, value in obs.values.items()
            if var in beliefs and beliefs[var].value != value
        }
        priority = _stake_priority(view)
        items = []
        for position, source in enumerate(view.sources):
            best = None
            for var in source.reports or ():
                p = priority.get(var)
                goal = (
                    None
                    if p is None
                    else Goal(id=var, title=var, priority=p, timescale=GoalTimescale.IMMEDIATE)
                )
                u = triage_urgency(goal, _NOW, self._config)
                belief = beliefs.get(var)
                coverage = (
                    0.0
                    if belief is None
                    else belief.confidence
                    * (1.0 - p_stale(view.variables[var].volatility, belief.age_s))
                )
                s = 1.0 if var in surprised else 0.0
                score = u * (1.0 - coverage) + self._config.surprise_weight * s
                best = score if best is None else max(best, score)
            if best is None:
                best = self._config.no_goal_urgency * 1.0  # goal-less item, gap 1, no surprise
            items.append((-best, -source.authority, position, source.id))
        return [sid for *_, sid in sorted(items)]
