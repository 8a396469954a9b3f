"""Families C, E, F and I: validity, reproducibility, defining structure, informativeness."""

from __future__ import annotations

import math

import numpy as np
import pytest
from typer.testing import CliRunner

from heedful import decision
from heedful.bench import run_benchmark
from heedful.bench.worlds.families import generate_family, get_family, scenario_rngs
from heedful.bench.worlds.families._words import SELF_KINDS
from heedful.bench.worlds.families._worlds import World
from heedful.bench.worlds.families.hypothesis import ORIGIN
from heedful.cli import app
from heedful.model import Scenario, Volatility, scenario_from_dict, scenario_to_dict

DEFAULT_WORLD = World()  # the controller's model: visible signals are read through it

NEW = ["C", "E", "F", "I"]
VOLATILE = (Volatility.HIGH, Volatility.VERY_HIGH)


def _pivotal(s: Scenario) -> set[str]:
    """Variables that appear in at least one utility rule."""
    return {v for a in s.view.actions.values() for r in a.utility for v in r.when}


def _entropy(p: list[float]) -> float:
    return -sum(x * math.log(x) for x in p if x > 0)


@pytest.mark.parametrize("family", NEW)
def test_generated_scenarios_validate_through_the_loader(family: str) -> None:
    for s in generate_family(family, 8, seed=3):
        again = scenario_from_dict(scenario_to_dict(s))
        assert again.view == s.view
        assert again.truth == s.truth
        assert s.view.family == family


@pytest.mark.parametrize("family", NEW)
def test_same_seed_reproduces_byte_identical_scenarios(family: str) -> None:
    a = generate_family(family, 5, seed=9)
    b = generate_family(family, 5, seed=9)
    assert [scenario_to_dict(x) for x in a] == [scenario_to_dict(x) for x in b]
    c = generate_family(family, 5, seed=10)
    assert [scenario_to_dict(x) for x in a] != [scenario_to_dict(x) for x in c]


@pytest.mark.parametrize("family", NEW)
def test_wording_draws_do_not_change_the_structure(family: str) -> None:
    fam = get_family(family)
    dicts = []
    for wording_seed in (100, 200):
        rng, _ = scenario_rngs(family, 8, 0)
        s = scenario_to_dict(fam.make(rng, np.random.default_rng(wording_seed), "x", World()))
        dicts.append(s)
    a, b = dicts
    assert a["budget"] == b["budget"] and a["cost_weight"] == b["cost_weight"]
    assert sorted(tuple(v["prior"]) for v in a["variables"].values()) == sorted(
        tuple(v["prior"]) for v in b["variables"].values()
    )
    assert sorted((x["authority"], x["age_s"]) for x in a["sources"]) == sorted(
        (x["authority"], x["age_s"]) for x in b["sources"]
    )
    assert [x["label"] for x in a["sources"]] != [x["label"] for x in b["sources"]]


@pytest.mark.parametrize("family", NEW)
def test_sizes_keep_the_static_oracle_fast(family: str) -> None:
    for s in generate_family(family, 40, seed=4):
        assert len(s.view.sources) <= 30
        assert 1 <= s.view.budget <= 5
        assert math.prod(len(v.domain) for v in s.view.variables.values()) <= 64


@pytest.mark.parametrize("family", NEW)
def test_most_scenarios_are_informative(family: str) -> None:
    gaps = []
    for s in generate_family(family, 40, seed=5):
        r = decision.static_oracle(decision.compile_problem(s.view, s.truth), s.view.budget)
        gaps.append(r.v_star - r.u_random)
    assert np.mean(np.array(gaps) > 1e-9) >= 0.9


@pytest.mark.parametrize("family", NEW)
def test_oracle_scores_100_and_random_scores_near_zero(family: str) -> None:
    scenarios = generate_family(family, 6, seed=6)
    r = run_benchmark(scenarios, ["oracle", "random"], trials=50, seed=1, progress=False)
    oracle = r.aggregates.row("oracle").score
    assert oracle.mean == pytest.approx(100.0)
    scores = np.array([t.score for t in r.trials if t.policy == "random"], dtype=float)
    scores = scores[~np.isnan(scores)]
    se = scores.std(ddof=1) / np.sqrt(scores.size)
    assert abs(scores.mean()) < 4 * se


@pytest.mark.parametrize(
    ("code", "name"), [("C", "relevance"), ("E", "dirty"), ("F", "competing"), ("I", "hypothesis")]
)
def test_family_is_registered_by_code_and_name(code: str, name: str) -> None:
    assert get_family(name).code == code
    assert get_family(code.lower()).name == name


def test_scenario_generate_cli_accepts_a_new_family() -> None:
    res = CliRunner().invoke(app, ["scenario", "generate", "--family", "E", "--count", "2"])
    assert res.exit_code == 0, res.output
    assert "family: E" in res.output


# --- C: goal relevance -------------------------------------------------------------------------


def test_family_c_most_sources_inform_variables_no_action_depends_on() -> None:
    for s in generate_family("C", 30, seed=7):
        pivotal = _pivotal(s)
        bystanders = set(s.view.variables) - pivotal
        assert len(bystanders) >= 3
        on_pivotal = [src for src in s.view.sources if set(src.reports) & pivotal]
        on_bystanders = [
            src for src in s.view.sources if src.reports and not set(src.reports) & pivotal
        ]
        assert 2 <= len(on_pivotal) < len(on_bystanders)


def test_family_c_bystanders_are_watched_as_well_as_the_pivotal_variables() -> None:
    # Authority alone cannot tell relevance: the best bystander instrument is as good.
    for s in generate_family("C", 30, seed=8):
        pivotal = _pivotal(s)
        best_by = max(
            src.authority
            for src in s.view.sources
            if src.reports and not set(src.reports) & pivotal
        )
        assert best_by >= 0.75


# --- E: hidden state change --------------------------------------------------------------------


def _upstream(s: Scenario, var: str) -> list[float]:
    """Ages of the informative (non-echo) sources reporting ``var``."""
    return [
        src.age_s
        for src in s.sources  # listed and hidden (v4: an upstream may be hidden)
        if var in src.reports and s.truth.sources[src.id].echo is None
    ]


def test_family_e_dirty_beliefs_have_a_newer_upstream_source_and_a_volatile_variable() -> None:
    for s in generate_family("E", 40, seed=9):
        assert len(s.view.beliefs) == 3
        dirty = [b for b in s.view.beliefs if min(_upstream(s, b.variable)) < b.age_s]
        assert dirty
        for b in s.view.beliefs:
            volatile = s.view.variables[b.variable].volatility in VOLATILE
            assert volatile == (b in dirty)


def test_family_e_dirty_beliefs_are_confident_but_honestly_stale() -> None:
    for s in generate_family("E", 40, seed=10):
        for b in s.view.beliefs:
            var = s.view.variables[b.variable]
            if var.volatility in VOLATILE:
                assert b.confidence >= 0.85
                keep = s.truth.priors[b.variable][var.domain.index(b.value)]
                assert keep < b.confidence


def test_family_e_cache_of_a_dirty_belief_only_echoes_it() -> None:
    for s in generate_family("E", 30, seed=11, shift=0.0):  # at shift > 0 a cache may refresh
        for b in s.view.beliefs:
            if s.view.variables[b.variable].volatility not in VOLATILE:
                continue
            echoes = [
                src
                for src in s.view.sources
                if s.truth.sources[src.id].echo == {b.variable: b.value}
            ]
            assert len(echoes) == 1 and echoes[0].age_s == b.age_s


# --- F: competing uncertainty ------------------------------------------------------------------


def test_family_f_irrelevant_variable_is_more_uncertain_than_the_consequential_one() -> None:
    for s in generate_family("F", 40, seed=12):
        four = next(n for n, v in s.view.variables.items() if len(v.domain) == 4)
        status = next(b.variable for b in s.view.beliefs if b.variable != four)
        assert _entropy(s.truth.priors[four]) > _entropy(s.truth.priors[status])


def test_family_f_uncertain_variable_has_low_or_no_stake() -> None:
    for s in generate_family("F", 40, seed=13):
        four = next(n for n, v in s.view.variables.items() if len(v.domain) == 4)
        stakes = [
            abs(a.utility[0].value - a.utility[-1].value)
            for a in s.view.actions.values()
            if any(four in r.when for r in a.utility)
        ]
        big = max(abs(r.value) for a in s.view.actions.values() for r in a.utility)
        assert all(st <= 0.1 + 1e-9 for st in stakes)
        assert big >= 1.5


def test_family_f_uncertain_variable_has_the_best_instruments() -> None:
    # Authority and freshness point at the uncertain variable: only consequence says otherwise.
    for s in generate_family("F", 30, seed=14):
        four = next(n for n, v in s.view.variables.items() if len(v.domain) == 4)
        on_four = [src for src in s.view.sources if four in src.reports]
        on_status = [src for src in s.view.sources if src.reports and src not in on_four]
        assert len(on_four) >= 2
        assert min(x.authority for x in on_four) > np.mean([x.authority for x in on_status])
        assert max(x.age_s for x in on_four) <= min(x.age_s for x in on_status) + 900


# --- I: self-generated distractor --------------------------------------------------------------


def test_family_i_echo_sources_repeat_the_agents_hypothesis() -> None:
    for s in generate_family("I", 40, seed=15):
        (hyp,) = [b for b in s.view.beliefs if b.origin == ORIGIN]
        assert hyp.confidence >= 0.8 and hyp.age_s >= 7_200
        echoes = [src for src in s.view.sources if s.truth.sources[src.id].echo is not None]
        assert echoes
        for src in echoes:
            assert s.truth.sources[src.id].echo == {hyp.variable: hyp.value}
            assert src.age_s == hyp.age_s


def test_family_i_live_instrument_outranks_the_echoes_on_authority_only() -> None:
    # v3 (issue 23): the write-ups' cheap, repeated look is one bundle of the surface mix, so
    # the live instrument is sometimes the cheap, repeated one; authority still tells them apart.
    cheap_live = 0
    for s in generate_family("I", 40, seed=16):
        (hyp,) = s.view.beliefs
        echoes = [src for src in s.view.sources if s.truth.sources[src.id].echo is not None]
        live = max(
            (src for src in s.view.sources if hyp.variable in src.reports and src not in echoes),
            key=lambda src: src.authority,
        )
        assert all(e.authority < live.authority for e in echoes)
        cheap_live += any(e.cost.scalar() > live.cost.scalar() for e in echoes)
    assert cheap_live > 0


def test_family_i_hypothesis_is_obsolete_under_the_honest_prior() -> None:
    for s in generate_family("I", 40, seed=17):
        (hyp,) = s.view.beliefs
        var = s.view.variables[hyp.variable]
        keep = hyp.confidence * (1 - DEFAULT_WORLD.p_stale(var.volatility, hyp.age_s))
        assert keep < hyp.confidence - 0.05


def test_family_i_write_up_kinds_do_not_mark_the_echoes() -> None:
    informative = 0
    for s in generate_family("I", 40, seed=18):
        informative += sum(
            1
            for src in s.view.sources
            if src.kind in SELF_KINDS and src.reports and s.truth.sources[src.id].echo is None
        )
    assert informative >= 10
