"""Hidden sources (issue 23): a critical source not listed up front, revealed by another read.

It never reaches a policy before it is revealed (not in the view, not in any observation but the
revealing one), the runner refuses it until then, the oracles count it only with its revealer,
and a controller that never proposes the revealer misses it: ``ATTN_CANDIDATE_MISSING``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
import yaml

from heedful.bench.policy import Observation, Policy, register_policy
from heedful.bench.results import FailureCode, Violation
from heedful.bench.run.benchmark import run_benchmark
from heedful.bench.run.runner import collect_choices
from heedful.bench.views import policy_view
from heedful.bench.worlds.families import generate_family
from heedful.errors import ScenarioError
from heedful.model import Scenario, TaskView, scenario_from_dict, scenario_to_dict

HIDDEN_LIVE = Path(__file__).resolve().parents[1] / "data" / "hidden_live.yaml"


def _scenario(budget: int = 2) -> Scenario:
    """The shared hidden-source world (tests/data/hidden_live.yaml), as this file uses it."""
    raw = yaml.safe_load(HIDDEN_LIVE.read_text(encoding="utf-8"))
    raw["task"] = "Ship or hold."
    raw["budget"] = budget
    for key in ("age_s",):
        del raw["sources"][2][key]
    return scenario_from_dict(raw, file="hidden.yaml")


@register_policy("test-link-follower")
class LinkFollower(Policy):
    """Reads the sources with links first, then whatever they reveal; records what it saw."""

    seen: ClassVar[list[Any]] = []
    in_default_suite = False

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        LinkFollower.seen.append(view)
        self._queue = [s.id for s in view.sources if s.links]
        self._budget = view.budget

    def next(self, history: Sequence[Observation]) -> str | None:
        LinkFollower.seen.append(tuple(history))
        for obs in history:
            for src in obs.revealed:
                if src.id not in self._queue:
                    self._queue.append(src.id)
        done = {o.source_id for o in history}
        left = [s for s in self._queue if s not in done]
        return left[0] if left and len(history) < self._budget else None


@register_policy("test-eager")
class Eager(Policy):
    """Names the hidden source before anything revealed it (it cannot know the id honestly)."""

    in_default_suite = False

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        pass

    def next(self, history: Sequence[Observation]) -> str | None:
        return None if history else "live-probe"


def test_a_hidden_source_is_not_in_the_view_a_policy_gets() -> None:
    sc = _scenario()
    view = policy_view(sc)
    assert view.source_ids == ("catalogue", "noise")
    assert "live-probe" not in view.model_dump_json()
    assert "revealed_by" not in view.model_dump_json()
    assert view.source("catalogue").links == 1


def test_a_hidden_source_round_trips_through_the_file_form() -> None:
    sc = _scenario()
    raw = scenario_to_dict(sc)
    assert [s.get("revealed_by") for s in raw["sources"]] == [None, None, "catalogue"]
    assert all("links" not in s for s in raw["sources"])
    assert scenario_from_dict(raw, file="hidden.yaml") == sc


@pytest.mark.parametrize(
    ("revealed_by", "message"),
    [
        ("nowhere", "sources[2].revealed_by: unknown source 'nowhere'"),
        ("live-probe", "sources[2].revealed_by: source 'live-probe' cannot reveal itself"),
    ],
)
def test_a_bad_revealed_by_is_refused_naming_the_field(revealed_by: str, message: str) -> None:
    raw = scenario_to_dict(_scenario())
    raw["sources"][2]["revealed_by"] = revealed_by
    with pytest.raises(ScenarioError, match=message.replace("[", r"\[").replace("]", r"\]")):
        scenario_from_dict(raw, file="hidden.yaml")


def test_a_cycle_of_reveals_is_refused() -> None:
    raw = scenario_to_dict(_scenario())
    raw["sources"][0]["revealed_by"] = "live-probe"
    with pytest.raises(ScenarioError, match="a cycle of reveals"):
        scenario_from_dict(raw, file="hidden.yaml")


def test_the_revealing_read_hands_over_the_hidden_source_even_withheld() -> None:
    sc = _scenario()
    policy = LinkFollower()
    view = policy_view(sc)
    policy.reset(view, np.random.default_rng(0))
    history, violation = collect_choices(policy, view, None, sc.reveals())
    assert violation is None
    assert [o.source_id for o in history] == ["catalogue", "live-probe"]
    assert history[0].withheld and [s.id for s in history[0].revealed] == ["live-probe"]
    assert history[1].revealed == ()


def test_asking_for_a_hidden_source_before_it_is_revealed_is_an_unknown_source() -> None:
    sc = _scenario()
    view = policy_view(sc)
    policy = Eager()
    policy.reset(view, np.random.default_rng(0))
    history, violation = collect_choices(policy, view, None, sc.reveals())
    assert history == [] and violation is Violation.UNKNOWN_SOURCE


@pytest.mark.parametrize("adaptive", [False, True])
def test_the_hidden_source_reaches_the_policy_only_in_the_revealing_observation(
    adaptive: bool,
) -> None:
    LinkFollower.seen.clear()
    run_benchmark([_scenario()], ["test-link-follower"], trials=2, seed=0, adaptive=adaptive)
    for item in LinkFollower.seen:
        if isinstance(item, TaskView):
            assert "live-probe" not in item.model_dump_json()
            continue
        for obs in item:
            if obs.source_id != "catalogue":
                assert obs.revealed == ()


@pytest.mark.parametrize("adaptive", [False, True])
def test_following_the_link_is_optimal_and_the_oracle_scores_100(adaptive: bool) -> None:
    results = run_benchmark(
        [_scenario()],
        ["test-link-follower", "oracle", "random"],
        trials=3,
        seed=0,
        adaptive=adaptive,
    )
    by = {(t.policy, t.trial): t for t in results.trials}
    assert all(by[("oracle", k)].optimal for k in range(3))
    assert all(by[("test-link-follower", k)].optimal for k in range(3))
    assert by[("test-link-follower", 0)].inspected == ["catalogue", "live-probe"]


def test_a_heuristic_controller_proposes_the_catalogue_but_misses_the_hidden_source() -> None:
    # The catalogue names a source (links 1), so goal_dependency proposes it; the heuristic
    # credits it with nothing (it has no model of what a read names), so the probe stays unseen.
    results = run_benchmark([_scenario()], ["voc"], trials=1, seed=0)
    trial = results.trials[0]
    assert "live-probe" in trial.closest_optimal_set
    assert "catalogue" in (trial.candidates or [])
    assert "live-probe" not in (trial.candidates or [])
    assert trial.failure is FailureCode.CANDIDATE_MISSING
    assert trial.candidate_recall == 0.5


def test_a_controller_told_of_a_revealed_source_proposes_it() -> None:
    # Once a read reveals the probe, the bench's controller wrapper registers it, and the
    # goal-dependency generator proposes it like any listed source reporting the decision.
    from heedful.bench.policies.voc import VocPolicy

    sc = _scenario()
    policy = VocPolicy()
    policy.reset(policy_view(sc), np.random.default_rng(0))
    probe = sc.source("live-probe")
    assert "live-probe" not in policy.candidate_sources()
    choice = policy.next([Observation("catalogue", withheld=True, revealed=(probe,))])
    assert "live-probe" in policy.candidate_sources()
    assert choice == "live-probe"


def test_family_e_hides_upstream_instruments_behind_caches_and_catalogues() -> None:
    scenarios = generate_family("E", 40, 0)
    hidden = [h for s in scenarios for h in s.truth.hidden]
    assert hidden, "family E v4 hides some upstream instruments"
    kinds = set()
    for s in scenarios:
        for h in s.truth.hidden:
            revealer = s.source(h.revealed_by)
            assert h.source.id not in policy_view(s).source_ids
            assert revealer.links >= 1
            kinds.add("cache" if revealer.reports else "catalogue")
    assert kinds == {"cache", "catalogue"}


def test_candidate_missing_appears_for_a_controller_on_family_e() -> None:
    # The heuristic never reads a catalogue, so an instrument hidden behind one is never a
    # candidate (the model-based controller reads it: docs/benchmark.md, "Hidden sources").
    results = run_benchmark(generate_family("E", 40, 0), ["voc"], trials=1, seed=0)
    failures = [t.failure for t in results.trials]
    assert FailureCode.CANDIDATE_MISSING in failures
    recalls = {t.candidate_recall for t in results.trials if t.candidate_recall is not None}
    assert len(recalls) > 1  # the funnel varies: recall is not 1.0 on every trial
