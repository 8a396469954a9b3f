"""Autonomy governance (document 002 §3.1 autonomy levels, §4.6 ``governance.autonomy``).

An organisation (Delegatic) caps the autonomy of every agent in its tree. A configured level
above the cap is *downgraded*; a per-cycle override above the cap is *refused* with
:class:`heedful.errors.GovernanceError` (document 002 §3.4: "Must not exceed Delegatic policy
maximum"). The ampersand.json ``governance.autonomy`` block maps onto :class:`EngineConfig`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from heedful.engine.config import (
    AutonomyLevel,
    DispatchMode,
    EngineConfig,
    EscalateWhen,
    GovernanceConfig,
)
from heedful.engine.triage import AttentionItem
from heedful.errors import GovernanceError, InvalidArgumentError
from heedful.model.inputs import validate_strict


def parse_level(value: AutonomyLevel | str) -> AutonomyLevel:
    """Parse an autonomy level name, raising ``InvalidArgumentError`` for unknown names."""
    try:
        return AutonomyLevel(value)
    except ValueError:
        names = ", ".join(level.value for level in AutonomyLevel)
        raise InvalidArgumentError(f"unknown autonomy level {value!r} (use {names})") from None


def effective_level(requested: AutonomyLevel, maximum: AutonomyLevel) -> AutonomyLevel:
    """The requested level, downgraded to the governance maximum."""
    return requested if requested.rank <= maximum.rank else maximum


#: How an operator raises the ceiling, named in every refusal.
RAISE_CEILING_HINT = (
    "an operator raises the ceiling with --max-autonomy LEVEL (heedful engine ... / heedful mcp "
    "serve), governance.max_level in the engine config file (--config), or an ampersand.json "
    "governance file whose governance.autonomy.level is LEVEL (--governance)"
)


def ceiling_refusal(what: str, requested: AutonomyLevel, maximum: AutonomyLevel) -> str:
    """The message refusing ``requested`` above ``maximum`` (names the ceiling and the way up)."""
    return (
        f"{what} {requested.value!r} exceeds the operator's autonomy ceiling {maximum.value!r}; "
        f"ask for {_at_most(maximum)}, or {RAISE_CEILING_HINT}"
    )


def _at_most(maximum: AutonomyLevel) -> str:
    allowed = [level.value for level in AutonomyLevel if level.rank <= maximum.rank]
    return " or ".join(repr(v) for v in allowed)


def check_override(override: AutonomyLevel, maximum: AutonomyLevel) -> AutonomyLevel:
    """Accept a per-cycle override within the maximum, else raise ``GovernanceError``."""
    if override.rank > maximum.rank:
        raise GovernanceError(ceiling_refusal("autonomy", override, maximum))
    return override


def with_ceiling(config: EngineConfig, level: AutonomyLevel | str) -> EngineConfig:
    """``config`` with the operator's ceiling set to ``level`` (the ``--max-autonomy`` flag)."""
    governance = config.governance.model_copy(update={"max_level": parse_level(level)})
    return config.with_overrides(governance=governance)


def escalate_when_reason(item: AttentionItem, rule: EscalateWhen) -> str:
    """Why ``governance.escalate_when`` turns this act item into an escalation ("" if not)."""
    if item.dispatch_mode != DispatchMode.ACT:
        return ""
    confidence = item.coverage.decision_confidence
    if rule.confidence_below is not None and confidence < rule.confidence_below:
        return f"escalate_when: confidence {confidence:.2f} < {rule.confidence_below:g}"
    cost = item.goal.metadata.get("estimated_cost_usd") if item.goal is not None else None
    if (
        rule.cost_exceeds_usd is not None
        and isinstance(cost, int | float)
        and not isinstance(cost, bool)
        and cost > rule.cost_exceeds_usd
    ):
        return f"escalate_when: cost ${cost:g} > ${rule.cost_exceeds_usd:g}"
    return ""


def apply_escalate_when(
    items: Sequence[AttentionItem], governance: GovernanceConfig
) -> list[AttentionItem]:
    """Turn act items that meet ``escalate_when`` into escalations (document 002 §4.6)."""
    out = []
    for item in items:
        why = escalate_when_reason(item, governance.escalate_when)
        if why:
            item = replace(item, dispatch_mode=DispatchMode.ESCALATE, mode_reason=why)
        out.append(item)
    return out


class ActionRateLimit:
    """Sliding one-hour window of action dispatches (``max_actions_per_hour``, §4.6)."""

    def __init__(self, per_hour: int | None) -> None:
        self.per_hour = per_hour
        self._times: deque[float] = deque()

    def allows(self, now_s: float) -> bool:
        """Whether one more action may run at ``now_s`` (seconds)."""
        if self.per_hour is None:
            return True
        while self._times and now_s - self._times[0] >= 3600.0:
            self._times.popleft()
        return len(self._times) < self.per_hour

    def record(self, now_s: float) -> None:
        """Count one action at ``now_s``."""
        self._times.append(now_s)


# --- ampersand.json governance block (§4.6, §4.8) ------------------------------------------------


class AutonomyBudgetDecl(BaseModel):
    """``governance.autonomy.budget`` of ampersand.json."""

    model_config = ConfigDict(extra="forbid")

    max_actions_per_hour: int | None = Field(default=None, ge=0)
    max_explore_calls_per_cycle: int | None = Field(default=None, ge=0)
    max_deliberation_sccs_per_cycle: int | None = Field(default=None, ge=0)
    require_approval_for: list[DispatchMode] = Field(default_factory=list)


class AutonomyDecl(BaseModel):
    """``governance.autonomy`` of ampersand.json."""

    model_config = ConfigDict(extra="forbid")

    level: AutonomyLevel = AutonomyLevel.OBSERVE
    heartbeat_seconds: float | None = Field(default=None, gt=0, le=31_536_000)  # a year
    budget: AutonomyBudgetDecl = AutonomyBudgetDecl()


def autonomy_json_schema() -> dict[str, Any]:
    """JSON Schema of the ``governance.autonomy`` block (Gate E)."""
    return AutonomyDecl.model_json_schema()


def _escalate_when(raw: Any) -> EscalateWhen:
    """Parse ``governance.escalate_when``; unknown conditions are refused, not ignored."""
    if raw is None:
        return EscalateWhen()
    if not isinstance(raw, dict):
        raise InvalidArgumentError("governance.escalate_when: must be an object")
    try:
        return validate_strict(EscalateWhen, raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InvalidArgumentError(f"governance.escalate_when.{where}: {first['msg']}") from None


def load_ampersand(
    path: str, *, org_max: AutonomyLevel | str | None = None, base: EngineConfig | None = None
) -> EngineConfig:
    """Read an ampersand.json file and compose the engine config (:func:`config_from_ampersand`)."""
    from heedful.model.documents import read_document

    document = read_document(path, json_only=True)
    if not isinstance(document, dict):
        raise InvalidArgumentError(f"governance file {path} must hold a JSON object")
    try:
        return config_from_ampersand(document, org_max=org_max, base=base)
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(f"{path}: {exc}") from None


def config_from_ampersand(
    document: dict[str, Any],
    *,
    org_max: AutonomyLevel | str | None = None,
    base: EngineConfig | None = None,
) -> EngineConfig:
    """Compose an engine config from an ampersand.json document and an organisation maximum.

    The governance file is the operator's grant: its declared ``governance.autonomy.level``
    (downgraded to ``org_max`` when one is given) becomes both the engine's level and its
    ceiling, so a client can ask for that level or less, never more.

    Args:
        document: The parsed ampersand.json (only ``governance.autonomy`` is read).
        org_max: The Delegatic maximum autonomy for the organisation (none: the declared
            level stands).
        base: Config to start from (defaults otherwise).

    Returns:
        The composed config; a declared level above ``org_max`` is downgraded to it.
    """
    block = document.get("governance")
    if not isinstance(block, dict):
        raise InvalidArgumentError("ampersand document has no governance block")
    raw = block.get("autonomy")
    if raw is None:
        raise InvalidArgumentError("ampersand document has no governance.autonomy block")
    try:
        decl = validate_strict(AutonomyDecl, raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InvalidArgumentError(f"governance.autonomy.{where}: {first['msg']}") from None
    cap = effective_level(decl.level, parse_level(org_max) if org_max is not None else decl.level)
    cfg = base or EngineConfig()
    budget = cfg.budget.model_copy(
        update={
            k: v
            for k, v in {
                "max_explore_calls": decl.budget.max_explore_calls_per_cycle,
                "max_deliberation_sccs": decl.budget.max_deliberation_sccs_per_cycle,
            }.items()
            if v is not None
        }
    )
    governance = cfg.governance.model_copy(
        update={
            "max_level": cap,
            "require_approval_for": tuple(decl.budget.require_approval_for),
            "max_actions_per_hour": decl.budget.max_actions_per_hour,
            "escalate_when": _escalate_when(block.get("escalate_when")),
        }
    )
    changes: dict[str, Any] = {
        "autonomy": cap,
        "budget": budget,
        "governance": governance,
    }
    if decl.heartbeat_seconds is not None:
        changes["heartbeat_ms"] = decl.heartbeat_seconds * 1000.0
    return cfg.with_overrides(**changes)
