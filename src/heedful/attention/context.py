"""The snapshot generators and estimators read: beliefs, sources, goals, the stated decision.

Plain in-memory structures. The controller builds one :class:`AttentionContext` per
recomputation from its registries (or from a memory store); nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np

from heedful.attention.config import DEFAULT_HAZARDS_PER_HOUR
from heedful.decision.heuristic import utility_tensor
from heedful.memory.freshness import p_stale as memory_p_stale
from heedful.memory.freshness import p_stale_rate
from heedful.model.goal import Goal, GoalStatus
from heedful.model.scenario import Cost, UtilityRule, Volatility

__all__ = [
    "AttentionContext",
    "ClaimState",
    "DecisionModel",
    "Failure",
    "Focus",
    "Interruption",
    "SourceInfo",
    "belief_marginal",
    "claim_p_stale",
    "current_marginal",
    "hazard_per_second",
    "p_stale",
]


def hazard_per_second(
    volatility: Volatility, hazards_per_hour: Mapping[Volatility, float]
) -> float:
    """Return λ in 1/s for a volatility class."""
    return hazards_per_hour[volatility] / 3600.0


def p_stale(
    age_s: float, volatility: Volatility, hazards_per_hour: Mapping[Volatility, float]
) -> float:
    """Probability evidence of this age is no longer current: ``1 − exp(−λ·age)`` (doc 000 §9).

    Delegates to the memory store's freshness model so both parts age evidence identically.
    """
    return memory_p_stale(volatility, max(age_s, 0.0), hazards_per_hour)


def belief_marginal(
    claim: ClaimState | None, domain: tuple[str, ...], p_wrong: float
) -> np.ndarray:
    """The agent's marginal over a variable: ``1 − p_wrong`` on the belief, the rest uniform.

    With no belief, the marginal is uniform.
    """
    n = len(domain)
    if claim is None or claim.value is None or claim.value not in domain or n == 1:
        return np.full(n, 1.0 / n)
    m = np.full(n, p_wrong / (n - 1))
    m[domain.index(claim.value)] = 1.0 - p_wrong
    return m


def claim_p_stale(claim: ClaimState, hazards_per_hour: Mapping[Volatility, float]) -> float:
    """p_stale of a claim's evidence: its learned hazard when it has one, else its class's."""
    rate = claim.hazard_per_hour
    if rate is None:
        return p_stale(claim.age_s, claim.volatility, hazards_per_hour)
    return p_stale_rate(rate / 3600.0, max(claim.age_s, 0.0))


def current_marginal(
    claim: ClaimState | None,
    domain: tuple[str, ...],
    hazards_per_hour: Mapping[Volatility, float],
) -> np.ndarray:
    """The agent's distribution over a variable *now*, under the change model of doc 000 §9.

    With probability ``1 − p_stale`` the state has not changed since the evidence; otherwise it is
    uniform over the domain. The evidence itself is the stored posterior ``distribution`` when
    there is one, else ``confidence`` on the believed value and the rest spread evenly (the
    "keep" model: ``keep = confidence·(1 − p_stale)`` stays on the belief, the rest is uniform).
    """
    n = len(domain)
    uniform = np.full(n, 1.0 / n)
    if claim is None or n == 1:
        return uniform
    stale = 1.0 if claim.dirty else claim_p_stale(claim, hazards_per_hour)
    if claim.distribution is not None and len(claim.distribution) == n:
        base = np.asarray(claim.distribution, dtype=float)
        return (1.0 - stale) * base + stale * uniform
    if claim.value is None or claim.value not in domain:
        return uniform
    keep = claim.confidence * (1.0 - stale)
    m = np.full(n, (1.0 - keep) / n)
    m[domain.index(claim.value)] += keep
    return m


@dataclass(frozen=True)
class ClaimState:
    """A claim (belief) the agent holds, or a variable it holds nothing about (``value=None``).

    Attributes:
        id: Claim id (a scenario variable name in the benchmark).
        claim_type: Type used for claim-specific authority and validator policies (doc 000 §10).
        value: Believed value, or None when the agent holds no belief.
        domain: Possible values, when known.
        confidence: Confidence in the value when it was observed (0..1).
        age_s: Age of the evidence behind it.
        volatility: Volatility class of the underlying state.
        dirty: True when truth maintenance marked it for re-checking (doc 000 §4.6).
        evidence_source: Source of the evidence behind it, when known.
        distribution: Posterior over ``domain`` when the evidence was observed, if computed.
        hazard_per_hour: Change rate learned for this claim's subject from its revisit history
            (Cho & Garcia-Molina, via the memory store); None = its volatility class default.
    """

    id: str
    claim_type: str
    value: str | None
    domain: tuple[str, ...] | None = None
    confidence: float = 1.0
    age_s: float = 0.0
    volatility: Volatility = Volatility.MEDIUM
    dirty: bool = False
    evidence_source: str | None = None
    distribution: tuple[float, ...] | None = None
    hazard_per_hour: float | None = None


@dataclass(frozen=True)
class SourceInfo:
    """A registered source: trusted metadata only (doc 000 §10, §24).

    Attributes:
        id: Source id.
        reports: Claims it informs.
        authority: Claim-type → authority registry entries (doc 000 §10).
        default_authority: Authority for claim types missing from ``authority``.
        cost: Cost of one inspection.
        age_s: Age of the data it holds.
        trusted: Whether its candidates bypass untrusted quotas and rate limits and keep their
            declared priority (default False: a source is trusted only when registered so).
        kind: Free label (``live_instrument``, ``cached_summary`` …).
        failure_rate: Probability that a read of it returns nothing (a flaky instrument, a page
            that times out). As registered: the rate stated; in ``World.sources``: the rate
            credited, the stated one moved by the resolved reads (``World.failure_rate``).
        links: How many further sources, not registered yet, one read of it names (an index, a
            catalogue, a cache naming what it was built from): the model-based estimator values
            such a read by what the sources it reveals may be worth (docs/controller.md).
    """

    id: str
    reports: tuple[str, ...] = ()
    authority: Mapping[str, float] = field(default_factory=dict)
    default_authority: float = 0.5
    cost: Cost = field(default_factory=Cost)
    age_s: float = 0.0
    trusted: bool = False
    kind: str = "document"
    failure_rate: float = 0.0
    links: int = 0

    def authority_for(self, claim_type: str) -> float:
        """Authority of this source for a claim type."""
        return self.authority.get(claim_type, self.default_authority)


@dataclass(frozen=True)
class DecisionModel:
    """A decision the agent states: variables, their domains and actions' utility rules.

    Attributes:
        variables: Claim id → domain.
        actions: Action id → utility rules (first matching ``when`` wins, as in SPEC §2).
        cost_weight: Utility units per unit of scalar cost.
        irreversible: Actions that cannot be undone (trusted metadata; §3.3, §11.2).
        destructive: Destructive operations, e.g. a deletion or a deployment (§11.2).
    """

    variables: Mapping[str, tuple[str, ...]]
    actions: Mapping[str, tuple[UtilityRule, ...]]
    cost_weight: float = 0.0
    irreversible: frozenset[str] = frozenset()
    destructive: frozenset[str] = frozenset()

    def utility(self, action: str, world: Mapping[str, str]) -> float:
        """u(action, world) by the first matching rule; 0 when none matches."""
        for rule in self.actions[action]:
            if all(world.get(k) == v for k, v in rule.when.items()):
                return rule.value
        return 0.0

    @property
    def relevant_variables(self) -> tuple[str, ...]:
        """Variables some utility rule conditions on, in declaration order."""
        cached = self.__dict__.get("_relevant")
        if cached is None:
            used = {k for rules in self.actions.values() for r in rules for k in r.when}
            cached = tuple(v for v in self.variables if v in used)
            self.__dict__["_relevant"] = cached  # frozen: computed once per decision
        return cached

    def fingerprint(self) -> tuple[object, ...]:
        """What decision-based values depend on, as a hashable value (cached): the relevant
        variables, their domains and the utility tensor's bytes."""
        cached = self.__dict__.get("_fingerprint")
        if cached is None:
            names = self.relevant_variables
            u = self.utility_tensor()
            cached = (names, tuple(tuple(self.variables[v]) for v in names), u.shape, u.tobytes())
            self.__dict__["_fingerprint"] = cached
        return cached

    def utility_tensor(self) -> np.ndarray:
        """u(a, w) over the relevant variables, ``[A, |D1|, …, |Dk|]`` (read-only, cached)."""
        cached = self.__dict__.get("_utility")
        if cached is None:
            names = self.relevant_variables
            cached = utility_tensor(self.actions, names, [self.variables[v] for v in names])
            cached.flags.writeable = False
            self.__dict__["_utility"] = cached
        return cached


@dataclass(frozen=True)
class Failure:
    """A failed action or tool call (doc 000 §7 "Failed actions").

    ``cost`` is what diagnosing it is expected to cost (about what the failed call cost).
    """

    id: str
    target: str
    loss: float = 1.0
    claim_ids: tuple[str, ...] = ()
    cost: Cost = field(default_factory=Cost)


@dataclass(frozen=True)
class Interruption:
    """An incoming event (doc 000 §7 "Interruptions"): a candidate, not an automatic switch.

    ``content`` is untrusted text; ``declared_loss``, ``category`` and ``goal_ids`` come from
    trusted metadata only (Phase 5: interruption classes, goal links).
    """

    id: str
    source_id: str
    content: str = ""
    declared_loss: float = 0.0
    goal_ids: tuple[str, ...] = ()
    switch_cost: float = 0.0
    category: str = "event"


@dataclass(frozen=True)
class Focus:
    """The computation currently being worked on, with its value (doc 000 §11.4)."""

    candidate_id: str
    voc: float


@dataclass
class AttentionContext:
    """Everything generators and estimators may read at one recomputation.

    Attributes:
        now: Current time (passed in; nothing reads a clock).
        turn: Turn index.
        claims: Claims by id.
        sources: Registered sources by id.
        goals: Goals by id.
        decision: The agent's stated decision, if any.
        pending_claims: Claims the agent is about to assert or act on (doc 000 §7).
        contradictions: Claim id → source ids whose evidence conflicts with the belief.
        failures: Failed actions awaiting diagnosis.
        interruptions: Incoming events.
        focus: Current focus, for the switching rule.
        inspected: Source ids already inspected this episode → count.
        committed: Sources chosen whose results are not known yet (static condition: chosen
            up front, revealed only after every choice), in choice order.
        budget_left: Inspections left this turn (None = unlimited).
        cost_weight: λ_cost override (e.g. a scenario's cost weight).
        hazards_per_hour: λ per volatility class used for freshness.
        pending_action: The action the agent would take now, when a decision is stated and it
            declares irreversible actions (reversibility feature, §3.3).
        usefulness: Similarity class (``source kind/claim type``) → (useful, resolved) counts of
            past inspections (historical usefulness, §3.3).
    """

    now: datetime = field(default_factory=lambda: datetime(2026, 1, 1, tzinfo=UTC))
    turn: int = 0
    claims: Mapping[str, ClaimState] = field(default_factory=dict)
    sources: Mapping[str, SourceInfo] = field(default_factory=dict)
    goals: Mapping[str, Goal] = field(default_factory=dict)
    decision: DecisionModel | None = None
    pending_claims: tuple[str, ...] = ()
    contradictions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    failures: tuple[Failure, ...] = ()
    interruptions: tuple[Interruption, ...] = ()
    focus: Focus | None = None
    inspected: Mapping[str, int] = field(default_factory=dict)
    committed: tuple[str, ...] = ()
    budget_left: int | None = None
    cost_weight: float | None = None
    hazards_per_hour: Mapping[Volatility, float] = field(
        default_factory=lambda: dict(DEFAULT_HAZARDS_PER_HOUR)
    )
    pending_action: str | None = None
    usefulness: Mapping[str, tuple[int, int]] = field(default_factory=dict)

    def active_goals(self) -> list[Goal]:
        """Goals with status ``active``."""
        return [g for g in self.goals.values() if g.status is GoalStatus.ACTIVE]

    def dependents(self, claim_id: str) -> list[tuple[float, float]]:
        """(dependency weight, goal consequence) of every active goal depending on a claim."""
        index = self.__dict__.get("_dependents")
        if index is None:
            index = {}
            for g in self.active_goals():
                for d in g.depends_on:
                    index.setdefault(d.claim_id, []).append((d.weight, g.consequence))
            self.__dict__["_dependents"] = index
        return list(index.get(claim_id, ()))

    def sources_reporting(self, claim_id: str) -> list[SourceInfo]:
        """Sources that inform a claim, in registration order (indexed on first use)."""
        index = self.__dict__.get("_reporting")
        if index is None:
            index = {}
            for s in self.sources.values():
                for c in s.reports:
                    index.setdefault(c, []).append(s)
            self.__dict__["_reporting"] = index
        return list(index.get(claim_id, ()))
