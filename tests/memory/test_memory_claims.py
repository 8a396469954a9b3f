"""Claims, sources and evidence."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.memory import Store
from heedful.model.claim import Claim, ClaimType, Evidence, Justification, SourceRecord
from heedful.model.scenario import Cost, Volatility


def _claim(cid: str = "c1", value: str = "4.1", **kw: object) -> Claim:
    data: dict[str, object] = {
        "id": cid,
        "subject": "dep_version",
        "value": value,
        "domain": ("4.1", "4.2"),
        "claim_type": ClaimType.LIVE_SYSTEM_STATE,
        "volatility": Volatility.HIGH,
        "origin": "summary",
        "confidence": 0.9,
        "observed_at": 100.0,
    }
    data.update(kw)
    return Claim.model_validate(data)


REGISTRY = SourceRecord(
    id="registry",
    kind="live_instrument",
    authority={ClaimType.LIVE_SYSTEM_STATE: 0.99, ClaimType.HISTORICAL: 0.2},
    default_authority=0.5,
    trusted=True,
    cost=1.0,
)


def test_claim_round_trips_with_all_fields(store: Store) -> None:
    store.add_source(REGISTRY)
    claim = _claim(source_id="registry")
    store.add_claim(claim)
    assert store.get_claim("c1") == claim


def test_claim_values_keep_their_json_type(store: Store) -> None:
    for i, value in enumerate([1, 2.5, True, None, "x"]):
        store.add_claim(Claim(id=f"v{i}", subject="s", value=value, observed_at=0.0))
        assert store.get_claim(f"v{i}").value == value
        assert type(store.get_claim(f"v{i}").value) is type(value)


def test_observed_at_accepts_datetime() -> None:
    when = datetime(2026, 1, 1, tzinfo=UTC)
    assert Claim(id="c", subject="s", value=1, observed_at=when).observed_at == when.timestamp()


def test_duplicate_claim_id_is_rejected(store: Store) -> None:
    store.add_claim(_claim())
    with pytest.raises(InvalidArgumentError, match="already exists"):
        store.add_claim(_claim())


def test_value_outside_domain_is_rejected(store: Store) -> None:
    with pytest.raises(InvalidArgumentError, match="outside the domain"):
        store.add_claim(_claim(value="9.9"))


def test_unknown_claim_raises_unknown_name(store: Store) -> None:
    with pytest.raises(UnknownNameError, match="nope"):
        store.get_claim("nope")


def test_claim_with_unknown_source_is_rejected(store: Store) -> None:
    with pytest.raises(UnknownNameError, match="source"):
        store.add_claim(_claim(source_id="ghost"))


def test_claims_filter_by_subject_type_and_dirty(store: Store) -> None:
    store.add_claim(_claim("a"))
    store.add_claim(_claim("b", subject="other", claim_type=ClaimType.HISTORICAL))
    store.mark_dirty("b", "test")
    assert [c.id for c in store.claims(subject="dep_version")] == ["a"]
    assert [c.id for c in store.claims(claim_type=ClaimType.HISTORICAL)] == ["b"]
    assert [c.id for c in store.claims(dirty=False)] == ["a"]


def test_authority_is_claim_type_specific(store: Store) -> None:
    store.add_source(REGISTRY)
    assert store.authority("registry", ClaimType.LIVE_SYSTEM_STATE) == 0.99
    assert store.authority("registry", ClaimType.HISTORICAL) == 0.2
    assert store.authority("registry", "something_else") == 0.5


def test_add_source_replaces_existing_record(store: Store) -> None:
    store.add_source(REGISTRY)
    store.add_source(REGISTRY.model_copy(update={"cost": 3.0}))
    assert store.get_source("registry").cost == 3.0
    assert len(store.sources()) == 1


def test_negative_source_cost_is_rejected(store: Store) -> None:
    with pytest.raises(InvalidArgumentError, match="cost"):
        store.add_source(REGISTRY.model_copy(update={"cost": -1.0}))


def test_unknown_source_raises_unknown_name(store: Store) -> None:
    with pytest.raises(UnknownNameError, match="ghost"):
        store.get_source("ghost")


def test_agreeing_evidence_dirties_nothing(store: Store) -> None:
    store.add_source(REGISTRY)
    store.add_claim(_claim())
    result = store.add_evidence(
        Evidence(claim_id="c1", source_id="registry", value="4.1", observed_at=200.0)
    )
    assert not result.changed
    assert result.dirtied == frozenset()
    assert result.evidence.id is not None


def test_disagreeing_evidence_dirties_claim_and_dependents(store: Store) -> None:
    store.add_source(REGISTRY)
    store.add_claim(_claim())
    store.add_claim(_claim("plan", subject="plan", value=None, domain=None))
    store.add_justification(Justification(subject="plan", kind="derived_from", object="c1"))
    result = store.add_evidence(
        Evidence(claim_id="c1", source_id="registry", value="4.2", observed_at=200.0)
    )
    assert result.changed
    assert result.dirtied == {"c1", "plan"}
    assert store.get_claim("c1").dirty_reason == "evidence from registry reports '4.2'"


def test_adopted_evidence_updates_claim_and_dirties_only_dependents(store: Store) -> None:
    store.add_source(REGISTRY)
    store.add_claim(_claim())
    store.add_claim(_claim("plan", subject="plan", value=None, domain=None))
    store.add_justification(Justification(subject="plan", kind="derived_from", object="c1"))
    result = store.add_evidence(
        Evidence(claim_id="c1", source_id="registry", value="4.2", observed_at=200.0), adopt=True
    )
    claim = store.get_claim("c1")
    assert result.dirtied == {"plan"}
    assert (claim.value, claim.observed_at, claim.dirty) == ("4.2", 200.0, False)
    assert claim.confidence == 0.99
    assert claim.origin == "evidence:registry"


def test_evidence_outside_domain_is_rejected(store: Store) -> None:
    store.add_source(REGISTRY)
    store.add_claim(_claim())
    with pytest.raises(InvalidArgumentError, match="outside the domain"):
        store.add_evidence(Evidence(claim_id="c1", source_id="registry", value="5", observed_at=1))


def test_evidence_for_unknown_claim_or_source_raises_unknown_name(store: Store) -> None:
    store.add_source(REGISTRY)
    store.add_claim(_claim())
    with pytest.raises(UnknownNameError, match="claim"):
        store.add_evidence(Evidence(claim_id="x", source_id="registry", value="4.1", observed_at=1))
    with pytest.raises(UnknownNameError, match="source"):
        store.add_evidence(Evidence(claim_id="c1", source_id="x", value="4.1", observed_at=1))


def test_rejected_evidence_leaves_no_trace(store: Store) -> None:
    store.add_source(REGISTRY)
    store.add_claim(_claim())
    with pytest.raises(InvalidArgumentError):
        store.add_evidence(Evidence(claim_id="c1", source_id="registry", value="5", observed_at=1))
    assert store.evidence("c1") == []


def test_evidence_lists_oldest_first(store: Store) -> None:
    store.add_source(REGISTRY)
    store.add_claim(_claim())
    for t in (300.0, 100.0, 200.0):
        store.add_evidence(
            Evidence(claim_id="c1", source_id="registry", value="4.1", observed_at=t)
        )
    assert [e.observed_at for e in store.evidence("c1")] == [100.0, 200.0, 300.0]


def test_trusted_evidence_is_recorded_as_observation(store: Store) -> None:
    store.add_source(REGISTRY)
    store.add_source(SourceRecord(id="chat", trusted=False))
    store.add_claim(_claim())
    store.add_evidence(Evidence(claim_id="c1", source_id="registry", value="4.1", observed_at=1))
    store.add_evidence(Evidence(claim_id="c1", source_id="chat", value="4.2", observed_at=2))
    assert store.observations("dep_version") == [(1.0, "4.1")]


def test_update_claim_changes_value_and_dirties_dependents(store: Store) -> None:
    store.add_claim(_claim())
    store.add_claim(_claim("plan", subject="plan", value=None, domain=None))
    store.add_justification(Justification(subject="c1", kind="supports", object="plan"))
    assert store.update_claim("c1", value="4.2", observed_at=500.0) == {"plan"}
    assert store.get_claim("c1").value == "4.2"


def test_update_claim_with_same_value_dirties_nothing(store: Store) -> None:
    store.add_claim(_claim())
    store.add_claim(_claim("plan", subject="plan", value=None, domain=None))
    store.add_justification(Justification(subject="c1", kind="supports", object="plan"))
    assert store.update_claim("c1", value="4.1", observed_at=500.0) == set()
    assert store.get_claim("c1").observed_at == 500.0


def test_update_claim_rejects_bad_confidence(store: Store) -> None:
    store.add_claim(_claim())
    with pytest.raises(InvalidArgumentError, match="confidence"):
        store.update_claim("c1", value="4.1", observed_at=1.0, confidence=1.5)


def test_delete_claim_removes_its_justifications(store: Store) -> None:
    store.add_claim(_claim())
    store.add_claim(_claim("plan", subject="plan", value=None, domain=None))
    store.add_justification(Justification(subject="plan", kind="derived_from", object="c1"))
    store.delete_claim("c1")
    assert store.justifications("plan") == []


def test_p_stale_uses_claim_volatility_and_age(store: Store) -> None:
    store.add_claim(_claim(volatility=Volatility.HIGH, observed_at=0.0))
    # high = 0.5 per hour; two hours later: 1 - e^-1
    assert store.p_stale("c1", now=7200.0) == pytest.approx(0.6321205588)


def test_a_source_keeps_its_reports_cost_split_and_data_age(store: Store) -> None:
    source = SourceRecord(
        id="registry",
        reports=("dep_version", "compat"),
        cost_detail=Cost(tool_calls=1, tokens=180, latency_ms=900),
        age_s=60.0,
    )
    store.add_source(source)
    stored = store.get_source("registry")
    assert stored.reports == ("dep_version", "compat")
    assert stored.cost_detail == Cost(tool_calls=1, tokens=180, latency_ms=900)
    assert (stored.cost, stored.age_s) == (2.08, 60.0)


def test_a_cost_split_gives_the_scalar_cost() -> None:
    source = SourceRecord(id="s", cost_detail={"tool_calls": 1, "tokens": 500})
    assert source.cost == 1.5


def test_a_scalar_cost_that_contradicts_its_split_is_refused() -> None:
    with pytest.raises(ValidationError, match="does not match its split"):
        SourceRecord(id="s", cost=9.0, cost_detail={"tool_calls": 1})
