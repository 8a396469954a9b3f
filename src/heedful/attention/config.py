"""Every number the controller uses, in one typed object, with the section it comes from.

Document 000 gives the structure (which terms exist); where it gives no number the value here is
our choice and ``docs/controller.md`` says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from heedful.memory.freshness import DEFAULT_FRESHNESS
from heedful.model.candidate import Floor
from heedful.model.scenario import Volatility

__all__ = [
    "DEFAULT_CONFIG",
    "DEFAULT_HAZARDS_PER_HOUR",
    "AnomalyConfig",
    "AttentionConfig",
    "EstimatorConfig",
    "FloorConfig",
    "GeneratorConfig",
    "GuardConfig",
    "HealthConfig",
    "SelectorConfig",
    "TraceConfig",
    "VolatilityConfig",
]

#: Default change hazards per hour by volatility class (SPEC §4.1; document 000 §9) — the
#: memory store's freshness defaults, so both parts age evidence identically.
DEFAULT_HAZARDS_PER_HOUR: dict[Volatility, float] = dict(DEFAULT_FRESHNESS.hazards_per_hour)


@dataclass(frozen=True)
class EstimatorConfig:
    """Weights of the heuristic VOC estimator (document 000 §3.3, §9, §10, §11.1).

    Attributes:
        hazards_per_hour: λ per volatility class for ``p_stale = 1 − exp(−λ·age)`` (§9).
        cost_weight: λ_cost, utility units per unit of scalar cost (§3.3). Overridden by a
            decision's own cost weight when one is known.
        switch_weight: μ, weight of the switch cost (§3.3, §11.4).
        default_loss: E|ΔU| when neither a decision nor a goal declares a consequence (§8.2).
        default_pivotality: Pivotality when nothing says whether the claim matters (§8.1).
        deadline_horizon_s: Deadlines nearer than this raise decision impact (§7 "Deadlines").
        deadline_boost: Maximum multiplicative boost of the loss at a deadline of 0 s (§7).
        max_enumeration: Largest joint state space enumerated for decision-based pivotality.
        max_accuracy: Highest accuracy a report is credited with — no source is perfect (§10).
        contradiction_boost: Contradiction candidates' loss is multiplied by ``1 + boost``: "a
            high-priority check candidate" (§7 "Contradictions").
        counter_evidence_bonus: A read of a source *other* than the one behind the current
            belief gains ``bonus · gross`` — against self-confirmation (§25).
        irreversible_weight: When the action the agent would take now is declared irreversible,
            the loss of acting on a wrong value is multiplied by ``1 + weight`` (§3.3, §8.2).
        switch_cost_base: Estimated switch cost (utility units) of leaving a focus for an
            interruption that declares none (§11.4, Phase 5 "switching-cost estimates").
        switch_cost_focus_share: Plus this share of the focus's value (work that must be resumed).
        usefulness_min_samples: Resolved inspections of one similarity class (source kind, claim
            type) before their history weighs in (§3.3 "historical usefulness").
        usefulness_range: Bounds of the history factor multiplying the gross value.
        failure_prior_reads: Resolved reads a source's stated failure rate counts as before its
            own reads move it (``World.failure_rate``: ``(stated·m + failed) / (m + reads)``);
            ``math.inf``: the stated rate, never learned.
    """

    hazards_per_hour: dict[Volatility, float] = field(
        default_factory=lambda: dict(DEFAULT_HAZARDS_PER_HOUR)
    )
    cost_weight: float = 0.01
    switch_weight: float = 1.0
    default_loss: float = 1.0
    default_pivotality: float = 0.5
    deadline_horizon_s: float = 3600.0
    deadline_boost: float = 1.0
    max_enumeration: int = 65_536
    max_accuracy: float = 0.99
    contradiction_boost: float = 0.5
    counter_evidence_bonus: float = 0.1
    irreversible_weight: float = 1.0
    switch_cost_base: float = 0.02
    switch_cost_focus_share: float = 0.1
    usefulness_min_samples: int = 5
    usefulness_range: tuple[float, float] = (0.5, 1.5)
    failure_prior_reads: float = 4.0


@dataclass(frozen=True)
class GeneratorConfig:
    """Thresholds of the candidate generators (document 000 §7).

    Attributes:
        stale_threshold: A belief whose p_stale reaches this is "stale" (§7 "Dirty or stale").
        fresh_threshold: Evidence with p_stale below this counts as fresh (§7 "State-sensitive").
        deadline_horizon_s: Goals due within this raise deadline candidates (§7 "Deadlines").
        exploration_per_turn: Exploration candidates proposed per recomputation (§7).
        ttl_s: Lifetime of a candidate before it expires (§8 ``expires_at``).
        diagnose_failures: A failed computation becomes a diagnostic candidate by itself (§7
            "Failed actions"); off in the benchmark, whose reads have nothing to diagnose.
    """

    stale_threshold: float = 0.05
    fresh_threshold: float = 0.01
    deadline_horizon_s: float = 3600.0
    exploration_per_turn: int = 1
    ttl_s: float = 3600.0
    diagnose_failures: bool = True


@dataclass(frozen=True)
class SelectorConfig:
    """Selection rules (document 000 §11.2–§11.5, §20.4).

    Attributes:
        hysteresis: δ of the switching rule ``VOC(B) > VOC(A) + SwitchCost + δ`` (§11.4).
        aging_rate: Aging bonus per turn a positive-value candidate waits (§11.5).
        aging_cap: Upper bound of the aging bonus (§11.5, "bounded aging bonus").
        min_service_turns: A goal with eligible candidates unserved this many turns gets its
            best candidate served first (§11.5, "per-goal minimum service").
        exploration_rate: Probability a selection explores, while the quota lasts (§20.4).
        exploration_fraction: Share of the per-turn budget exploration may use (§7, §20.4).
        exploration_min_quota: Explorations allowed per turn whatever the budget (a budget under
            ``1/fraction`` or an unlimited one would otherwise never explore); 0 with a budget
            of 0.
        explore_merged: A read the exploration generator proposes stays eligible for the
            exploration draw when another generator proposes it too (the merge names it by the
            other trigger). Without it the first unread source — which the goal and state
            generators usually propose as well — is never an exploration candidate, and the
            draw almost never happens (issue 24).
        explore_paced: Exploration is paid for by the selections made so far: the next
            selection may explore only while explorations stay within ``exploration_fraction``
            of the controller's selections, itself included (the 10th selection at the
            earliest, at 10 %). Without it a turn's quota is ``exploration_min_quota`` even for a
            budget of 3 — a third of the reads — and a controller that lives one short turn
            spends it on a read it can learn nothing from for later (§20.4: a small bounded
            fraction of budget).
    """

    hysteresis: float = 0.05
    aging_rate: float = 0.01
    aging_cap: float = 0.05
    min_service_turns: int = 5
    exploration_rate: float = 0.05
    exploration_fraction: float = 0.1
    exploration_min_quota: int = 1
    explore_merged: bool = True
    explore_paced: bool = True


@dataclass(frozen=True)
class GuardConfig:
    """Hijack defences (document 000 §24, §25 "Priority inflation").

    Attributes:
        table_size: Bound of the candidate table ("bounded queues").
        controller_reserve: Share of the table submitted candidates can never take: kept for
            the controller's own generators and for floors, so a flood cannot blind it.
        submitted_ttl_s: Default lifetime of a submitted candidate that names no expiry.
        flood_fill: Fill of the submitted share of the table at which refusals count as a
            flood (anomaly signal).
        trusted_quota: Live candidates one trusted submitter may hold.
        generator_quota: Live candidates one of the controller's own generators may hold;
            ``None`` (the default): the table bound. The controller proposes at most one read
            per registered source and kind, so the registry already bounds what its generators
            hold; a smaller quota only changes which reads exist — which the default must not
            do (the reads chosen at the default bound are the reads chosen with the bounds
            raised: tests/attention/test_attention_default_bounds.py).
        untrusted_quota: Live candidates one untrusted source may hold ("candidate quotas").
        untrusted_rate_per_turn: New candidates one untrusted source may create per turn
            ("rate limiting").
        max_aggregates: Distinct overflow aggregates kept; the rest fold into ``*``.
        saturation_level: A candidate is "near maximum" when its p_change is at least this.
        saturation_share: Share of candidates near maximum that raises the anomaly signal.
        saturation_min_count: Fewest candidates on which the anomaly signal is computed.
        untrusted_authority_cap: Highest authority an untrusted source is credited with before
            outcomes earn it more (§24: untrusted content never sets its own priority — its
            claimed authority is a prior, not a fact).
        trust_pseudo_count: Prior reports at chance agreement that an untrusted source's
            record against trusted reports is shrunk with (``heedful.attention.world.
            Corroboration``): ``earned = net / (weight + trust_pseudo_count)``, where each of
            its reports judged against the trusted report on the same claim nearest it in time
            counts ``w = exp(−λ·|Δt|)`` (the chance the claim did not change between the two
            observations, λ its volatility class's hazard) in ``weight``, and ``+w`` (match)
            or ``−w/(n − 1)`` (mismatch, ``n`` values) in ``net``; only trusted reports
            observed at or after a report judge it. So a reporter at random earns ~0. Negative
            ``earned`` lowers the credit below the cap toward 0: a source trusted reports keep
            contradicting is read less than an unknown one. Above the cap the credit moves by
            ``Corroboration.lift`` instead — agreement beyond the base rates' chance, shrunk
            by the same count — so a constant reporter, or one honest only right after a
            trusted read, is never lifted. ``0`` turns the shrinkage off; ``math.inf`` keeps
            the credit where the cap puts it (with ``untrusted_authority_cap`` 1 and
            ``untrusted_min_cost`` 0: no trust discount at all).
        untrusted_min_cost: Lowest scalar cost an untrusted source is charged until a resolve
            reports what reading it really cost (a claimed zero cost would make it free).
    """

    table_size: int = 10_000
    controller_reserve: float = 0.2
    submitted_ttl_s: float = 3_600.0
    flood_fill: float = 0.9
    trusted_quota: int = 2_000
    generator_quota: int | None = None
    untrusted_quota: int = 50
    untrusted_rate_per_turn: int = 20
    max_aggregates: int = 256
    saturation_level: float = 0.9
    saturation_share: float = 0.5
    saturation_min_count: int = 20
    untrusted_authority_cap: float = 0.7
    trust_pseudo_count: float = 5.0
    untrusted_min_cost: float = 1.0


@dataclass(frozen=True)
class FloorConfig:
    """Lexicographic floors from trusted metadata (document 000 §11.2).

    Attributes:
        claim_types: Claim type → floor (``safety_critical``, ``compliance`` …): a claim of that
            type whose evidence is not fresh gets one read that bypasses ranking.
        stale_threshold: Evidence with p_stale at least this is "stale" for the irreversible
            and destructive floors (and not fresh for the claim-type floors).
    """

    claim_types: dict[str, Floor] = field(default_factory=dict)
    stale_threshold: float = 0.05


@dataclass(frozen=True)
class AnomalyConfig:
    """Priority-distribution anomaly detection (document 000 §24 "Anomaly detection").

    Attributes:
        shift_threshold: A shift is raised when the mean p_change of the scored candidates moves
            this far from its running baseline.
        smoothing: Weight of the newest mean in the running baseline (exponential average).
        warmup: Recomputations observed before shifts are judged.
        min_count: Fewest scored candidates on which a shift is judged.
    """

    shift_threshold: float = 0.3
    smoothing: float = 0.2
    warmup: int = 3
    min_count: int = 5


@dataclass(frozen=True)
class VolatilityConfig:
    """Learned change rates per claim class and per source (document 000 §9).

    Attributes:
        min_samples: Revisits of a class (or source) before its learned rate replaces the
            volatility-class default.
    """

    min_samples: int = 5


@dataclass(frozen=True)
class TraceConfig:
    """What the trace records (document 000 §12, Appendix A).

    Attributes:
        update_epsilon: A live candidate's predicted VOC must move at least this much since it
            was last logged for a ``candidate_updated`` event.
    """

    update_epsilon: float = 0.05


@dataclass(frozen=True)
class HealthConfig:
    """Thresholds of the §25 failure-mode signatures and the §5.3 funnel.

    Attributes:
        window_turns: Turns (the most recent) the health report reads.
        inflation_share: Priority inflation when this share of selections saw a saturated table.
        overinspection_useless_share: Overinspection when this share of resolved reads changed
            nothing and realised value was below the cost spent.
        underinspection_share: Underinspection when this share of stops left a candidate with
            p_change ≥ ``pivotal_p_change`` unread.
        pivotal_p_change: p_change counted as "pivotal state" for underinspection.
        thrashing_share: Thrashing when accepted switches exceed this share of selections.
        starvation_turns: A candidate alive this many turns without service is starving.
        novelty_share: Novelty addiction when exploration takes more than this share of
            selections while its realised value is below the rest's.
        self_confirmation_ratio: Self-confirmation when contradiction candidates are selected
            at less than this ratio of the others' selection rate.
        blindness_recall: Candidate blindness when fewer than this share of opportunities fired.
        min_events: Fewest relevant events for a signature to give a verdict (else ``n/a``).
    """

    window_turns: int = 100
    inflation_share: float = 0.5
    overinspection_useless_share: float = 0.8
    underinspection_share: float = 0.2
    pivotal_p_change: float = 0.5
    thrashing_share: float = 0.3
    starvation_turns: int = 10
    novelty_share: float = 0.2
    self_confirmation_ratio: float = 0.5
    blindness_recall: float = 0.8
    min_events: int = 3


@dataclass(frozen=True)
class AttentionConfig:
    """The controller's configuration, one typed part per concern."""

    estimator: EstimatorConfig = field(default_factory=EstimatorConfig)
    generator: GeneratorConfig = field(default_factory=GeneratorConfig)
    selector: SelectorConfig = field(default_factory=SelectorConfig)
    guard: GuardConfig = field(default_factory=GuardConfig)
    floors: FloorConfig = field(default_factory=FloorConfig)
    anomaly: AnomalyConfig = field(default_factory=AnomalyConfig)
    volatility: VolatilityConfig = field(default_factory=VolatilityConfig)
    trace: TraceConfig = field(default_factory=TraceConfig)
    health: HealthConfig = field(default_factory=HealthConfig)


DEFAULT_CONFIG = AttentionConfig()
