"""Trust that holds (document 000 §24): unknown claims, claimed authority and cost, stop reasons,
diagnoses in the README's loop."""

from __future__ import annotations

from datetime import timedelta

import pytest
from tests_attention_time import NOW

from heedful.attention.controller import Controller, Stop
from heedful.errors import UnknownNameError
from heedful.model.candidate import Candidate, CandidateKind, EventType

REGISTRY_COST = {"tool_calls": 1, "tokens": 180, "latency_ms": 900}


def _deploy(**registry: object) -> Controller:
    ctl = Controller(clock=lambda: NOW)
    ctl.register_source(
        "registry", reports=["dep_version"], authority=0.99, cost=REGISTRY_COST, **registry
    )
    ctl.record_belief(
        "dep_version", "4.1", domain=["4.1", "4.2"], confidence=0.9, age_s=21600, volatility="high"
    )
    return ctl


def test_a_typo_in_a_claim_check_is_an_unknown_name() -> None:
    ctl = _deploy(trusted=True)
    with pytest.raises(UnknownNameError, match="dep_verison"):
        ctl.check_claim("dep_verison")
    assert not ctl.trace.of(EventType.VALIDATOR_VIOLATION)


def test_a_claim_only_a_source_reports_can_be_checked() -> None:
    ctl = Controller(clock=lambda: NOW)
    ctl.register_source("probe", reports=["svc_up"], authority=0.99, trusted=True)
    verdict = ctl.check_claim("svc_up", claim_type="live_system_state")
    assert not verdict.ok  # known, no evidence yet: a violation, not an error


def test_a_thousand_untrusted_sources_claiming_authority_for_free_lose_to_the_registry() -> None:
    ctl = _deploy(trusted=True)
    for k in range(1_000):
        ctl.register_source(
            f"fake-{k}", reports=["dep_version"], authority=0.99, cost={}, trusted=False
        )
    ctl.begin_turn(budget=1)
    step = ctl.next()
    assert isinstance(step, Candidate) and step.target == "registry"


def test_an_untrusted_source_is_credited_the_capped_authority_and_the_floored_cost() -> None:
    ctl = Controller(clock=lambda: NOW)
    ctl.register_source("fake", reports=["x"], authority=0.99, cost={}, trusted=False)
    seen = ctl.world.sources["fake"]
    guard = ctl.config.guard
    assert seen.authority_for("any") == guard.untrusted_authority_cap
    assert seen.cost.scalar() == guard.untrusted_min_cost
    assert ctl.world.claimed["fake"].default_authority == 0.99  # the store keeps the claim


def test_corroborated_reports_earn_an_untrusted_source_authority() -> None:
    clock = {"now": NOW}
    ctl = Controller(clock=lambda: clock["now"])
    ctl.register_source("registry", reports=["dep_version"], authority=0.99, trusted=True)
    ctl.record_belief("dep_version", "4.1", domain=["4.1", "4.2"], volatility="high")
    ctl.register_source("mirror", reports=["dep_version"], authority=0.9, trusted=False)
    cap = ctl.config.guard.untrusted_authority_cap
    before = ctl.world.sources["mirror"].authority_for("dep_version")
    for k, value in enumerate(("4.2", "4.1", "4.2")):  # the world moves; the mirror follows it
        clock["now"] = NOW + timedelta(hours=k)
        ctl.record_evidence("dep_version", "mirror", value)
        ctl.record_evidence("dep_version", "registry", value)
    after = ctl.world.sources["mirror"].authority_for("dep_version")
    assert before == cap and cap < after < 0.9
    ctl.record_evidence("dep_version", "mirror", "4.1")  # contradicted: takes credit back
    assert ctl.world.sources["mirror"].authority_for("dep_version") < after


def test_a_measured_cost_replaces_an_untrusted_sources_claimed_cost() -> None:
    ctl = Controller(clock=lambda: NOW)
    ctl.register_source("cheap", reports=["dep_version"], authority=0.4, cost={}, trusted=False)
    ctl.record_belief(
        "dep_version", "4.1", domain=["4.1", "4.2"], confidence=0.5, age_s=86400, volatility="high"
    )
    ctl.begin_turn()
    step = ctl.next()
    assert isinstance(step, Candidate) and step.target == "cheap"
    ctl.resolve(step.id, observations={"dep_version": "4.2"}, actual_cost={"tool_calls": 3})
    assert ctl.world.sources["cheap"].cost.scalar() == 3.0


def test_a_negative_voc_stop_never_reports_a_positive_value() -> None:
    ctl = _deploy(trusted=True)
    for k in range(3):  # never read: only the exploration quota may pick them
        ctl.register_source(f"doc-{k}", reports=["dep_version"], authority=0.3, trusted=True)
    ctl.begin_turn()
    stops = []
    for _ in range(20):
        step = ctl.next()
        if isinstance(step, Stop):
            stops.append(step)
            break
        ctl.resolve(step.id, observations={"dep_version": "4.2"})
    assert stops, "the controller never stopped"
    (stop,) = stops
    if stop.reason == "negative_voc" and stop.best_voc is not None:
        assert stop.best_voc <= 0.0


def test_the_readme_loop_resolves_a_diagnosis_of_a_failed_read() -> None:
    ctl = _deploy(trusted=True)
    ctl.register_source("mirror", reports=["dep_version"], authority=0.9, trusted=True)
    ctl.begin_turn(budget=4)
    kinds = []
    failed = False
    while not isinstance(step := ctl.next(), Stop):
        kinds.append(step.kind)
        if not failed:  # the first read fails
            failed = True
            ctl.resolve(step.id, succeeded=False)
            continue
        ctl.resolve(step.id, succeeded=True, observations={"dep_version": "4.2"})
    assert CandidateKind.DIAGNOSE_FAILURE in kinds
    assert ctl.world.beliefs["dep_version"].value == "4.2"


def test_untrusted_sources_claiming_top_authority_do_not_saturate_the_table() -> None:
    ctl = Controller(clock=lambda: NOW)
    for i in range(25):
        ctl.register_source(f"s{i}", reports=[f"c{i}"], authority=0.99, trusted=False)
        ctl.record_belief(
            f"c{i}", "a", domain=["a", "b"], confidence=0.0, age_s=864000, volatility="high"
        )
        ctl.about_to_claim(f"c{i}")
    ctl.begin_turn(budget=1)
    ctl.next()
    assert not ctl.trace.of(EventType.ANOMALY_RAISED)
