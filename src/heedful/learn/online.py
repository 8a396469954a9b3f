"""Running the bandit through a stream of scenarios, one turn each, with partial feedback.

Each turn the controller (with a :class:`~heedful.learn.bandit.BanditEstimator`) chooses its
reads on the scenario's visible view (static condition); then, and only for the reads it made,
the bandit is rewarded with an externally derived value of each read — the evaluator's exact
assessment of that read on the true problem ("benchmark score improved", document 000 §20.2),
never the agent's own opinion — and updated. The reward is in the units of the ranker's label
(:meth:`heedful.learn.dataset.OracleLabeler.label`: what continuing was worth if the read was on
an optimal plan, what it lost if not), so the bandit corrects the ranker it starts from. Its state
can be saved in a memory store after every turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from heedful.bench.policy import Observation, get_policy
from heedful.bench.run.runner import collect_choices
from heedful.learn.bandit import BanditEstimator, LinUCB
from heedful.learn.config import BanditConfig
from heedful.learn.dataset import EstimatorPolicy, OracleLabeler
from heedful.memory import Store
from heedful.model import Scenario

__all__ = ["TurnResult", "bandit_stream", "fixed_stream", "fresh_bandit"]


@dataclass(frozen=True)
class TurnResult:
    """One turn: the reads made, their value and the regret against the static oracle."""

    inspected: tuple[str, ...]
    value: float
    regret: float
    explored: int


def _regret(labeler: OracleLabeler, chosen: Sequence[str]) -> tuple[float, float]:
    v_star = float(labeler.values.max())
    v = labeler.set_value(chosen)
    return v, v_star - v


def bandit_stream(
    scenarios: Sequence[Scenario],
    estimator: BanditEstimator,
    rng: np.random.Generator,
    *,
    store: Store | None = None,
    name: str = "default",
) -> list[TurnResult]:
    """Run the bandit through ``scenarios`` in order, learning after each turn."""
    policy = EstimatorPolicy(estimator)
    out = []
    for scenario in scenarios:
        view = scenario.view.task_view()
        labeler = OracleLabeler(scenario)
        policy.reset(view, rng)
        estimator.begin_turn(view.budget)
        history: list[Observation] = []
        explored = 0
        while len(history) < view.budget:
            choice = policy.next(tuple(history))
            if choice is None or any(o.source_id == choice for o in history):
                break
            explored += estimator.chosen(choice)
            history.append(Observation(choice, withheld=True))
        chosen = [o.source_id for o in history]
        for i, sid in enumerate(chosen):  # partial feedback: only reads actually made
            gain = labeler.label(chosen[:i], sid)
            if gain is not None:
                estimator.reward(sid, gain)
        if store is not None:
            estimator.bandit.save(store, name)
        value, regret = _regret(labeler, chosen)
        out.append(TurnResult(tuple(chosen), value, regret, explored))
    return out


def fixed_stream(scenarios: Sequence[Scenario], policy_name: str) -> list[TurnResult]:
    """The same stream under a fixed registered policy (no learning)."""
    policy = get_policy(policy_name)
    out = []
    for scenario in scenarios:
        labeler = OracleLabeler(scenario)
        task = scenario.view.task_view()
        policy.reset(task, np.random.default_rng(0))
        history, _ = collect_choices(policy, task, None)
        chosen = [o.source_id for o in history]
        value, regret = _regret(labeler, chosen)
        out.append(TurnResult(tuple(chosen), value, regret, 0))
    return out


def fresh_bandit(config: BanditConfig | None = None) -> LinUCB:
    """A new bandit that standardises features like the shipped default ranker."""
    from heedful.learn.model_files import load_ranker

    ranker = load_ranker(None)
    assert ranker.mean is not None and ranker.scale is not None
    return LinUCB(ranker.mean.copy(), ranker.scale.copy(), config or BanditConfig())
