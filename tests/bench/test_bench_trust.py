"""Family K and trust under test (document 000 §24): the view's ``trusted`` mark, the benchmark
policies' registration of untrusted sources, and the give-away checks of
:mod:`heedful.bench.validity.trust`."""

from __future__ import annotations

import numpy as np
import pytest

from heedful.bench.policies.voc import ControllerPolicy
from heedful.bench.policy import get_policy
from heedful.bench.validity.checks import CheckError
from heedful.bench.validity.trust import TRUST_MARGIN, check_trust, measure_trust
from heedful.bench.views import policy_view
from heedful.bench.worlds.families import FAMILIES, Family, generate_family, get_family
from heedful.errors import InvalidArgumentError
from heedful.integrations.llm.prompt import HEADINGS, view_payload
from heedful.model import Scenario, scenario_from_dict, scenario_to_dict


@pytest.fixture(scope="module")
def many_k() -> list[Scenario]:
    return generate_family("K", 40, 0)


def _needed(s: Scenario) -> set[str]:
    return {v for a in s.view.actions.values() for rule in a.utility for v in rule.when}


def test_family_k_has_a_trusted_instrument_and_untrusted_claimants(many_k: list[Scenario]) -> None:
    for s in many_k:
        relevant = [src for src in s.view.sources if set(src.reports) & _needed(s)]
        trusted = [src for src in relevant if src.trusted]
        untrusted = [src for src in relevant if not src.trusted]
        assert len(trusted) == 1 and len(untrusted) >= 3
        # Every claimant claims at least the instrument's authority band and has an honesty.
        assert all(src.authority >= 0.95 for src in untrusted)
        assert all(s.truth.sources[src.id].honesty is not None for src in untrusted)


def test_family_k_condition_is_watched_by_untrusted_sources_only(many_k: list[Scenario]) -> None:
    for s in many_k:
        state = next(v for v in s.view.variables if v.endswith("_state"))
        for var in _needed(s) - {state}:
            watchers = [src for src in s.view.sources if var in src.reports]
            assert watchers and not any(src.trusted for src in watchers)


def test_family_k_distractors_are_trusted_or_not_alike(many_k: list[Scenario]) -> None:
    flags = [
        src.trusted for s in many_k for src in s.view.sources if not set(src.reports) & _needed(s)
    ]
    assert 0.3 < float(np.mean(flags)) < 0.7


def test_family_k_liars_lie_both_ways_across_scenarios(many_k: list[Scenario]) -> None:
    modes = {t.liar for s in many_k for t in s.truth.sources.values() if t.liar is not None}
    assert modes == {"random", "against"}


def test_the_view_and_the_prompt_mark_untrusted_sources(many_k: list[Scenario]) -> None:
    s = many_k[0]
    view = policy_view(s)
    untrusted = {src.id for src in view.sources if not src.trusted}
    listed = view_payload(view)[HEADINGS[0]]
    marked = {src["id"] for src in listed if src.get("trusted") is False}
    assert untrusted and marked == untrusted
    assert all("honesty" not in src and "liar" not in src for src in listed)


def _registered(name: str, s: Scenario) -> dict[str, bool]:
    policy = get_policy(name)
    assert isinstance(policy, ControllerPolicy)
    policy.reset(policy_view(s), np.random.default_rng(0))
    return {sid: info.trusted for sid, info in policy.controller.world.claimed.items()}


def test_benchmark_policies_register_untrusted_sources_untrusted(many_k: list[Scenario]) -> None:
    s = many_k[0]
    marks = {src.id: src.trusted for src in s.view.sources}
    assert _registered("voc-model", s) == marks
    assert _registered("voc", s) == marks


def test_the_trust_everything_rule_registers_every_source_trusted(many_k: list[Scenario]) -> None:
    s = many_k[0]
    assert _registered("voc-trust-all", s) == {src.id: True for src in s.view.sources}


def test_the_trust_nothing_rule_never_registers_an_untrusted_source(many_k: list[Scenario]) -> None:
    s = many_k[0]
    assert _registered("voc-trust-none", s) == {
        src.id: True for src in s.view.sources if src.trusted
    }


def test_an_unknown_trust_mode_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="trust must be one of"):
        ControllerPolicy(trust="some")


def test_trust_rules_stay_out_of_the_default_suite() -> None:
    from heedful.bench.policy import suite_policy_names

    assert not {"voc-trust-all", "voc-trust-none"} & set(suite_policy_names())


def test_both_extreme_rules_trail_the_trust_rule_on_family_k() -> None:
    report = check_trust("K", count=40, seed=0)
    assert report.informative >= 30
    for gap in report.gaps:
        assert gap.gap.mean >= TRUST_MARGIN, gap.rule


def test_check_trust_fails_a_family_whose_claimants_are_all_honest() -> None:
    # Honest claimants with high claimed authorities: believing every claim is then right, so
    # trust is no test — the check must say so (trust-everything comes too close).
    fam = get_family("K")

    def honest(rng, wording, scenario_id, world):  # type: ignore[no-untyped-def]
        raw = scenario_to_dict(fam.make(rng, wording, scenario_id, world))
        for src in raw["sources"]:
            if "honesty" in src:
                src["honesty"] = 1.0
        return scenario_from_dict(raw)

    FAMILIES["X"] = Family("X", "honest", "X-v1", "test only", honest, fam.world)
    try:
        with pytest.raises(CheckError, match="trust-everything"):
            check_trust("X", count=24)
    finally:
        del FAMILIES["X"]


def test_measure_trust_refuses_a_family_without_untrusted_sources() -> None:
    with pytest.raises(CheckError, match="no untrusted source"):
        measure_trust("G", count=4)
