"""Trust that follows the evidence (document 000 §24; issue 24 item 3 follow-up).

An untrusted source's authority cap moves with its record against trusted reports on the same
claims: chance-corrected (a reporter at random earns ~0, where counting matches alone credited it
about half its reports), contradictions count against, and each pair is weighed by the chance the
claim stayed the same between the two observations, so an honest source is not punished for a
change of the world between the reads.
"""

from __future__ import annotations

import math
from datetime import timedelta
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from tests_attention_time import NOW

from heedful.attention.config import DEFAULT_HAZARDS_PER_HOUR, GuardConfig
from heedful.attention.controller import Controller
from heedful.attention.world import Corroboration, World
from heedful.memory import Store
from heedful.model.claim import Claim, Evidence, SourceRecord
from heedful.model.scenario import Volatility

CAP = GuardConfig().untrusted_authority_cap
K = GuardConfig().trust_pseudo_count
CLAIMED = 0.95


def _world(domain: tuple[str, ...] = ("a", "b"), volatility: str = "medium") -> World:
    world = World()
    world.register_source("registry", reports=["x"], authority=0.99, trusted=True)
    world.register_source("web", reports=["x"], authority=CLAIMED, trusted=False)
    world.record_belief("x", domain[0], now=NOW, domain=domain, volatility=volatility)
    return world


def _rounds(world: World, reports: list[tuple[str, str]], step_s: float = 60.0) -> int:
    """Each round: the registry reports the truth, then the untrusted source reports; returns how
    many of its reports matched (what the old rule counted)."""
    now, matches = NOW, 0
    for truth, said in reports:
        now += timedelta(seconds=step_s)
        world.record_evidence("x", "registry", truth, now=now)
        world.record_evidence("x", "web", said, now=now)
        matches += said == truth
    return matches


def _credited(world: World) -> float:
    return world.sources["web"].authority_for("x")


def _earned(world: World) -> float:
    return world.corroboration.get("web", Corroboration()).earned(K)


def _old_rule(matches: int) -> float:
    """The authority the rule before this change credited: matches only, n / (n + k)."""
    return CAP + (CLAIMED - CAP) * matches / (matches + K)


def test_an_honest_source_earns_as_before() -> None:
    world = _world()
    rng = np.random.default_rng(1)
    truths = [str(rng.choice(["a", "b"])) for _ in range(20)]
    matches = _rounds(world, [(t, t) for t in truths])
    assert matches == 20
    assert math.isclose(_credited(world), _old_rule(20))  # 0.7 + 0.25 · 20/25 = 0.9
    assert _credited(world) > 0.89


def test_a_random_reporter_earns_about_nothing_where_counting_matches_credited_it() -> None:
    world = _world()
    rng = np.random.default_rng(7)
    truths = [str(rng.choice(["a", "b"])) for _ in range(400)]
    said = [str(rng.choice(["a", "b"])) for _ in range(400)]
    matches = _rounds(world, list(zip(truths, said, strict=True)))
    assert 150 < matches < 250  # it matched about half the time, by chance
    assert _old_rule(matches) > CAP + 0.9 * (CLAIMED - CAP)  # the old rule: ~all the way up
    assert abs(_earned(world)) < 0.15
    assert abs(_credited(world) - CAP) < 0.15 * CAP


def test_a_source_that_always_contradicts_loses_credit_below_the_cap() -> None:
    world = _world()
    flip = {"a": "b", "b": "a"}
    credits = []
    for k in range(10):
        truth = "ab"[k % 2]
        _rounds(world, [(truth, flip[truth])])
        credits.append(_credited(world))
    assert credits == sorted(credits, reverse=True)  # every contradiction costs
    assert credits[-1] < CAP / 2  # 0.7 · (1 − 10/15)
    assert math.isclose(credits[-1], CAP * (1 - 10 / (10 + K)))


def test_a_contradiction_on_a_larger_domain_weighs_by_the_chance_of_matching() -> None:
    world = _world(domain=("a", "b", "c", "d", "e"))
    _rounds(world, [("a", "b")])
    record = world.corroboration["web"]
    assert math.isclose(record.weight, 1.0) and math.isclose(record.net, -1 / 4)


def test_an_honest_source_is_not_punished_when_the_world_changed_between_the_reads() -> None:
    world = _world(volatility="high")  # λ = 0.5 per hour
    world.record_evidence("x", "registry", "a", now=NOW)
    later = NOW + timedelta(hours=12)
    world.record_evidence("x", "web", "b", now=later)  # it changed; the source says so
    w = math.exp(-DEFAULT_HAZARDS_PER_HOUR[Volatility.HIGH] * 12)
    assert math.isclose(world.corroboration["web"].weight, w)
    assert _credited(world) > CAP * 0.999
    # The same contradiction between reads of the same moment does cost it.
    near = _world(volatility="high")
    near.record_evidence("x", "registry", "a", now=later)
    near.record_evidence("x", "web", "b", now=later)
    assert _credited(near) < CAP * 0.9


def test_a_trusted_read_nearer_in_time_replaces_the_judgment() -> None:
    world = _world(volatility="high")
    world.record_evidence("x", "registry", "a", now=NOW)
    later = NOW + timedelta(hours=2)
    world.record_evidence("x", "web", "b", now=later)  # far from the registry's read: weak
    assert world.corroboration["web"].net < 0
    world.record_evidence("x", "registry", "b", now=later)  # the registry now agrees
    record = world.corroboration["web"]
    assert math.isclose(record.weight, 1.0) and math.isclose(record.net, 1.0)
    assert math.isclose(_credited(world), _old_rule(1))


def test_claiming_old_data_makes_matches_count_for_nothing_too() -> None:
    world = World()
    world.register_source("registry", reports=["x"], authority=0.99, trusted=True)
    world.register_source("old", reports=["x"], authority=CLAIMED, age_s=86_400 * 30)
    world.record_belief("x", "a", now=NOW, domain=("a", "b"), volatility="high")
    for k in range(50):
        now = NOW + timedelta(minutes=k)
        world.record_evidence("x", "registry", "a", now=now)
        world.record_evidence("x", "old", "a", now=now)  # always matches, "from a month ago"
    assert world.sources["old"].authority_for("x") < CAP + 1e-6


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 6),
    accuracy=st.floats(0.85, 1.0),
)
def test_over_seeds_honest_earns_random_does_not_and_liars_lose(
    seed: int, n: int, accuracy: float
) -> None:
    domain = tuple("abcdef"[:n])
    rng = np.random.default_rng(seed)
    truths = [str(rng.choice(domain)) for _ in range(300)]

    def honest(t: str) -> str:
        return t if rng.random() < accuracy else str(rng.choice([v for v in domain if v != t]))

    def liar(t: str) -> str:
        return str(rng.choice([v for v in domain if v != t]))

    def random_(t: str) -> str:
        return str(rng.choice(domain))

    earned = {}
    for name, report in [("honest", honest), ("random", random_), ("liar", liar)]:
        world = _world(domain)
        matches = _rounds(world, [(t, report(t)) for t in truths])
        earned[name] = _earned(world)
        if name == "random":  # the old rule credited its luck: above the bound set below
            assert matches / (matches + K) > 0.8
    assert earned["honest"] > 0.6
    assert abs(earned["random"]) < 0.2
    assert earned["liar"] < -0.15


def _untrusted_store(path: Path) -> None:
    """A store as an older heedful wrote it: sources and evidence, no trust state of any kind."""
    store = Store.open(path)
    store.add_source(SourceRecord(id="registry", kind="api", authority={}, trusted=True))
    store.add_source(SourceRecord(id="liar", kind="doc", default_authority=CLAIMED))
    store.add_source(SourceRecord(id="honest", kind="doc", default_authority=CLAIMED))
    store.add_claim(
        Claim(
            id="x",
            subject="x",
            value="a",
            domain=("a", "b"),
            claim_type="x",
            volatility=Volatility.MEDIUM,
            origin="test",
            confidence=0.9,
            observed_at=NOW.timestamp(),
        )
    )
    for k in range(6):
        at = NOW.timestamp() + 60 * k
        truth = "ab"[k % 2]
        for source, value in [("registry", truth), ("honest", truth), ("liar", "ba"[k % 2])]:
            store.add_evidence(
                Evidence(claim_id="x", source_id=source, value=value, observed_at=at)
            )
    store.close()


def test_a_store_written_before_the_rule_loads_with_what_its_reports_earned(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    _untrusted_store(path)
    ctl = Controller(path, clock=lambda: NOW + timedelta(hours=1))
    sources = ctl.world.sources
    assert math.isclose(sources["honest"].authority_for("x"), _old_rule(6))
    assert math.isclose(sources["liar"].authority_for("x"), CAP * (1 - 6 / (6 + K)))
    assert ctl.world.claimed["liar"].default_authority == CLAIMED


def test_the_trust_record_round_trips_through_the_store(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    clock = {"now": NOW}
    first = Controller(path, clock=lambda: clock["now"])
    first.register_source("registry", reports=["x"], authority=0.99, trusted=True)
    first.register_source("web", reports=["x"], authority=CLAIMED)
    first.register_source("liar", reports=["x"], authority=CLAIMED)
    first.record_belief("x", "a", domain=["a", "b"], volatility="high")
    rng = np.random.default_rng(3)
    for k in range(8):
        clock["now"] = NOW + timedelta(minutes=20 * k)
        truth = str(rng.choice(["a", "b"]))
        if k != 3:  # one round without a trusted read: a pair far apart in time
            first.record_evidence("x", "registry", truth)
        first.record_evidence("x", "web", truth)
        first.record_evidence("x", "liar", "b" if truth == "a" else "a")
    kept = dict(first.world.corroboration)
    credited = {s: first.world.sources[s].authority_for("x") for s in ("web", "liar")}
    assert kept["web"].net > 0 > kept["liar"].net
    assert first.store is not None
    first.store.close()
    again = Controller(path, clock=lambda: clock["now"])
    for sid, record in kept.items():
        assert math.isclose(again.world.corroboration[sid].weight, record.weight)
        assert math.isclose(again.world.corroboration[sid].net, record.net)
    for sid, authority in credited.items():
        assert math.isclose(again.world.sources[sid].authority_for("x"), authority)
    # Reports after the reopen are judged against what was loaded, as if it never closed.
    again.record_evidence("x", "registry", "a")
    again.record_evidence("x", "web", "a")
    assert again.world.corroboration["web"].weight > kept["web"].weight


def _measured_once(path: Path) -> Controller:
    """A controller over ``path`` that read the untrusted ``cheap`` once, at a measured 3 calls."""
    ctl = Controller(path, clock=lambda: NOW)
    ctl.register_source("cheap", reports=["v"], authority=0.4, cost={}, trusted=False)
    ctl.record_belief("v", "a", domain=["a", "b"], confidence=0.5, age_s=86400, volatility="high")
    ctl.begin_turn()
    step = ctl.next()
    assert step.target == "cheap"  # type: ignore[union-attr]
    ctl.resolve(step.id, observations={"v": "b"}, actual_cost={"tool_calls": 3, "tokens": 500})
    return ctl


def test_a_measured_cost_survives_a_reopen(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    first = _measured_once(path)
    measured = first.world.sources["cheap"].cost
    assert measured.tool_calls == 3 and measured.tokens == 500
    assert first.store is not None
    first.store.close()
    again = Controller(path, clock=lambda: NOW)
    # Charged what was measured, not the claimed zero floored to untrusted_min_cost.
    assert again.world.sources["cheap"].cost == measured
    assert again.world.claimed["cheap"].cost.scalar() == 0.0  # the registration as made
    with Store.open(path) as store:
        assert store.get_source("cheap").measured_cost == measured


def test_registering_a_measured_source_again_keeps_its_measured_cost(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    first = _measured_once(path)
    measured = first.world.sources["cheap"].cost
    first.register_source("cheap", reports=["v"], authority=0.4, cost={}, trusted=False)
    assert first.world.sources["cheap"].cost == measured
    assert first.store is not None
    first.store.close()
    assert Controller(path, clock=lambda: NOW).world.sources["cheap"].cost == measured


def test_a_trusted_sources_cost_is_as_registered_whatever_a_resolve_reports(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.db"
    ctl = Controller(path, clock=lambda: NOW)
    ctl.register_source(
        "registry", reports=["v"], authority=0.99, cost={"tool_calls": 1}, trusted=True
    )
    ctl.record_belief("v", "a", domain=["a", "b"], confidence=0.5, age_s=86400, volatility="high")
    ctl.begin_turn()
    step = ctl.next()
    assert step.target == "registry"  # type: ignore[union-attr]
    ctl.resolve(step.id, observations={"v": "b"}, actual_cost={"tool_calls": 7})
    assert ctl.world.sources["registry"].cost.tool_calls == 1
    assert ctl.store is not None
    ctl.store.close()
    with Store.open(path) as store:
        assert store.get_source("registry").measured_cost is None
