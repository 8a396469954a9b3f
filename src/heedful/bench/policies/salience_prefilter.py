"""The VOC controller behind document 003's selective attention (issue 15, item 6).

Document 003's runtime passes the turn's ``context_filter`` to memory retrieval so only relevant
fragments come back. Here the "retrieval" is the set of sources the controller may consider:
``voc-salience-prefilter`` keeps the sources whose visible label and content selective attention
keeps under the task's topics (all of them when the task has no topics or nothing matches), then
lets the ``voc`` controller choose among them. It measures whether a salience pre-filter helps or
hurts value-of-computation selection; the answer is in docs/salience.md.
"""

from __future__ import annotations

import numpy as np

from heedful.bench.policies.seed_systems import source_text
from heedful.bench.policies.voc import ControllerPolicy
from heedful.bench.policy import register_policy
from heedful.model import TaskView
from heedful.salience import AttentionSystem, selective_filter

__all__ = ["SaliencePrefilterPolicy", "salience_kept_sources"]


def salience_kept_sources(view: TaskView) -> tuple[str, ...]:
    """Ids of the sources selective attention keeps under the task's topics (all if none)."""
    topics = AttentionSystem().process(view.task).context_filter
    kept = [s.id for s in view.sources if selective_filter([source_text(s)], topics)]
    return tuple(kept) if topics and kept else view.source_ids


@register_policy("voc-salience-prefilter")
class SaliencePrefilterPolicy(ControllerPolicy):
    """The ``voc`` controller over the sources a document 003 context filter keeps."""

    #: A measurement, run by name (``--policies voc,voc-salience-prefilter``), not a suite row.
    in_default_suite = False

    def __init__(self) -> None:
        super().__init__(estimator="heuristic")

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        """Filter the view's sources by the task's salience context, then build the controller."""
        kept = set(salience_kept_sources(view))
        filtered = view.model_copy(
            update={"sources": tuple(s for s in view.sources if s.id in kept)}
        )
        super().reset(filtered, rng)
