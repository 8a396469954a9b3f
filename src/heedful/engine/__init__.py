"""heedful.engine: the proactive attention engine of document 002.

survey (coverage, κ topology) → triage → dispatch → reflect, driven by a heartbeat, deadlines,
events or a manual ``run_cycle``. Pure calculators (:mod:`~heedful.engine.topology`,
:mod:`~heedful.engine.coverage`, :mod:`~heedful.engine.triage`) are separate from the stateful
engine.
"""

from __future__ import annotations

from heedful.engine.config import (
    AutonomyLevel,
    BudgetConfig,
    CoverageConfig,
    DispatchMode,
    EngineConfig,
    GovernanceConfig,
    TriageConfig,
    load_engine_config,
)
from heedful.engine.coverage import Coverage, assess
from heedful.engine.records import (
    EdgeRecord,
    EdgeType,
    NodeRecord,
    NodeType,
    OutcomeRecord,
    OutcomeStatus,
)
from heedful.engine.topology import Component, DeliberationBudget, Topology, analyze
from heedful.engine.triage import AttentionItem, triage

__all__ = [
    "AttentionItem",
    "AutonomyLevel",
    "BudgetConfig",
    "Component",
    "Coverage",
    "CoverageConfig",
    "DeliberationBudget",
    "DispatchMode",
    "EdgeRecord",
    "EdgeType",
    "EngineConfig",
    "GovernanceConfig",
    "NodeRecord",
    "NodeType",
    "OutcomeRecord",
    "OutcomeStatus",
    "Topology",
    "TriageConfig",
    "analyze",
    "assess",
    "load_engine_config",
    "triage",
]
