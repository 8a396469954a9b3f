"""Every registered family and policy passes its check (as Gymnasium runs ``check_env``), and the
checks catch what they claim to catch."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from heedful import decision
from heedful.bench.policy import Observation, Policy, get_policy, policy_names, register_policy
from heedful.bench.validity.checks import CheckError, check_family, check_policy, near_random
from heedful.bench.validity.giveaways import (
    COST_PROBES,
    PROBES,
    ProbeScore,
    _Solved,
    fit_logistic,
    score_probe,
    solve,
)
from heedful.bench.worlds.families import FAMILIES, family_names, generate_family, get_family
from heedful.bench.worlds.families._registry import Family
from heedful.model import Scenario, TaskView, scenario_from_dict, scenario_to_dict


@pytest.mark.parametrize("family", family_names())
def test_every_family_passes_its_check(family: str) -> None:
    report = check_family(family, count=16)
    assert [p.probe for p in report.probes] == list(PROBES)
    assert {"lengths", "loudness", "salience", "cost", "surface"} <= set(PROBES)
    # The probes that read the cost are judged on the gross value, the others on the net one.
    assert [g.probe for g in report.gross] == list(COST_PROBES)
    assert [p.gross for p in report.judged] == [p in COST_PROBES for p in PROBES]


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


def test_near_random_is_an_interval_of_the_excess_that_reaches_random_among_relevant() -> None:
    assert near_random(ProbeScore("kind", 44.0, 32.0, 56.0, 30, 40.0, -8.0, 16.0))
    assert not near_random(ProbeScore("kind", 65.0, 52.0, 78.0, 30, 40.0, 12.0, 38.0))
    assert near_random(ProbeScore("kind", 61.0, 45.0, 77.0, 30, 40.0, 5.0, 37.0))
    assert ProbeScore("kind", 61.0, 45.0, 77.0, 30, 40.0, 5.0, 37.0).excess == 21.0


def test_fit_logistic_recovers_the_sign_of_a_feature_that_predicts_the_label() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 2))
    y = (x[:, 0] - 0.1 * x[:, 1] + rng.normal(scale=0.5, size=400) < 0).astype(float)
    w = fit_logistic(x, y)
    assert w[1] < -1.0 and abs(w[2]) < abs(w[1])


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


def _with_role_surface(scenarios: Sequence[Scenario]) -> list[Scenario]:
    # The v2 give-away (issue 23): the echoes and weak copies are the verbose, repeated,
    # urgent-worded, cheap sources; the accurate instruments are terse, quiet and dear.
    out = []
    for s in scenarios:
        raw = scenario_to_dict(s)
        for src in raw["sources"]:
            if not src["reports"]:
                continue
            weak = "echo" in src or float(src.get("accuracy", 0.0)) < 0.75
            words = 18 if weak else 3
            shout = ["URGENT", "ALERT"] if weak else []
            src["content"] = " ".join([*shout, *["update"] * words]) + (" (repeated x4)" * weak)
            src["salience"] = {
                "urgent_words": 1 if weak else 0,
                "verbosity": 25 * words,
                "recency_s": 30.0 if weak else 3_600.0,
                "repeats": 3 if weak else 0,
            }
            src["cost"] = {"tokens": 60 if weak else 400, "tool_calls": 1, "latency_ms": 900}
        out.append(scenario_from_dict(raw))
    return out


@pytest.mark.parametrize("probe", ["lengths", "loudness", "salience", "cost", "surface"])
def test_a_fitted_probe_finds_a_surface_that_marks_the_weak_copies(probe: str) -> None:
    train = solve(_with_role_surface(generate_family("B", 24, 1)))
    test = solve(_with_role_surface(generate_family("B", 24, 2)))
    score = score_probe(probe, train, test, np.random.default_rng(0))
    assert not near_random(score)
    assert score.excess > 20


def test_every_probe_is_near_random_among_relevant_on_the_mixed_surface() -> None:
    # The same family without the role-bound surface: nothing to find (issue 23).
    train, test = solve(generate_family("B", 24, 1)), solve(generate_family("B", 24, 2))
    for probe in PROBES:
        assert near_random(score_probe(probe, train, test, np.random.default_rng(0))), probe


def test_check_family_fails_a_family_whose_surface_gives_the_answer_away() -> None:
    fam = get_family("B")

    def leaky(rng, wording, scenario_id, world):  # type: ignore[no-untyped-def]
        return _with_role_surface([fam.make(rng, wording, scenario_id, world)])[0]

    FAMILIES["X"] = Family("X", "leaky", "X-v1", "test only", leaky, fam.world)
    try:
        with pytest.raises(CheckError, match="give-away: a policy reading only the lengths"):
            check_family("X", count=16)
    finally:
        del FAMILIES["X"]


def _with_cost_labels(scenarios: Sequence[Scenario]) -> list[Scenario]:
    # Cost labels the answer: the same costs, handed out so that the more accurate a source
    # reporting something is, the dearer it is (the dearest is always the instrument; an echo
    # is the cheapest).
    out = []
    for s in scenarios:
        raw = scenario_to_dict(s)
        reporting = [src for src in raw["sources"] if src["reports"]]
        costs = sorted(
            (src["cost"] for src in reporting),
            key=lambda c: c["tool_calls"] + (c["tokens"] + c["latency_ms"]) / 1000.0,
        )
        by_accuracy = sorted(
            reporting, key=lambda src: -1.0 if "echo" in src else float(src["accuracy"])
        )
        for src, cost in zip(by_accuracy, costs, strict=True):
            src["cost"] = cost
        out.append(scenario_from_dict(raw))
    return out


def _dearest_first(sv: _Solved) -> float:
    # The fixed rule "the dearest relevant sources first", normalised.
    ranked = sorted(sv.relevant, key=lambda i: -sv.view.sources[i].cost.scalar())
    chosen = [sv.view.sources[i].id for i in ranked[: sv.view.budget]]
    value = decision.value(sv.problem, chosen)
    return 100.0 * (value - sv.static.u_random) / (sv.static.v_star - sv.static.u_random)


def test_the_cost_probe_is_judged_gross_and_still_finds_a_cost_that_marks_the_instrument() -> None:
    train = _with_cost_labels(generate_family("B", 24, 1))
    test = _with_cost_labels(generate_family("B", 24, 2))
    gross = score_probe(
        "cost", solve(train, gross=True), solve(test, gross=True), np.random.default_rng(0)
    )
    assert gross.gross and not near_random(gross)
    # What it learned is the leak: "dearest first" beats random among the relevant sources.
    solved = solve(test, gross=True)
    assert np.mean([_dearest_first(sv) for sv in solved]) > gross.baseline + 20
    # Gross means gross: every baseline and oracle value is at cost_weight 0.
    assert all(sv.problem.cost_weight == 0.0 for sv in solved)
    assert not score_probe("cost", solve(train), solve(test), np.random.default_rng(0)).gross


def test_check_family_fails_a_family_whose_cost_gives_the_answer_away() -> None:
    fam = get_family("B")

    def leaky(rng, wording, scenario_id, world):  # type: ignore[no-untyped-def]
        return _with_cost_labels([fam.make(rng, wording, scenario_id, world)])[0]

    FAMILIES["X"] = Family("X", "leaky", "X-v1", "test only", leaky, fam.world)
    try:
        with pytest.raises(CheckError, match=r"reading only the cost .*\(gross decision value"):
            check_family("X", count=16)
    finally:
        del FAMILIES["X"]


def test_cheap_first_reading_is_not_a_give_away_when_the_costs_are_exchangeable() -> None:
    # Family G with a heavy cost weight: the costs are handed out by one permutation, so reading
    # the cheap relevant sources first saves real (net) value but marks no source; judged on the
    # gross decision value the cost probe is near random.
    def heavy(scenarios: Sequence[Scenario]) -> list[Scenario]:
        out = []
        for s in scenarios:
            raw = scenario_to_dict(s)
            raw["cost_weight"] = 0.1
            out.append(scenario_from_dict(raw))
        return out

    train, test = heavy(generate_family("G", 24, 1)), heavy(generate_family("G", 24, 2))
    net = score_probe("cost", solve(train), solve(test), np.random.default_rng(0))
    gross = score_probe(
        "cost", solve(train, gross=True), solve(test, gross=True), np.random.default_rng(0)
    )
    assert not near_random(net)  # judged net, cheap-first reading would count as a give-away
    assert net.excess > gross.excess
    assert near_random(gross)


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
