"""Every registered family and policy passes its check (as Gymnasium runs ``check_env``), and the
checks catch what they claim to catch."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from heedful.bench.policy import Observation, Policy, get_policy, policy_names, register_policy
from heedful.bench.validity.checks import CheckError, check_family, check_policy, near_random
from heedful.bench.validity.giveaways import ProbeScore, score_probe, solve
from heedful.bench.worlds.families import FAMILIES, family_names, generate_family, get_family
from heedful.bench.worlds.families._registry import Family
from heedful.model import Scenario, TaskView, scenario_from_dict, scenario_to_dict


@pytest.mark.parametrize("family", family_names())
def test_every_family_passes_its_check(family: str) -> None:
    report = check_family(family, count=16)
    assert {p.probe for p in report.probes} == {"kind", "id-suffix", "position", "label-words"}


def _shipped_policies() -> list[str]:
    """heedful's own policies: not the ones other test modules register for themselves (which
    of those exist at collection time depends on the order pytest imports the modules in)."""
    from heedful.bench.policy import policy_class

    return [n for n in policy_names() if policy_class(n).__module__.startswith("heedful.")]


def test_shipped_policies_are_heedfuls_own() -> None:
    names = _shipped_policies()
    assert {"voc", "voc-model", "voc-learned", "random", "oracle"} <= set(names)
    assert not any(n.startswith("test-") for n in names)


@pytest.mark.parametrize("name", _shipped_policies())
def test_every_policy_passes_its_check(name: str) -> None:
    check_policy(get_policy(name), [*generate_family("G", 1, 0), *generate_family("B", 1, 0)])


def test_near_random_is_an_interval_that_reaches_random() -> None:
    assert near_random(ProbeScore("kind", 4.0, -8.0, 16.0, 30))
    assert not near_random(ProbeScore("kind", 25.0, 12.0, 38.0, 30))
    assert near_random(ProbeScore("kind", 21.0, 5.0, 37.0, 30))  # cannot rule out random


def _with_role_kinds(scenarios: Sequence[Scenario]) -> list[Scenario]:
    # The old give-away: critical sources carry one kind, the others another.
    out = []
    for s in scenarios:
        critical = set(solve([s])[0].static.critical) if solve([s]) else set()
        raw = scenario_to_dict(s)
        for src in raw["sources"]:
            src["kind"] = "live_instrument" if src["id"] in critical else "digest"
        out.append(scenario_from_dict(raw))
    return out


def test_the_kind_probe_finds_a_kind_that_marks_the_critical_sources() -> None:
    train = solve(_with_role_kinds(generate_family("B", 16, 1)))
    test = solve(_with_role_kinds(generate_family("B", 16, 2)))
    score = score_probe("kind", train, test, np.random.default_rng(0))
    assert not near_random(score)
    assert score.mean > 50


def test_check_family_fails_a_family_whose_kind_gives_the_answer_away() -> None:
    fam = get_family("B")

    def leaky(rng, wording, scenario_id, world):  # type: ignore[no-untyped-def]
        return _with_role_kinds([fam.make(rng, wording, scenario_id, world)])[0]

    FAMILIES["X"] = Family("X", "leaky", "X-v1", "test only", leaky, fam.world)
    try:
        with pytest.raises(CheckError, match="give-away: a policy reading only the kind"):
            check_family("X", count=16)
    finally:
        del FAMILIES["X"]


@register_policy("test-over-budget")
class _OverBudget(Policy):
    in_default_suite = False

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        self._ids = list(view.source_ids)

    def next(self, history: Sequence[Observation]) -> str | None:
        return self._ids[len(history)] if len(history) < len(self._ids) else None


@register_policy("test-secretly-random")
class _SecretlyRandom(Policy):
    in_default_suite = False
    deterministic = True  # a lie: it uses the rng

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        self._ids = [str(x) for x in rng.permutation(list(view.source_ids))][: view.budget]

    def next(self, history: Sequence[Observation]) -> str | None:
        return self._ids[len(history)] if len(history) < len(self._ids) else None


def test_check_policy_catches_a_policy_that_ignores_the_budget() -> None:
    with pytest.raises(CheckError, match="over_budget"):
        check_policy(_OverBudget(), generate_family("G", 1, 0))


def test_check_policy_catches_a_dishonest_deterministic_flag() -> None:
    with pytest.raises(CheckError, match="deterministic is True"):
        check_policy(_SecretlyRandom(), generate_family("G", 2, 0))
