"""``voc-learned``: the controller ranking inspections by the supervised ranker (§20.1).

The ranker (``heedful.learn``) replaces only the number that ranks inspection candidates; the
controller, its generators, budget, floors and stopping rule are the ones ``voc`` runs. Without
``model_file`` the shipped default model is used (``heedful/learn/data/default_model.json``,
trained by the command in its manifest and in ``docs/learn.md``).

The bench never imports this module: it reaches the benchmark's policy registry through the
``heedful.policies`` entry point group of ``pyproject.toml``, the way any other package's policies
can (``docs/benchmark.md``, writing a policy).
"""

from __future__ import annotations

from heedful.attention import Estimator
from heedful.bench.policies.voc import ControllerPolicy
from heedful.bench.policy import register_policy
from heedful.learn.estimator import LearnedEstimator
from heedful.learn.model_files import load_ranker

__all__ = ["VocLearnedPolicy"]


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
