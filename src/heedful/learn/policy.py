"""``voc-learned`` and ``voc-bandit``: the controller ranking inspections by what was learned.

``voc-learned`` uses the supervised ranker (§20.1); ``voc-bandit`` the contextual bandit (§20.2)
after a fixed warm-up on training-stream scenarios, then frozen (mean only, no exploration), so it
is a deterministic policy like every other bench policy — learning across the trials of a run
would make the results depend on the order and on how scenarios are split between workers.

The ranker (``heedful.learn``) replaces only the number that ranks inspection candidates; the
controller, its generators, budget, floors and stopping rule are the ones ``voc`` runs. Without
``model_file`` the shipped default model is used (``heedful/learn/data/default_model.json``,
trained by the command in its manifest and in ``docs/learn.md``).

The bench never imports this module: it reaches the benchmark's policy registry through the
``heedful.policies`` entry point group of ``pyproject.toml``, the way any other package's policies
can (``docs/benchmark.md``, writing a policy).
"""

from __future__ import annotations

import numpy as np

from heedful.attention import Estimator
from heedful.bench.policies.voc import ControllerPolicy
from heedful.bench.policy import register_policy
from heedful.errors import InvalidArgumentError
from heedful.learn.bandit import BanditEstimator, LinUCB
from heedful.learn.estimator import LearnedEstimator
from heedful.learn.model_files import load_ranker

__all__ = ["VocBanditPolicy", "VocLearnedPolicy"]

#: Families of the bandit's warm-up stream, and its root seed (training stream: disjoint from
#: every bench stream of every seed).
WARMUP_FAMILIES = ("G", "B", "E")
WARMUP_SEED = 0
_WARMED: dict[int, LinUCB] = {}


@register_policy("voc-learned")
class VocLearnedPolicy(ControllerPolicy):
    """The controller with the learned estimator (document 000 §20.1, §21).

    Args:
        model_file: A model JSON written by ``heedful learn train``; None = the shipped default.
    """

    def __init__(self, model_file: str | None = None) -> None:
        super().__init__()
        self.model_file = model_file
        self._learned = LearnedEstimator(load_ranker(model_file))

    def _make_estimator(self) -> Estimator:
        return self._learned


def warmed_bandit(warmup: int) -> LinUCB:
    """The bandit after ``warmup`` training-stream scenarios of each warm-up family, learned in
    a fixed order with its bounded exploration (memoised per process: same input, same state)."""
    if warmup in _WARMED:
        return _WARMED[warmup]
    from heedful.learn.dataset import training_scenarios
    from heedful.learn.online import bandit_stream, fresh_bandit

    bandit = fresh_bandit()
    scenarios = [s for fam in WARMUP_FAMILIES for s in training_scenarios(fam, warmup, WARMUP_SEED)]
    order = np.random.default_rng(WARMUP_SEED).permutation(len(scenarios))
    learner = BanditEstimator(bandit, load_ranker(None), explore=True)
    bandit_stream([scenarios[int(i)] for i in order], learner, np.random.default_rng(WARMUP_SEED))
    _WARMED[warmup] = bandit
    return bandit


@register_policy("voc-bandit")
class VocBanditPolicy(ControllerPolicy):
    """The controller with the contextual bandit, warmed up then frozen (document 000 §20.2, §21).

    Args:
        warmup: Training-stream scenarios per warm-up family (G, B, E) the bandit learns from,
            one turn each with partial feedback, before the run; 0 = the untrained bandit (its
            prior, the shipped ranker: then it chooses as ``voc-learned`` does).
    """

    in_default_suite = False

    def __init__(self, warmup: int = 20) -> None:
        if warmup < 0:
            raise InvalidArgumentError(f"warmup must be ≥ 0, got {warmup}")
        super().__init__()
        self.warmup = warmup
        self._bandit = BanditEstimator(warmed_bandit(warmup), load_ranker(None), explore=False)

    def _make_estimator(self) -> Estimator:
        return self._bandit
