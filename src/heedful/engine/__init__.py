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
from heedful.engine.engine import Engine
from heedful.engine.governance import autonomy_json_schema, config_from_ampersand
from heedful.engine.memgraph import InMemoryGraph
from heedful.engine.ports import (
    ActionPort,
    ActionRequest,
    ActionResult,
    Conclusion,
    DeliberationRequest,
    DeliberationResult,
    DeliberatorPort,
    FaultLineDeliberator,
    Finding,
    GraphPort,
    LogNotifier,
    Notice,
    NotifierPort,
    ResearchPort,
)
from heedful.engine.records import EdgeRecord, NodeRecord, OutcomeRecord
from heedful.engine.results import CycleResult, DispatchRecord, Ledger
from heedful.engine.store_adapter import StoreGraph, open_engine
from heedful.engine.topology import Component, DeliberationBudget, Topology, analyze
from heedful.engine.triage import AttentionItem, triage

__all__ = [
    "ActionPort",
    "ActionRequest",
    "ActionResult",
    "AttentionItem",
    "AutonomyLevel",
    "BudgetConfig",
    "Component",
    "Conclusion",
    "Coverage",
    "CoverageConfig",
    "CycleResult",
    "DeliberationBudget",
    "DeliberationRequest",
    "DeliberationResult",
    "DeliberatorPort",
    "DispatchMode",
    "DispatchRecord",
    "EdgeRecord",
    "Engine",
    "EngineConfig",
    "FaultLineDeliberator",
    "Finding",
    "GovernanceConfig",
    "GraphPort",
    "InMemoryGraph",
    "Ledger",
    "LogNotifier",
    "NodeRecord",
    "Notice",
    "NotifierPort",
    "OutcomeRecord",
    "ResearchPort",
    "StoreGraph",
    "Topology",
    "TriageConfig",
    "analyze",
    "assess",
    "autonomy_json_schema",
    "config_from_ampersand",
    "load_engine_config",
    "open_engine",
    "triage",
]
