"""The optional salience pre-filter in front of the VOC controller (bench policy)."""

from __future__ import annotations

import numpy as np

from heedful.bench.policies.salience_prefilter import salience_kept_sources
from heedful.bench.policy import Observation, get_policy, suite_policy_names
from heedful.bench.worlds.families import generate_family


def _view_with_unrelated_source():  # type: ignore[no-untyped-def]
    view = generate_family("B", 1, 0)[0].view.task_view()
    first = view.sources[0]
    stranger = first.model_copy(
        update={"id": "zz-unrelated", "label": "weather feed", "content": "rain expected"}
    )
    return view.model_copy(update={"sources": (*view.sources, stranger)})


def test_filter_drops_a_source_that_names_no_task_topic() -> None:
    view = _view_with_unrelated_source()
    kept = salience_kept_sources(view)
    assert "zz-unrelated" not in kept
    assert set(kept) == set(view.source_ids) - {"zz-unrelated"}


def test_filter_keeps_everything_when_the_task_has_no_topics() -> None:
    view = _view_with_unrelated_source().model_copy(update={"task": "decide now"})
    assert salience_kept_sources(view) == view.source_ids


def test_prefiltered_controller_never_inspects_a_filtered_source() -> None:
    view = _view_with_unrelated_source()
    policy = get_policy("voc-salience-prefilter")
    policy.reset(view, np.random.default_rng(0))
    history: list[Observation] = []
    while (sid := policy.next(history)) is not None and len(history) <= view.budget:
        history.append(Observation(sid, withheld=True))
    assert history and all(o.source_id != "zz-unrelated" for o in history)


def test_prefilter_is_a_measurement_not_a_suite_row() -> None:
    assert "voc-salience-prefilter" not in suite_policy_names()
