"""Every number of the engine, as typed configuration data (document 002; SPEC §6).

Layers: these defaults → a JSON/YAML file (:func:`load_engine_config`) → keyword overrides
(:meth:`EngineConfig.with_overrides`). Each field names the document section it comes from; where
the document is silent the choice is ours and says so.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, model_validator

from heedful.errors import InputError, InvalidArgumentError
from heedful.model.base import FrozenModel
from heedful.model.documents import read_document
from heedful.model.inputs import validate_strict


class AutonomyLevel(StrEnum):
    """Autonomy levels of document 002 §3.1 / §9, ordered observe < advise < act."""

    OBSERVE = "observe"
    ADVISE = "advise"
    ACT = "act"

    @property
    def rank(self) -> int:
        """0 for observe, 1 for advise, 2 for act."""
        return ("observe", "advise", "act").index(self.value)


class DispatchMode(StrEnum):
    """Dispatch modes of document 002 §2.1."""

    EXPLORE = "explore"
    FOCUS = "focus"
    ACT = "act"
    ESCALATE = "escalate"
    PROPOSE = "propose"
    IDLE = "idle"


class CoverageWeights(FrozenModel):
    """Weights of the coverage score (Graphonomous Coverage defaults; brief of issue 4)."""

    semantic: float = Field(default=0.40, ge=0.0)
    consistency: float = Field(default=0.20, ge=0.0)
    freshness: float = Field(default=0.15, ge=0.0)
    graph_support: float = Field(default=0.15, ge=0.0)
    outcome_reliability: float = Field(default=0.10, ge=0.0)


class CoverageThresholds(FrozenModel):
    """act / learn thresholds (document 002 §2.1 via Coverage.recommend); else escalate."""

    act_coverage: float = 0.72
    act_max_uncertainty: float = 0.35
    act_max_risk: float = 0.45
    learn_coverage: float = 0.45
    learn_max_uncertainty: float = 0.70
    learn_max_risk: float = 0.75


class CoverageConfig(FrozenModel):
    """Coverage calculator configuration (formulas in docs/engine.md)."""

    weights: CoverageWeights = CoverageWeights()
    thresholds: CoverageThresholds = CoverageThresholds()
    #: Freshness half-life per node type, hours (ours: episodic memories age fastest).
    half_life_hours: dict[str, float] = Field(
        default_factory=lambda: {
            "episodic": 24.0,
            "outcome": 72.0,
            "semantic": 168.0,
            "procedural": 720.0,
            "goal": 168.0,
        }
    )
    default_half_life_hours: float = 168.0
    #: Regions with fewer nodes than this add a thin-evidence term to uncertainty (ours).
    min_context_nodes: int = 3
    #: Uncertainty = weighted sum of (1-semantic), thin evidence, confidence spread, conflict.
    uncertainty_weights: tuple[float, float, float, float] = (0.50, 0.20, 0.15, 0.15)
    #: Risk = weighted sum of failure rate, conflict, staleness, criticality (ours).
    risk_weights: tuple[float, float, float, float] = (0.45, 0.25, 0.15, 0.15)
    #: Criticality of a goal by priority, feeding risk (ours).
    criticality: dict[str, float] = Field(
        default_factory=lambda: {"low": 0.2, "normal": 0.5, "high": 0.75, "critical": 1.0}
    )


#: Triage rankings: ``formula`` (document 002) and ``voc`` (document 000 style).
TRIAGE_METHODS: tuple[str, ...] = ("formula", "voc")


class TriageConfig(FrozenModel):
    """Triage formula of document 002 §2.1 and §3.1.2."""

    #: ``attention_score = urgency × gap + surprise_weight × surprise`` (§3.1.2).
    surprise_weight: float = 0.3
    #: Urgency of an item without a goal (§3.1.2).
    no_goal_urgency: float = 0.1
    #: Deadline proximity is 1.0 at the deadline and decays linearly to 0 at this horizon (§3.1.2).
    deadline_horizon_hours: float = 7 * 24.0
    #: Proximity used when a goal has no deadline, by timescale (ours; the document is silent).
    undated_proximity: dict[str, float] = Field(
        default_factory=lambda: {
            "immediate": 1.0,
            "short_term": 0.6,
            "medium_term": 0.3,
            "long_term": 0.1,
        }
    )
    #: Priority weight (§3.1.2 gives high 1.0, medium 0.6, low 0.3; critical is ours).
    priority_weight: dict[str, float] = Field(
        default_factory=lambda: {"low": 0.3, "normal": 0.6, "high": 1.0, "critical": 1.0}
    )
    #: ``learn`` items below this coverage explore, above it they focus (§3.1.2: 0.45).
    explore_below_coverage: float = 0.45
    #: Resolution of §3.1.2 vs §5 (docs/engine.md): an ``escalate`` decision explores instead
    #: when the goal's risk is at most this (the low coverage is a gap learning can fill) —
    #: §5's "Goal B, coverage 0.31 → EXPLORE". Above it, it escalates. Default: learn_max_risk.
    explore_escalations_up_to_risk: float = Field(default=0.75, ge=0.0, le=1.0)
    #: ...unless this many explores in a row did not raise the goal's coverage (then a human
    #: must look: escalate). Counted in the goal's ``metadata.explore_stalls`` (ours).
    explore_stall_limit: int = Field(default=3, ge=1)
    #: Goal-less items propose a goal when their gap exceeds this (§3.1.2).
    propose_min_gap: float = 0.3
    #: Surprise: failed/unexpected outcomes within this window count (ours).
    surprise_window_hours: float = 24.0
    #: Which ranking to use: ``"formula"`` (document 002) or ``"voc"`` (document 000 style).
    method: str = Field(default="formula", pattern=f"^({'|'.join(TRIAGE_METHODS)})$")
    #: VOC triage: cost of one unit of κ friction and a base cost per item (ours).
    voc_cost_per_kappa: float = 0.02
    voc_base_cost: float = 0.01


class BudgetConfig(FrozenModel):
    """Per-cycle compute budget, document 002 §2.4, plus fair use (document 000 §11.5)."""

    max_items_per_cycle: int = Field(default=3, ge=0)
    max_explore_calls: int = Field(default=5, ge=0)
    max_deliberation_sccs: int = Field(default=2, ge=0)
    max_action_dispatches: int = Field(default=1, ge=0)
    total_timeout_ms: float = Field(default=60_000.0, gt=0)
    escalation_cooldown_ms: float = Field(default=300_000.0, ge=0)
    #: Bounded aging bonus (document 000 §11.5): each cycle a non-idle item waits unserved adds
    #: this to its selection score (not to its attention_score), up to ``aging_cap`` (ours).
    aging_bonus: float = Field(default=0.05, ge=0.0)
    aging_cap: float = Field(default=0.5, ge=0.0)
    #: An item deferred this many cycles in a row at ``act`` level (no action budget, cooldown,
    #: no plan) yields its slot to items that can use it (ours).
    yield_after_deferrals: int = Field(default=2, ge=1)


class DeliberationBudgetConfig(FrozenModel):
    """κ → deliberation budget (Graphonomous Topology.deliberation_budget, capped linear)."""

    max_iterations_cap: int = 4
    agent_count_cap: int = 3
    timeout_step: float = 0.5
    timeout_multiplier_cap: float = 3.5
    confidence_base: float = 0.70
    confidence_step: float = 0.05
    confidence_cap: float = 0.95


class EdgeDecayConfig(FrozenModel):
    """Consolidation: decay of stale edges (issue 15 item 1; ours — document 002 §2.1/§3.2.1 name
    the Consolidator but not its rules).

    An edge's age is the age of its *newer* endpoint (edges carry no time of their own), its
    half-life the longer of its endpoints' node-type half-lives (``coverage.half_life_hours``).
    Once the edge is older than ``stale_after_half_lives`` half-lives its weight is capped at
    ``0.5 ** (age / half_life)`` (never below ``floor``). Coverage counts an edge in proportion to
    its weight (capped at 1), so stale support props a region up less.

    Attributes:
        enabled: Whether explore and IDLE decay stale edges.
        edge_types: Edge types that decay. Contradictions are left alone (a conflict needs
            resolving, not forgetting) and ``derived_from`` is provenance, which does not age.
        stale_after_half_lives: Age, in half-lives, from which an edge counts as stale.
        min_step: Smallest weight change worth a write (avoids a journal entry per heartbeat).
        floor: Lowest weight decay sets; nothing is deleted.
        max_per_dispatch: Most edges decayed by one explore or IDLE dispatch.
    """

    enabled: bool = True
    edge_types: tuple[str, ...] = ("supports", "causal", "temporal")
    stale_after_half_lives: float = Field(default=1.0, ge=0.0)
    min_step: float = Field(default=0.05, gt=0.0)
    floor: float = Field(default=0.05, ge=0.0, le=1.0)
    max_per_dispatch: int = Field(default=200, ge=0)


class EscalateWhen(FrozenModel):
    """``governance.escalate_when`` of ampersand.json (document 002 §4.6, §4.8).

    Applies to items whose mode is ``act`` (a real-world action): when a condition holds the
    item escalates instead. Explore and focus only enrich the graph, so they are not gated.

    Attributes:
        confidence_below: Escalate when the coverage ``decision_confidence`` is below this.
        cost_exceeds_usd: Escalate when the goal's ``metadata.estimated_cost_usd`` exceeds this.
    """

    confidence_below: float | None = Field(default=None, ge=0.0, le=1.0)
    cost_exceeds_usd: float | None = Field(default=None, ge=0.0)


class GovernanceConfig(FrozenModel):
    """Governance policy (document 002 §4.6: ampersand.json ``governance.autonomy``).

    Attributes:
        max_level: The operator's ceiling (Delegatic maximum). Observe by default (document 002
            §9: "the safe default"): a requested level above it is downgraded, a per-cycle
            request above it (an MCP client's ``autonomy_override``) is refused. Only the
            operator raises it: this field in the engine config file, an ampersand.json
            governance file, or the ``--max-autonomy`` flag.
        require_approval_for: Dispatch modes that only ever produce proposals (advise-style).
        max_actions_per_hour: Sliding-window cap on act dispatches across cycles.
    """

    max_level: AutonomyLevel = AutonomyLevel.OBSERVE
    require_approval_for: tuple[DispatchMode, ...] = ()
    max_actions_per_hour: int | None = Field(default=None, ge=0)
    escalate_when: EscalateWhen = EscalateWhen()
    #: Act level auto-activates the goals the engine proposes (§3.2.4), unless ``propose`` is in
    #: ``require_approval_for`` or this is false.
    auto_activate_proposed: bool = True


class EngineConfig(FrozenModel):
    """Complete engine configuration.

    Attributes:
        autonomy: Requested autonomy level (document 002 §3.1; observe is the safe default).
        heartbeat_ms: Heartbeat cadence (§3.1: 300,000 ms).
        deadline_lead_ms: A goal whose deadline is nearer than this fires the deadline trigger.
        region_search_limit: Nodes retrieved by goal title per goal (§3.1.1: 20).
        explore_depth: Hops of internal expansion in explore mode (ours).
        max_gap_regions: Goal-less regions surveyed when no goal is active (ours).
        enabled: Whether a host process (``heedful mcp serve``) starts the heartbeat by itself
            (§3.1: "OFF by default — opt-in"). ``heedful engine run`` and ``Engine.activate``
            are explicit starts and run regardless.
        first_cycle_at_start: The heartbeat runs a cycle as soon as it starts, then every
            ``heartbeat_ms`` (ours: no silent first interval).
        surprise_trigger: A cycle whose reflect records an outcome or re-surveys a goal with
            surprise at or above this starts the next cycle at once (§2.2 "surprising
            outcome"); ``None`` disables it.
        reflect_neighbours: Reflect also re-surveys active goals whose regions share a node
            with what a dispatch wrote (their coverage may have moved).
        edge_decay: How explore and IDLE consolidation decay stale edges.
    """

    enabled: bool = False
    first_cycle_at_start: bool = True
    surprise_trigger: float | None = Field(default=0.5, ge=0.0, le=1.0)
    reflect_neighbours: bool = True
    autonomy: AutonomyLevel = AutonomyLevel.OBSERVE
    heartbeat_ms: float = Field(default=300_000.0, gt=0, allow_inf_nan=False)
    deadline_lead_ms: float = Field(default=3_600_000.0, ge=0)
    region_search_limit: int = Field(default=20, ge=0)
    explore_depth: int = Field(default=1, ge=0)
    max_gap_regions: int = Field(default=3, ge=0)
    coverage: CoverageConfig = CoverageConfig()
    triage: TriageConfig = TriageConfig()
    budget: BudgetConfig = BudgetConfig()
    deliberation: DeliberationBudgetConfig = DeliberationBudgetConfig()
    governance: GovernanceConfig = GovernanceConfig()
    edge_decay: EdgeDecayConfig = EdgeDecayConfig()

    @model_validator(mode="after")
    def _check(self) -> EngineConfig:
        if self.triage.explore_below_coverage < self.coverage.thresholds.learn_coverage:
            raise ValueError("triage.explore_below_coverage must be >= learn_coverage")
        return self

    def with_overrides(self, **changes: Any) -> EngineConfig:
        """Return a copy with top-level fields replaced (validated)."""
        data = self.model_dump()
        for key, value in changes.items():
            if isinstance(value, BaseModel):
                value = value.model_dump()
            data[key] = value
        return engine_config_from_dict(data)


def engine_config_from_dict(data: dict[str, Any]) -> EngineConfig:
    """Validate a config mapping, turning validation errors into ``InvalidArgumentError``."""
    try:
        return validate_strict(EngineConfig, data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InvalidArgumentError(f"engine config {where}: {first['msg']}") from None


def load_engine_config(path: str | Path) -> EngineConfig:
    """Load an engine config from a JSON or YAML file (missing keys keep their defaults)."""
    p = Path(path)
    try:
        data = read_document(p)
    except InputError as exc:
        raise InvalidArgumentError(f"engine config {exc}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InvalidArgumentError(f"engine config {p} must be a mapping")
    return engine_config_from_dict(data)
