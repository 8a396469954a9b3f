"""Every number the controller uses, in one typed object, with the section it comes from.

Document 000 gives the structure (which terms exist); where it gives no number the value here is
our choice and ``docs/controller.md`` says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from heedful.memory.freshness import DEFAULT_FRESHNESS
from heedful.model.scenario import Volatility

__all__ = [
    "DEFAULT_CONFIG",
    "DEFAULT_HAZARDS_PER_HOUR",
    "AttentionConfig",
    "EstimatorConfig",
    "GeneratorConfig",
    "GuardConfig",
    "SelectorConfig",
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


@dataclass(frozen=True)
class GeneratorConfig:
    """Thresholds of the candidate generators (document 000 §7).

    Attributes:
        stale_threshold: A belief whose p_stale reaches this is "stale" (§7 "Dirty or stale").
        fresh_threshold: Evidence with p_stale below this counts as fresh (§7 "State-sensitive").
        deadline_horizon_s: Goals due within this raise deadline candidates (§7 "Deadlines").
        exploration_per_turn: Exploration candidates proposed per recomputation (§7).
        ttl_s: Lifetime of a candidate before it expires (§8 ``expires_at``).
    """

    stale_threshold: float = 0.05
    fresh_threshold: float = 0.01
    deadline_horizon_s: float = 3600.0
    exploration_per_turn: int = 1
    ttl_s: float = 3600.0


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
    """

    hysteresis: float = 0.05
    aging_rate: float = 0.01
    aging_cap: float = 0.05
    min_service_turns: int = 5
    exploration_rate: float = 0.05
    exploration_fraction: float = 0.1


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
        trusted_quota: Live candidates one trusted source may hold.
        untrusted_quota: Live candidates one untrusted source may hold ("candidate quotas").
        untrusted_rate_per_turn: New candidates one untrusted source may create per turn
            ("rate limiting").
        max_aggregates: Distinct overflow aggregates kept; the rest fold into ``*``.
        saturation_level: A candidate is "near maximum" when its p_change is at least this.
        saturation_share: Share of candidates near maximum that raises the anomaly signal.
        saturation_min_count: Fewest candidates on which the anomaly signal is computed.
    """

    table_size: int = 10_000
    controller_reserve: float = 0.2
    submitted_ttl_s: float = 3_600.0
    flood_fill: float = 0.9
    trusted_quota: int = 2_000
    untrusted_quota: int = 50
    untrusted_rate_per_turn: int = 20
    max_aggregates: int = 256
    saturation_level: float = 0.9
    saturation_share: float = 0.5
    saturation_min_count: int = 20


@dataclass(frozen=True)
class AttentionConfig:
    """The controller's configuration: estimator, generator, selector and guard parts."""

    estimator: EstimatorConfig = field(default_factory=EstimatorConfig)
    generator: GeneratorConfig = field(default_factory=GeneratorConfig)
    selector: SelectorConfig = field(default_factory=SelectorConfig)
    guard: GuardConfig = field(default_factory=GuardConfig)


DEFAULT_CONFIG = AttentionConfig()
