"""A flood of submitted candidates can no longer blind the controller (document 000 §24, §25)."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests_attention_time import NOW

from heedful.attention.config import AttentionConfig, GuardConfig
from heedful.attention.context import SourceInfo
from heedful.attention.controller import Controller, Stop
from heedful.attention.guard import Admission, Guard
from heedful.model.candidate import Candidate, CandidateKind, Floor, Trigger


def _victim(clock: dict[str, object], config: AttentionConfig | None = None) -> Controller:
    """A controller about to act on a stale belief only the registry can refresh."""
    ctl = Controller(clock=lambda: clock["now"], config=config or AttentionConfig())  # type: ignore[arg-type,return-value]
    ctl.register_source("registry", reports=["dep"], authority=0.99, trusted=True)
    return ctl


def _stale_and_claimed(ctl: Controller) -> None:
    ctl.record_belief(
        "dep", "a", domain=["a", "b"], confidence=0.6, age_s=86_400, volatility="high"
    )
    ctl.about_to_claim("dep")


def _submission(source: str, target: str, **kw: object) -> Candidate:
    return Candidate(
        id="pending",
        kind=CandidateKind.HANDLE_INTERRUPTION,
        target=target,
        trigger=Trigger.INTERRUPTION,
        origin=f"external:{source}",
        submitted_by=source,
        **kw,  # type: ignore[arg-type]
    )


def _flood(ctl: Controller, sources: list[str], turn: int, per_source: int) -> None:
    for s in sources:
        for i in range(per_source):
            ctl.submit(_submission(s, f"{s}-{turn}-{i}", floor=Floor.SAFETY_CRITICAL))


def test_400_sybils_inside_their_limits_never_blind_the_controller() -> None:
    clock: dict[str, object] = {"now": NOW}
    ctl = _victim(clock)
    sybils = [f"sybil-{k}" for k in range(400)]
    for s in sybils:
        ctl.register_source(s, trusted=False)
    selected, sizes = [], []
    for turn in range(6):
        ctl.begin_turn()
        _stale_and_claimed(ctl)
        _flood(ctl, sybils, turn, ctl.config.guard.untrusted_rate_per_turn)
        step = ctl.next()
        selected.append(step.target if isinstance(step, Candidate) else "stop")
        sizes.append(len(ctl.guard.table))
    assert selected == ["registry"] * 6
    assert max(sizes) <= ctl.config.guard.table_size
    assert ctl.guard.table.submitted <= ctl.guard.submitted_capacity
    assert ctl.saturation.flood and ctl.saturation.anomalous


def test_one_source_registered_with_defaults_is_untrusted() -> None:
    clock: dict[str, object] = {"now": NOW}
    ctl = _victim(clock)
    ctl.register_source("solo")
    live = ctl.submit(_submission("solo", "boom", floor=Floor.SAFETY_CRITICAL, loss_if_wrong=1e6))
    assert live is not None and live.floor is None and live.loss_if_wrong == 0.0
    ctl.begin_turn()
    for i in range(5_000):
        ctl.submit(_submission("solo", f"e-{i}"))
    assert ctl.guard.table.count_for("solo") <= ctl.config.guard.untrusted_quota


def test_submitted_candidates_without_an_expiry_expire_by_default() -> None:
    clock: dict[str, object] = {"now": NOW}
    ctl = _victim(clock)
    ctl.register_source("feed")
    ctl.begin_turn()
    live = ctl.submit(_submission("feed", "e-1"))
    assert live is not None and live.expires_at is not None
    clock["now"] = NOW + timedelta(seconds=ctl.config.guard.submitted_ttl_s)
    ctl.refresh()
    assert ctl.guard.table.submitted == 0


def test_the_controller_evicts_the_lowest_value_untrusted_candidate_when_full() -> None:
    sources = {f"s{k}": SourceInfo(id=f"s{k}") for k in range(10)}
    guard = Guard(GuardConfig(table_size=10, controller_reserve=0.2), sources)
    for k in range(10):
        status, live = guard.admit(_submission(f"s{k}", f"e{k}"))
        if k < 8:
            assert status is Admission.CREATED and live is not None
            guard.table.put(live.model_copy(update={"predicted_voc": float(k)}))
        else:
            assert status is Admission.TABLE_FULL  # the reserve is not for submissions
    for k in range(3):
        own = Candidate(
            id="pending", target=f"own{k}", trigger=Trigger.STALE_BELIEF, origin="stale_belief"
        )
        assert guard.admit(own)[0] is Admission.CREATED
    assert len(guard.table) == 10 and guard.evicted == 1
    assert guard.table.find("handle_interruption", "e0") is None  # the lowest value went
    assert guard.table.find("handle_interruption", "e1") is not None


def test_a_trusted_floor_may_use_the_reserve_but_an_untrusted_one_may_not() -> None:
    sources = {"ops": SourceInfo(id="ops", trusted=True), "feed": SourceInfo(id="feed")}
    guard = Guard(GuardConfig(table_size=5, controller_reserve=0.4, trusted_quota=10), sources)
    for k in range(3):
        assert guard.admit(_submission("ops", f"o{k}"))[0] is Admission.CREATED
    floor = _submission("feed", "f", floor=Floor.SAFETY_CRITICAL)
    assert guard.admit(floor)[0] is Admission.TABLE_FULL
    trusted_floor = _submission("ops", "g", floor=Floor.SAFETY_CRITICAL)
    assert guard.admit(trusted_floor)[0] is Admission.CREATED


SCHEDULE = st.lists(
    st.tuples(
        st.integers(0, 40),  # sybils active this turn
        st.integers(0, 25),  # submissions per sybil
        st.integers(0, 4_000),  # seconds the clock advances
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schedule=SCHEDULE, size=st.integers(20, 120))
def test_no_flood_schedule_blinds_the_controller_or_grows_the_table(
    schedule: list[tuple[int, int, int]], size: int
) -> None:
    clock: dict[str, object] = {"now": NOW}
    ctl = _victim(clock, AttentionConfig(guard=GuardConfig(table_size=size)))
    sybils = [f"sybil-{k}" for k in range(40)]
    for s in sybils:
        ctl.register_source(s)
    for turn, (active, per_source, advance) in enumerate(schedule):
        clock["now"] = clock["now"] + timedelta(seconds=advance)  # type: ignore[operator]
        ctl.begin_turn()
        _stale_and_claimed(ctl)
        _flood(ctl, sybils[:active], turn, per_source)
        step = ctl.next()
        assert not isinstance(step, Stop) and step.target == "registry"
        assert len(ctl.guard.table) <= size
        assert ctl.guard.table.submitted <= ctl.guard.submitted_capacity


def _aliases_then_registry(claim_it: bool, config: AttentionConfig) -> Controller:
    """Many cheap low-authority sources for one claim, registered before the authoritative one
    (an agent that registers every source a hostile page names, then its real instrument)."""
    ctl = Controller(clock=lambda: NOW, config=config)
    for i in range(3 * (config.guard.generator_quota or 0)):
        ctl.register_source(f"alias-{i}", reports=["dep"], authority=0.1, trusted=True)
    ctl.register_source("registry", reports=["dep"], authority=0.99, trusted=True)
    ctl.record_belief("dep", "a", domain=["a", "b"], confidence=0.6, age_s=86_400)
    if claim_it:
        ctl.about_to_claim("dep")  # the object path (a pending claim leaves the column path)
    return ctl


def test_sources_registered_first_cannot_crowd_out_a_more_authoritative_one() -> None:
    config = AttentionConfig(guard=GuardConfig(generator_quota=20))
    for claim_it in (False, True):
        ctl = _aliases_then_registry(claim_it, config)
        ctl.begin_turn(1)
        step = ctl.next()
        assert not isinstance(step, Stop)
        assert step.target == "registry", claim_it
        # Still bounded: each generator holds at most its quota.
        assert len(ctl.candidates) <= 3 * (config.guard.generator_quota or 0)
