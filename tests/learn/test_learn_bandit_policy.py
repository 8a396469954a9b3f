"""`voc-bandit`: the contextual bandit as a bench policy, through the entry point (§20.2, §21)."""

from __future__ import annotations

import numpy as np
import pytest

from heedful.bench.policy import get_policy, suite_policy_names
from heedful.bench.run.benchmark import run_benchmark
from heedful.bench.run.runner import collect_choices
from heedful.bench.views import policy_view
from heedful.bench.worlds.families import generate_family
from heedful.errors import InvalidArgumentError


def test_voc_bandit_arrives_through_the_registry_and_stays_out_of_all() -> None:
    policy = get_policy("voc-bandit")
    assert type(policy).__module__ == "heedful.learn.policy"
    assert "voc-bandit" not in suite_policy_names()
    assert policy.get_params() == {"warmup": 20}


def test_the_warmed_bandit_has_learned_and_differs_from_its_prior() -> None:
    from heedful.learn.policy import warmed_bandit

    assert warmed_bandit(20).updates > 0
    assert warmed_bandit(0).updates == 0
    scenarios = [*generate_family("G", 12, 0), *generate_family("E", 12, 0)]
    res = run_benchmark(scenarios, ["voc-bandit", "voc-learned"], trials=1, seed=0)
    chosen = {(t.policy, t.scenario_id): t.inspected for t in res.trials}
    assert any(chosen[("voc-bandit", s.id)] != chosen[("voc-learned", s.id)] for s in scenarios)


def test_an_untrained_bandit_chooses_as_its_prior_the_ranker() -> None:
    untrained = get_policy("voc-bandit", warmup=0)
    learned = get_policy("voc-learned")
    for s in generate_family("G", 6, 0):
        view = policy_view(s)
        untrained.reset(view, np.random.default_rng(0))
        learned.reset(view, np.random.default_rng(0))
        a, _ = collect_choices(untrained, view, None)
        b, _ = collect_choices(learned, view, None)
        assert [o.source_id for o in a] == [o.source_id for o in b]


def test_a_negative_warmup_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="warmup"):
        get_policy("voc-bandit", warmup=-1)
