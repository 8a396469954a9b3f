"""The controller's view of the agent's world: sources, beliefs, evidence, goals, decision.

In-memory registries with precise input checks. Evidence updates beliefs by Bayes' rule under the
same observation model the model-based estimator uses: a source of claim-specific authority ``a``
whose data is ``t`` seconds old reports the current value with reliability
``r = a·exp(−λ·t)`` and otherwise a uniform draw over the domain.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from pydantic import ValidationError

from heedful.attention.config import DEFAULT_HAZARDS_PER_HOUR, GuardConfig
from heedful.attention.context import (
    ClaimState,
    DecisionModel,
    SourceInfo,
    current_marginal,
    p_stale,
)
from heedful.attention.validator import EvidenceRecord
from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.model.goal import Goal
from heedful.model.scenario import Cost, Volatility

__all__ = [
    "BeliefRecord",
    "Corroboration",
    "World",
    "as_cost",
    "observation_accuracy",
    "report_likelihood",
]


def as_cost(cost: Cost | Mapping[str, Any] | None, where: str) -> Cost:
    """Coerce a cost; a negative or unknown field raises :class:`InvalidArgumentError`."""
    if cost is None:
        return Cost()
    if isinstance(cost, Cost):
        return cost
    try:
        return Cost(**dict(cost))
    except (ValidationError, TypeError) as exc:
        raise InvalidArgumentError(f"{where}: invalid cost {dict(cost)!r}: {exc}") from None


def observation_accuracy(
    authority: float,
    source_age_s: float,
    volatility: Volatility,
    hazards: Mapping[Volatility, float],
    domain_size: int,
    max_accuracy: float = 0.99,
) -> float:
    """P(a report equals the current value): ``(1 − s)·authority + s/n``.

    ``s`` is the p_stale of the source's data; the result is clipped to ``[1/n, max_accuracy]``.
    Wrong reports are uniform over the other values.
    """
    n = max(domain_size, 1)
    s = p_stale(source_age_s, volatility, hazards)
    return min(max((1.0 - s) * authority + s / n, 1.0 / n), max_accuracy)


def report_likelihood(accuracy: float, domain_size: int, reported: int) -> np.ndarray:
    """L(report = ``reported`` | true value) over the domain."""
    n = domain_size
    like = np.full(n, (1.0 - accuracy) / (n - 1) if n > 1 else 1.0)
    like[reported] = accuracy
    return like


@dataclass(frozen=True)
class BeliefRecord:
    """A stored belief: value, confidence, when its evidence was observed, and its type."""

    claim_id: str
    claim_type: str
    value: str | None
    confidence: float
    observed_at: datetime
    volatility: Volatility
    domain: tuple[str, ...] | None
    dirty: bool = False
    source_id: str | None = None
    distribution: tuple[float, ...] | None = None
    hazard_per_hour: float | None = None


@dataclass(frozen=True)
class Corroboration:
    """What an untrusted source's reports earned against trusted reports on the same claims.

    Each of its reports is judged once, against the trusted report on the same claim most likely
    to describe the same world — the one whose observation time is nearest its own. The pair
    counts with weight ``w = P(no change between the two observation times) = exp(−λ·|Δt|)``
    (λ: the hazard of the claim's volatility class). A match adds ``w`` to
    ``net``; a mismatch subtracts ``w/(n − 1)`` for a claim of ``n`` values (``n = 2`` when the
    domain is unknown, so a mismatch weighs as much as a match); ``weight`` sums ``w``.

    ``net`` is chance-corrected: a reporter drawing uniformly at random matches with probability
    ``1/n``, so its expected ``net`` is 0 whatever the weights, while an honest one's is
    ``w²`` per pair (positive even when the world changed between the reads: it matches with
    ``w + (1 − w)/n``). Weighing matches and mismatches alike is what keeps a chance match from
    earning anything — a source that claims old data (a long ``age_s``) to make its mismatches
    count for nothing makes its matches count for nothing too.

    Attributes:
        weight: Sum of the pairs' weights.
        net: Weighted matches minus weighted, chance-scaled mismatches.
    """

    weight: float = 0.0
    net: float = 0.0
    #: Weighted matches beyond the agreement the claim's base rates give by chance, summed over
    #: its claims: ``Σ_c (O_c − W_c·p_c)`` (see :meth:`lift`).
    beyond: float = 0.0
    #: The most that could be: ``Σ_c W_c·(1 − p_c)``.
    room: float = 0.0

    def lift(self, pseudo_count: float) -> float:
        """How far above the cap the source is credited, toward its claim, in [0, 1).

        Agreement corrected for the chance agreement of the *base rates* (Cohen's κ): on claim
        ``c`` its judged reports weigh ``W_c``, matched ``O_c``, and ``p_c = Σ_v u_c(v)·t_c(v)``
        is the agreement two reporters drawing from its own report frequencies ``u_c`` and the
        trusted reports' ``t_c`` would reach (both weighed like the pairs). A source that
        always reports the same value matches exactly as often as that (``u`` is one value:
        ``p_c = t_c(v) = O_c/W_c``), so it earns nothing however often the world has that
        value; on a claim trusted reads always found the same, honesty and constancy cannot be
        told apart, and nothing is earned either (``p_c = 1``). Shrunk by ``pseudo_count`` like
        :meth:`earned`; never negative (falling below the cap is :meth:`earned`'s)."""
        if pseudo_count <= 0:  # no shrinkage: the claim until a judged report says otherwise
            if self.room > 0:
                return max(self.beyond / self.room, 0.0)
            return 1.0 if self.weight <= 0 else 0.0
        return max(self.beyond / (self.room + pseudo_count), 0.0)

    def earned(self, pseudo_count: float) -> float:
        """The shrunk chance-corrected agreement ``net / (weight + pseudo_count)``, in (−1, 1).

        It is the source's agreement with trusted reports corrected for chance (κ with chance
        agreement 1/n), shrunk by ``pseudo_count`` prior reports at chance agreement; for ``m``
        matching reports and no mismatch it is the old rule's ``m / (m + pseudo_count)``.
        Positive lifts the authority cap toward the claim, negative lowers the credited
        authority toward 0 (an uninformative source).
        """
        if pseudo_count <= 0:  # no shrinkage: the claim until a judged report says otherwise
            return self.net / self.weight if self.weight > 0 else 1.0
        return self.net / (self.weight + pseudo_count)

    def plus(self, weight: float, score: float) -> Corroboration:
        """This record with one more judged pair (``score`` is ``+w`` or ``−w/(n − 1)``)."""
        return replace(self, weight=self.weight + weight, net=self.net + score)


@dataclass
class _PairTally:
    """One untrusted source's judged pairs on one claim: weights by its value and by the
    trusted value, total weight and weighted matches (what :meth:`Corroboration.lift` reads)."""

    weight: float = 0.0
    matched: float = 0.0
    said: dict[str, float] = field(default_factory=dict)
    found: dict[str, float] = field(default_factory=dict)

    def add(self, w: float, said: str, found: str) -> None:
        self.weight += w
        self.matched += w if said == found else 0.0
        self.said[said] = self.said.get(said, 0.0) + w
        self.found[found] = self.found.get(found, 0.0) + w

    def terms(self) -> tuple[float, float]:
        """``(O − W·p, W·(1 − p))`` of this claim (both 0 with no weight)."""
        if self.weight <= 0:
            return 0.0, 0.0
        p = sum(w * self.found.get(v, 0.0) for v, w in self.said.items()) / self.weight**2
        p = min(p, 1.0)
        return self.matched - self.weight * p, self.weight * (1.0 - p)


class World:
    """Registries of sources, beliefs, evidence and goals, with input validation.

    ``sources`` holds what candidate generation, estimation, admission and selection read — the
    priority side: for an untrusted source its claimed authority is capped and its claimed cost
    floored (document 000 §24) until outcomes earn it more or less (reports a trusted source's
    confirm lift the cap toward the claim, reports it contradicts lower it — see
    :class:`Corroboration` — and a measured cost replaces the claimed one). ``claimed`` keeps the
    registrations as made: the store persists them, belief updates and the claim validator
    weigh reports by them.

    Args:
        hazards_per_hour: λ per volatility class for freshness.
        max_accuracy: Highest accuracy any report is credited with.
        guard: The trust discount of untrusted sources (``untrusted_*``, ``trust_pseudo_count``).
        failure_prior_reads: Reads a stated failure rate counts as (:meth:`failure_rate`).
    """

    def __init__(
        self,
        hazards_per_hour: Mapping[Volatility, float] | None = None,
        max_accuracy: float = 0.99,
        guard: GuardConfig | None = None,
        failure_prior_reads: float = 4.0,
    ) -> None:
        self.hazards = dict(hazards_per_hour or DEFAULT_HAZARDS_PER_HOUR)
        self.max_accuracy = max_accuracy
        self.guard = guard or GuardConfig()
        self.sources: dict[str, SourceInfo] = {}
        self.claimed: dict[str, SourceInfo] = {}
        #: Untrusted source → its reports judged against trusted reports on the same claims.
        self.corroboration: dict[str, Corroboration] = {}
        #: Untrusted source → the cost a resolve reported for reading it.
        self.measured_cost: dict[str, Cost] = {}
        #: Source → (resolved reads, of which returned nothing).
        self.read_outcomes: dict[str, tuple[int, int]] = {}
        #: Prior reads the stated failure rate counts as (``failure_rate``; inf: never learned).
        self.failure_prior_reads = failure_prior_reads
        # Evidence id of an untrusted source's newest report on a claim → (weight, score) of its
        # judgment so far: a later trusted report nearer it in time replaces that judgment.
        self._judged: dict[str, tuple[float, float, str]] = {}  # … and the trusted value
        # (untrusted source, claim) → its judged pairs there; untrusted source → those claims.
        self._tallies: dict[tuple[str, str], _PairTally] = {}
        self._claims_of: dict[str, set[str]] = {}
        self._reported: dict[str, dict[str, EvidenceRecord]] = {}  # claim → source → newest
        self._deferred: set[str] | None = None  # sources to rediscount after a replay
        self.beliefs: dict[str, BeliefRecord] = {}
        self.evidence: list[EvidenceRecord] = []
        self.goals: dict[str, Goal] = {}
        self.decision: DecisionModel | None = None
        self.contradictions: dict[str, tuple[str, ...]] = {}
        self._evidence_ids = itertools.count(1)
        #: Bumped on every change of sources, goals or the decision (what candidates exist).
        self.version = 0
        #: Claims whose belief changed since the controller's columns last looked.
        self.touched: set[str] = set()
        self._latest_evidence: dict[tuple[str, str, bool], EvidenceRecord] = {}

    # -- registration ---------------------------------------------------------------------------

    def register_source(
        self,
        source_id: str,
        *,
        reports: tuple[str, ...] | list[str] = (),
        authority: float | Mapping[str, float] = 0.5,
        default_authority: float | None = None,
        cost: Cost | Mapping[str, Any] | None = None,
        age_s: float = 0.0,
        trusted: bool = False,
        kind: str = "document",
        failure_rate: float = 0.0,
        links: int = 0,
    ) -> SourceInfo:
        """Register (or replace) a source with trusted metadata (``failure_rate``: the stated
        probability that a read returns nothing; resolved reads move it, see
        :meth:`failure_rate`; ``links``: how many further sources one read of it names)."""
        if not source_id:
            raise InvalidArgumentError("source id must be non-empty")
        where = f"source {source_id!r}"
        try:
            if isinstance(authority, Mapping):
                table = {str(k): float(v) for k, v in authority.items()}
                default = max(table.values(), default=0.5)
            else:
                table, default = {}, float(authority)
            if default_authority is not None:
                default = float(default_authority)
        except (TypeError, ValueError):
            raise InvalidArgumentError(
                f"{where}: authority must be a number or claim type → number, got {authority!r}"
            ) from None
        for name, a in [*table.items(), ("default", default)]:
            if not 0.0 <= a <= 1.0:
                raise InvalidArgumentError(
                    f"{where}: authority for {name} must be in [0, 1], got {a}"
                )
        if not (math.isfinite(age_s) and age_s >= 0):
            raise InvalidArgumentError(f"{where}: age_s must be a finite number ≥ 0, got {age_s}")
        if not (isinstance(failure_rate, int | float) and 0.0 <= failure_rate < 1.0):
            raise InvalidArgumentError(
                f"{where}: failure_rate must be a number in [0, 1), got {failure_rate!r}"
            )
        if isinstance(links, bool) or not isinstance(links, int) or links < 0:
            raise InvalidArgumentError(f"{where}: links must be an integer ≥ 0, got {links!r}")
        info = SourceInfo(
            id=source_id,
            reports=tuple(reports),
            authority=table,
            default_authority=default,
            cost=as_cost(cost, where),
            age_s=float(age_s),
            trusted=trusted,
            kind=kind,
            failure_rate=float(failure_rate),
            links=links,
        )
        self.claimed[source_id] = info
        self.sources[source_id] = self._discounted(info)
        self.version += 1
        return info

    def failure_rate(self, source_id: str) -> float:
        """The probability a read of ``source_id`` returns nothing, as credited: the stated rate
        as ``failure_prior_reads`` prior reads, and the resolved reads (``record_read``) on top
        — ``(stated·m + failed) / (m + reads)``, a Beta posterior mean — so a flaky instrument
        registered as reliable is learned to be flaky, and one stated flaky that keeps answering
        is learned not to be."""
        info = self.claimed.get(source_id)
        stated = info.failure_rate if info is not None else 0.0
        reads, failed = self.read_outcomes.get(source_id, (0, 0))
        m = self.failure_prior_reads
        if math.isinf(m) or m + reads <= 0:
            return stated
        return (stated * m + failed) / (m + reads)

    def record_read(self, source_id: str, succeeded: bool) -> None:
        """A resolved read of ``source_id``: it returned something, or nothing."""
        reads, failed = self.read_outcomes.get(source_id, (0, 0))
        self.set_reads(source_id, reads + 1, failed + (not succeeded))

    def set_reads(self, source_id: str, reads: int, failed: int) -> None:
        """``source_id``'s resolved reads so far, of which ``failed`` returned nothing (a store's
        load); its credited failure rate follows."""
        self.read_outcomes[source_id] = (reads, failed)
        info = self.claimed.get(source_id)
        if info is None:
            return
        before = self.sources[source_id].failure_rate
        credited = self._discounted(info)
        self.sources[source_id] = credited
        if credited.failure_rate != before:
            self.version += 1

    def _discounted(self, info: SourceInfo) -> SourceInfo:
        """What the controller credits ``info`` with (document 000 §24): a trusted source as
        registered; an untrusted one with its authority capped — the cap lifted toward the claim
        by reports trusted sources confirm, the credit lowered toward 0 by reports they
        contradict (:class:`Corroboration`) — and its cost floored until a resolve measured it.
        Either way its failure rate is the one its resolved reads moved (:meth:`failure_rate`)."""
        rate = self.failure_rate(info.id)
        if info.failure_rate != rate:
            info = replace(info, failure_rate=rate)
        if info.trusted:
            return info
        g = self.guard
        record = self.corroboration.get(info.id, Corroboration())
        earned = record.earned(g.trust_pseudo_count)
        lift = record.lift(g.trust_pseudo_count)

        def credit(a: float) -> float:
            cap = g.untrusted_authority_cap
            if earned < 0:
                return min(a, cap) * (1.0 + earned)
            return a if a <= cap else cap + (a - cap) * max(lift, 0.0)

        cost = self.measured_cost.get(info.id)
        if cost is None:
            cost = info.cost
            short = g.untrusted_min_cost - cost.scalar()
            if short > 0:
                cost = cost.model_copy(update={"tool_calls": cost.tool_calls + short})
        return replace(
            info,
            authority={k: credit(a) for k, a in info.authority.items()},
            default_authority=credit(info.default_authority),
            cost=cost,
        )

    def _rediscount(self, source_id: str) -> None:
        info = self.claimed.get(source_id)
        if info is not None and not info.trusted:
            self.sources[source_id] = self._discounted(info)
            self.version += 1

    def measured(self, source_id: str, cost: Cost) -> bool:
        """A resolve reported what reading ``source_id`` cost: an untrusted source is charged
        that from now on instead of what it claimed. Returns whether that changed what it is
        charged (a store keeps it then, and a store's load calls this with what it kept)."""
        src = self.sources.get(source_id)
        if src is None or src.trusted or self.measured_cost.get(source_id) == cost:
            return False
        self.measured_cost[source_id] = cost
        self._rediscount(source_id)
        return True

    def corroborate(self, ev: EvidenceRecord) -> None:
        """Judge untrusted reports on ``ev``'s claim against trusted ones (:class:`Corroboration`).

        ``ev`` is a successful report, taken in the order reports arrived: recording evidence
        calls this, and so does a store's load for every stored report, oldest first, so a
        reopened controller credits its untrusted sources what they had earned.
        """
        reported = self._reported.setdefault(ev.claim_id, {})
        older = reported.get(ev.source_id)
        if older is not None:
            self._judged.pop(older.id, None)  # its judgment is final: only the newest is paired
        reported[ev.source_id] = ev
        # A report is judged only by trusted reports of the world at or after its own
        # observation: what it could not have seen (a source that tells the truth only when a
        # trusted read was just made, and lies when none was, is judged by the reads after it).
        if self.sources[ev.source_id].trusted:
            pairs = [
                (e, ev)
                for sid, e in reported.items()
                if not self.sources[sid].trusted and e.observed_at <= ev.observed_at
            ]
        else:
            pairs = [
                (ev, e)
                for sid, e in reported.items()
                if self.sources[sid].trusted and e.observed_at >= ev.observed_at
            ]
        dom = self.domain_of(ev.claim_id)
        n = len(dom) if dom is not None else 2
        if n < 2:
            return  # a one-value claim: every report matches, none says anything
        for untrusted, trusted in pairs:
            gap = abs((untrusted.observed_at - trusted.observed_at).total_seconds())
            w = self.p_unchanged(ev.claim_id, gap)
            before = self._judged.get(untrusted.id)
            if before is not None and before[0] >= w:
                continue  # judged already against a report at least as near in time
            assert untrusted.value is not None and trusted.value is not None
            score = w if untrusted.value == trusted.value else -w / (n - 1)
            self._judged[untrusted.id] = (w, score, trusted.value)
            sid = untrusted.source_id
            tally = self._tallies.setdefault((sid, ev.claim_id), _PairTally())
            record = self.corroboration.get(sid, Corroboration())
            if before is not None:
                record = record.plus(-before[0], -before[1])
                tally.add(-before[0], untrusted.value, before[2])
            tally.add(w, untrusted.value, trusted.value)
            record = record.plus(w, score)
            beyond, room = 0.0, 0.0
            for claim_id in self._claims_of.setdefault(sid, set()) | {ev.claim_id}:
                b, r = self._tallies[(sid, claim_id)].terms()
                beyond, room = beyond + b, room + r
            self._claims_of[sid].add(ev.claim_id)
            self.corroboration[sid] = replace(record, beyond=beyond, room=room)
            if self._deferred is None:
                self._rediscount(sid)
            else:
                self._deferred.add(sid)

    def replay(self, reports: Iterable[EvidenceRecord]) -> None:
        """:meth:`corroborate` each successful report, oldest first (a store's load), and
        recompute each untrusted source's credit once at the end rather than after each."""
        self._deferred = set()
        try:
            for ev in reports:
                if ev.succeeded and ev.value is not None:
                    self.corroborate(ev)
        finally:
            touched, self._deferred = self._deferred, None
            for sid in sorted(touched):
                self._rediscount(sid)

    def p_unchanged(self, claim_id: str, seconds: float) -> float:
        """P(the claim did not change in ``seconds``): ``exp(−λ·seconds)``, λ the hazard of the
        claim's volatility class (medium for a claim with no belief). The class's, not a learned
        rate: that moves with every revisit, and a store's load must judge the stored reports
        as they were judged when they came (the record round-trips exactly)."""
        b = self.beliefs.get(claim_id)
        rate = self.hazards[b.volatility if b is not None else Volatility.MEDIUM]
        return math.exp(-rate / 3600.0 * max(seconds, 0.0))

    def source(self, source_id: str) -> SourceInfo:
        """A registered source; :class:`UnknownNameError` otherwise."""
        try:
            return self.sources[source_id]
        except KeyError:
            known = ", ".join(sorted(self.sources)) or "none"
            raise UnknownNameError(f"unknown source {source_id!r} (registered: {known})") from None

    def add_goal(self, goal: Goal) -> None:
        """Add or replace a goal."""
        self.goals[goal.id] = goal
        self.version += 1

    def set_decision(self, decision: DecisionModel | None) -> None:
        """State (or clear) the decision the agent is about to make; checks beliefs' domains."""
        if decision is not None:
            for action, rules in decision.actions.items():
                for rule in rules:
                    for var, val in rule.when.items():
                        dom = decision.variables.get(var)
                        if dom is None:
                            raise UnknownNameError(f"action {action!r}: unknown variable {var!r}")
                        if val not in dom:
                            raise InvalidArgumentError(
                                f"action {action!r}: {var}={val!r} is outside {list(dom)}"
                            )
        self.decision = decision
        self.version += 1

    def domain_of(self, claim_id: str) -> tuple[str, ...] | None:
        """The claim's domain, from its belief or the stated decision."""
        b = self.beliefs.get(claim_id)
        if b is not None and b.domain is not None:
            return b.domain
        if self.decision is not None:
            return tuple(self.decision.variables.get(claim_id, ())) or None
        return None

    def record_belief(
        self,
        claim_id: str,
        value: str | None,
        *,
        now: datetime,
        claim_type: str | None = None,
        domain: tuple[str, ...] | list[str] | None = None,
        confidence: float = 1.0,
        age_s: float = 0.0,
        volatility: Volatility | str = Volatility.MEDIUM,
        source_id: str | None = None,
    ) -> BeliefRecord:
        """Record what the agent believes (e.g. from a summary), with the evidence's age."""
        if not 0.0 <= confidence <= 1.0:
            raise InvalidArgumentError(f"claim {claim_id!r}: confidence must be in [0, 1]")
        if not (math.isfinite(age_s) and age_s >= 0):
            raise InvalidArgumentError(
                f"claim {claim_id!r}: age_s must be a finite number ≥ 0, got {age_s}"
            )
        try:
            observed_at = now - timedelta(seconds=age_s)
        except OverflowError:
            raise InvalidArgumentError(
                f"claim {claim_id!r}: age_s {age_s} reaches before the calendar's start"
            ) from None
        try:
            vol = Volatility(volatility)
        except ValueError:
            raise InvalidArgumentError(
                f"claim {claim_id!r}: unknown volatility {volatility!r}"
            ) from None
        dom = tuple(domain) if domain is not None else self.domain_of(claim_id)
        if domain is not None and dom is not None and len(set(dom)) != len(dom):
            # A repeated value counts twice in every likelihood: a claim whose only value is
            # "a" would look changeable and its reads worth something (priority inflation).
            repeated = sorted({v for v in dom if dom.count(v) > 1})
            raise InvalidArgumentError(
                f"claim {claim_id!r}: domain values must be distinct, {repeated} repeated"
            )
        if value is not None and dom is not None and value not in dom:
            raise InvalidArgumentError(
                f"claim {claim_id!r}: value {value!r} is outside its domain {list(dom)}"
            )
        if source_id is not None:
            self.source(source_id)
        prev = self.beliefs.get(claim_id)
        rec = BeliefRecord(
            claim_id=claim_id,
            claim_type=claim_type or (prev.claim_type if prev else claim_id),
            value=value,
            confidence=confidence,
            observed_at=observed_at,
            volatility=vol,
            domain=dom,
            source_id=source_id,
        )
        self.beliefs[claim_id] = rec
        self.touched.add(claim_id)
        return rec

    def set_learned_hazard(self, claim_id: str, hazard_per_hour: float | None) -> None:
        """Use a learned change rate for this claim instead of its volatility class default."""
        if hazard_per_hour is not None and not hazard_per_hour >= 0.0:
            raise InvalidArgumentError(f"claim {claim_id!r}: hazard must be ≥ 0")
        self.beliefs[claim_id] = replace(self._belief(claim_id), hazard_per_hour=hazard_per_hour)
        self.touched.add(claim_id)

    def mark_dirty(self, claim_id: str) -> None:
        """Mark a belief for re-checking (its support changed)."""
        b = self._belief(claim_id)
        self.beliefs[claim_id] = replace(b, dirty=True)
        self.touched.add(claim_id)

    def require_claim(self, claim_id: str) -> None:
        """Raise :class:`UnknownNameError` unless the claim is known: a belief about it, a source
        that reports it, or a variable of the stated decision (a typo must not pass a check)."""
        if claim_id in self.beliefs or any(claim_id in s.reports for s in self.sources.values()):
            return
        if self.decision is not None and claim_id in self.decision.variables:
            return
        raise UnknownNameError(
            f"unknown claim {claim_id!r}: record a belief about it or register a source that "
            "reports it first"
        )

    def _belief(self, claim_id: str) -> BeliefRecord:
        try:
            return self.beliefs[claim_id]
        except KeyError:
            raise UnknownNameError(f"unknown claim {claim_id!r}") from None

    # -- evidence -------------------------------------------------------------------------------

    def claim_state(self, claim_id: str, now: datetime) -> ClaimState:
        """The belief as a :class:`ClaimState` (age computed at ``now``)."""
        b = self.beliefs.get(claim_id)
        if b is None:
            dom = self.domain_of(claim_id)
            return ClaimState(id=claim_id, claim_type=claim_id, value=None, domain=dom)
        return ClaimState(
            id=b.claim_id,
            claim_type=b.claim_type,
            value=b.value,
            domain=b.domain,
            confidence=b.confidence,
            age_s=max((now - b.observed_at).total_seconds(), 0.0),
            volatility=b.volatility,
            dirty=b.dirty,
            evidence_source=b.source_id,
            distribution=b.distribution,
            hazard_per_hour=b.hazard_per_hour,
        )

    def marginal(self, claim_id: str, now: datetime) -> np.ndarray | None:
        """The agent's current distribution over the claim's domain (None without a domain)."""
        dom = self.domain_of(claim_id)
        if dom is None:
            return None
        return current_marginal(self.claim_state(claim_id, now), dom, self.hazards)

    def check_evidence(self, claim_id: str, source_id: str, value: str | None) -> None:
        """Raise what :meth:`record_evidence` would raise for this report, changing nothing."""
        src = self.source(source_id)
        if src.reports and claim_id not in src.reports:
            # Most likely a typo in the claim name: refuse rather than invent a new belief.
            raise InvalidArgumentError(
                f"source {source_id!r} does not report {claim_id!r}; it reports {list(src.reports)}"
            )
        dom = self.domain_of(claim_id)
        if value is not None and dom is not None and value not in dom:
            raise InvalidArgumentError(
                f"claim {claim_id!r}: value {value!r} from {source_id!r} is outside {list(dom)}"
            )

    def _keep_evidence(self, ev: EvidenceRecord) -> None:
        """Append ``ev``, dropping the record it supersedes so the log stays bounded.

        The validator only needs, per (claim, source), the newest successful report and the
        newest check of any kind; an older record of the same (claim, source, outcome) is
        dropped, so the log holds at most two records per pair however often it is inspected.
        """
        key = (ev.claim_id, ev.source_id, ev.succeeded)
        old = self._latest_evidence.get(key)
        if old is not None and old.observed_at > ev.observed_at:
            return  # an older report (its source's data is older) adds nothing
        if old is not None:
            self.evidence.remove(old)
        self._latest_evidence[key] = ev
        self.evidence.append(ev)

    def record_evidence(
        self,
        claim_id: str,
        source_id: str,
        value: str | None,
        *,
        now: datetime,
        succeeded: bool = True,
        forced: bool = False,
    ) -> tuple[EvidenceRecord, bool]:
        """Record an inspection result and update the belief; return it and whether it changed."""
        self.check_evidence(claim_id, source_id, value)
        src = self.sources[source_id]
        dom = self.domain_of(claim_id)
        ev = EvidenceRecord(
            id=f"ev-{next(self._evidence_ids)}",
            claim_id=claim_id,
            source_id=source_id,
            observed_at=now - timedelta(seconds=src.age_s),
            value=value,
            succeeded=succeeded and value is not None,
            forced=forced,
        )
        self._keep_evidence(ev)
        if not ev.succeeded or value is None:
            return ev, False
        self.corroborate(ev)
        prev = self.beliefs.get(claim_id)
        before = prev.value if prev else None
        if before is not None and before != value:
            self.contradictions[claim_id] = (*self.contradictions.get(claim_id, ()), source_id)
        elif claim_id in self.contradictions and source_id not in self.contradictions[claim_id]:
            del self.contradictions[claim_id]
        vol = prev.volatility if prev else Volatility.MEDIUM
        claim_type = prev.claim_type if prev else claim_id
        # A report is weighed by the authority registered for its source; the trust discount
        # governs priority (what is read, and when), not what a read says.
        authority = self.claimed.get(source_id, src).authority_for(claim_type)
        prior = self.marginal(claim_id, now)
        dist: tuple[float, ...] | None = None
        if prior is None or dom is None:
            new_value, conf = value, authority
        else:
            acc = observation_accuracy(
                authority, src.age_s, vol, self.hazards, len(dom), self.max_accuracy
            )
            post = prior * report_likelihood(acc, len(dom), dom.index(value))
            post = post / post.sum() if post.sum() > 0 else np.full(len(dom), 1.0 / len(dom))
            k = int(np.argmax(post))
            new_value, conf, dist = dom[k], float(post[k]), tuple(float(x) for x in post)
        self.beliefs[claim_id] = BeliefRecord(
            claim_id=claim_id,
            claim_type=claim_type,
            value=new_value,
            confidence=conf,
            observed_at=now,
            volatility=vol,
            domain=dom,
            source_id=source_id,
            distribution=dist,
            hazard_per_hour=prev.hazard_per_hour if prev else None,
        )
        self.touched.add(claim_id)
        return ev, new_value != before
