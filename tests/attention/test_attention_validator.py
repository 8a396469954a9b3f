from __future__ import annotations

from datetime import timedelta

from tests_attention_time import NOW

from heedful.attention.context import SourceInfo
from heedful.attention.validator import (
    ClaimValidator,
    EvidenceRecord,
    Requirement,
    ValidatorMode,
)

SOURCES = {
    "health": SourceInfo(
        id="health",
        reports=("feed_up",),
        authority={"live_system_state": 0.99, "absence_claim": 0.99},
    ),
    "summary": SourceInfo(id="summary", reports=("feed_up",), authority={"live_system_state": 0.4}),
}


def _ev(source: str, age_s: float, succeeded: bool = True) -> EvidenceRecord:
    return EvidenceRecord(
        id=f"ev-{source}-{age_s}",
        claim_id="feed_up",
        source_id=source,
        observed_at=NOW - timedelta(seconds=age_s),
        value="yes",
        succeeded=succeeded,
    )


def test_live_state_needs_authoritative_evidence_younger_than_300_s() -> None:
    v = ClaimValidator()
    assert v.check("feed_up", "live_system_state", [_ev("health", 299)], SOURCES, NOW).ok
    old = v.check("feed_up", "live_system_state", [_ev("health", 301)], SOURCES, NOW)
    assert not old.ok and old.violations == (Requirement.FRESH_AUTHORITATIVE,)


def test_fresh_evidence_from_a_weak_source_does_not_count() -> None:
    v = ClaimValidator().check("feed_up", "live_system_state", [_ev("summary", 1)], SOURCES, NOW)
    assert not v.ok and v.required_sources == ("health",)


def test_attention_only_mode_logs_but_does_not_block() -> None:
    v = ClaimValidator(mode=ValidatorMode.ATTENTION_ONLY).check(
        "feed_up", "live_system_state", [], SOURCES, NOW
    )
    assert not v.ok and not v.blocked


def test_production_mode_blocks_the_claim() -> None:
    v = ClaimValidator(mode=ValidatorMode.PRODUCTION).check(
        "feed_up", "live_system_state", [], SOURCES, NOW
    )
    assert v.blocked


def test_absence_claim_accepts_a_check_that_found_the_source_unavailable() -> None:
    v = ClaimValidator().check(
        "feed_up", "absence_claim", [_ev("health", 1e6, succeeded=False)], SOURCES, NOW
    )
    assert v.ok


def test_claim_types_without_a_policy_pass() -> None:
    assert ClaimValidator().check("x", "opinion", [], SOURCES, NOW).ok
