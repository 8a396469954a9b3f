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
    EdgeDecayConfig,
    EngineConfig,
    EscalateWhen,
    GovernanceConfig,
    TriageConfig,
    load_engine_config,
)
from heedful.engine.coverage import Coverage, assess
from heedful.engine.decay import StaleEdgeDecay
from heedful.engine.defaults import (
    DuplicateConsolidator,
    GapDecomposer,
    GraphResearch,
    PlanExecutor,
)
from heedful.engine.engine import Engine
from heedful.engine.governance import autonomy_json_schema, config_from_ampersand, load_ampersand
from heedful.engine.journal import Journal, JournalEntry, RecordingGraph, UndoableGraph, undo
from heedful.engine.memgraph import InMemoryGraph
from heedful.engine.ports import (
    ActionPort,
    ActionRequest,
    ActionResult,
    Conclusion,
    ConsolidatorPort,
    DecomposerPort,
    DeliberationRequest,
    DeliberationResult,
    DeliberatorPort,
    EdgeDecayPort,
    FaultLineDeliberator,
    Finding,
    GraphPort,
    InspectionLead,
    LogNotifier,
    NoActionExecutor,
    Notice,
    NotifierPort,
    ResearchPort,
)
from heedful.engine.records import EdgeRecord, NodeRecord, OutcomeRecord
from heedful.engine.research import ControllerResearch
from heedful.engine.results import CycleResult, DispatchRecord, Ledger
from heedful.engine.store_adapter import StoreGraph, journal_path, open_engine
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
    "ConsolidatorPort",
    "ControllerResearch",
    "Coverage",
    "CoverageConfig",
    "CycleResult",
    "DecomposerPort",
    "DeliberationBudget",
    "DeliberationRequest",
    "DeliberationResult",
    "DeliberatorPort",
    "DispatchMode",
    "DispatchRecord",
    "DuplicateConsolidator",
    "EdgeDecayConfig",
    "EdgeDecayPort",
    "EdgeRecord",
    "Engine",
    "EngineConfig",
    "EscalateWhen",
    "FaultLineDeliberator",
    "Finding",
    "GapDecomposer",
    "GovernanceConfig",
    "GraphPort",
    "GraphResearch",
    "InMemoryGraph",
    "InspectionLead",
    "Journal",
    "JournalEntry",
    "Ledger",
    "LogNotifier",
    "NoActionExecutor",
    "NodeRecord",
    "Notice",
    "NotifierPort",
    "OutcomeRecord",
    "PlanExecutor",
    "RecordingGraph",
    "ResearchPort",
    "StaleEdgeDecay",
    "StoreGraph",
    "Topology",
    "TriageConfig",
    "UndoableGraph",
    "analyze",
    "assess",
    "autonomy_json_schema",
    "config_from_ampersand",
    "journal_path",
    "load_ampersand",
    "load_engine_config",
    "open_engine",
    "triage",
    "undo",
]
