"""Untrusted sources whose honesty is a latent variable of the world (document 000 §24): the
compiled problem and both oracles against the tests' own brute force, on random scenarios and
on family K."""

from __future__ import annotations

from typing import Any

import pytest
from naive_decision import brute_adaptive, brute_oracle, brute_value, random_scenario

from heedful import decision
from heedful.bench.validity.giveaways import decision_relevant
from heedful.bench.worlds.families import generate_family
from heedful.errors import ScenarioError
from heedful.model import Scenario, scenario_from_dict, scenario_to_dict


def _static_matches(sc: Scenario) -> None:
    p = decision.compile_problem(sc.view, sc.truth)
    got = decision.static_oracle(p, sc.view.budget)
    want = brute_oracle(sc, sc.view.budget)
    assert got.v_star == pytest.approx(want["v_star"], abs=1e-9)
    assert got.u_random == pytest.approx(want["u_random"], abs=1e-9)
    assert set(got.critical) == set(want["critical"])


@pytest.mark.parametrize("seed", range(40))
def test_values_with_untrusted_sources_match_brute_force(seed: int) -> None:
    sc = random_scenario(seed, max_sources=5, untrusted=True)
    p = decision.compile_problem(sc.view, sc.truth)
    for sid in sc.view.source_ids:
        assert decision.value(p, [sid]) == pytest.approx(brute_value(sc, [sid]), abs=1e-9)
    _static_matches(sc)


@pytest.mark.parametrize("seed", range(40))
def test_adaptive_oracle_with_untrusted_sources_matches_brute_force(seed: int) -> None:
    sc = random_scenario(seed, max_sources=4, untrusted=True)
    p = decision.compile_problem(sc.view, sc.truth)
    got = decision.adaptive_oracle(p, sc.view.budget).v_adaptive
    assert got == pytest.approx(brute_adaptive(sc, sc.view.budget), abs=1e-9)


def test_random_scenarios_hold_untrusted_liars_of_both_kinds() -> None:
    truths = [
        t
        for seed in range(40)
        for t in random_scenario(seed, max_sources=5, untrusted=True).truth.sources.values()
    ]
    assert {t.liar for t in truths if t.honesty is not None} == {"random", "against"}


def _relevant_part(sc: Scenario) -> Scenario:
    """``sc`` with only the sources that report a decision variable (brute force stays quick)."""
    keep = {sc.view.sources[i].id for i in decision_relevant(sc.view)}
    raw = scenario_to_dict(sc)
    raw["sources"] = [s for s in raw["sources"] if s["id"] in keep]
    raw["budget"] = min(raw["budget"], len(raw["sources"]))
    return scenario_from_dict(raw)


@pytest.fixture(scope="module")
def family_k() -> list[Scenario]:
    return [_relevant_part(s) for s in generate_family("K", 4, 0)]


def test_family_k_static_oracle_matches_brute_force(family_k: list[Scenario]) -> None:
    for sc in family_k:
        assert any(t.honesty is not None for t in sc.truth.sources.values())
        _static_matches(sc)


def test_family_k_adaptive_oracle_matches_brute_force(family_k: list[Scenario]) -> None:
    for sc in family_k[:2]:
        p = decision.compile_problem(sc.view, sc.truth)
        got = decision.adaptive_oracle(p, sc.view.budget).v_adaptive
        assert got == pytest.approx(brute_adaptive(sc, sc.view.budget), abs=1e-9)


def test_a_liar_against_the_truth_is_worth_as_much_as_an_honest_source_once_known() -> None:
    # Honesty 0: the source always lies against a binary truth, so its report is the truth
    # flipped — perfect information, which the oracle values like a perfect honest source.
    sc = scenario_from_dict(_binary(honesty=0.0, liar="against"))
    twin = scenario_from_dict(_binary(honesty=None, liar=None))
    p, q = (decision.compile_problem(s.view, s.truth) for s in (sc, twin))
    assert decision.value(p, ["u"]) == pytest.approx(decision.value(q, ["u"]), abs=1e-12)


def test_an_even_liar_at_random_tells_nothing() -> None:
    sc = scenario_from_dict(_binary(honesty=0.0, liar="random"))
    p = decision.compile_problem(sc.view, sc.truth)
    assert decision.value(p, ["u"]) == pytest.approx(decision.value_empty(p), abs=1e-12)


def _binary(honesty: float | None, liar: str | None) -> dict[str, Any]:
    source: dict[str, Any] = {"id": "u", "reports": ["x"], "accuracy": 1.0}
    if honesty is not None:
        source |= {"trusted": False, "honesty": honesty, "liar": liar}
    return {
        "format": "heedful.scenario/v1",
        "id": "binary",
        "budget": 1,
        "variables": {"x": {"domain": ["a", "b"], "prior": [0.5, 0.5]}},
        "actions": {
            "A": {"utility": [{"when": {"x": "a"}, "value": 1.0}, {"value": -1.0}]},
            "B": {"utility": [{"when": {"x": "b"}, "value": 1.0}, {"value": -1.0}]},
        },
        "sources": [source],
    }


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"honesty": 0.5}, "sources[0].honesty"),  # a trusted source is honest by definition
        ({"trusted": False, "liar": "random"}, "sources[0].liar"),  # a liar needs honesty
        ({"trusted": False, "honesty": 0.5, "accuracy": None, "echo": {"x": "a"}}, "honesty"),
    ],
)
def test_honesty_outside_an_untrusted_noisy_source_is_refused(
    change: dict[str, Any], path: str
) -> None:
    raw = _binary(None, None)
    raw["sources"][0] |= change
    raw["sources"][0] = {k: v for k, v in raw["sources"][0].items() if v is not None}
    with pytest.raises(ScenarioError, match=path.replace("[", r"\[").replace("]", r"\]")):
        scenario_from_dict(raw)


def test_a_fixed_world_cannot_fix_honesty() -> None:
    raw = _binary(0.5, "random") | {"world": {"x": "a"}}
    with pytest.raises(ScenarioError, match="honest"):
        scenario_from_dict(raw)


def test_trusted_flag_and_honesty_round_trip_and_trusted_sources_write_as_before() -> None:
    raw = _binary(0.25, "against")
    sc = scenario_from_dict(raw)
    back = scenario_to_dict(sc)
    assert back["sources"][0]["trusted"] is False
    assert back["sources"][0]["honesty"] == 0.25
    assert back["sources"][0]["liar"] == "against"
    plain = scenario_to_dict(scenario_from_dict(_binary(None, None)))
    assert not {"trusted", "honesty", "liar"} & set(plain["sources"][0])
