"""heedful.engine: the proactive attention engine of document 002.

survey (coverage, κ topology) → triage → dispatch → reflect, driven by a heartbeat, deadlines,
events or a manual ``run_cycle``. Pure calculators (:mod:`~heedful.engine.topology`,
:mod:`~heedful.engine.coverage`, :mod:`~heedful.engine.triage`) are separate from the stateful
engine.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

from heedful.lazy import lazy_names

if TYPE_CHECKING:
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
    from heedful.engine.governance import (
        autonomy_json_schema,
        config_from_ampersand,
        load_ampersand,
    )
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

#: Each public name and the submodule that defines it; they load on first use (PEP 562), so
#: importing one submodule does not import the whole package.
_HOME: dict[str, str] = {
    "ActionPort": "ports",
    "ActionRequest": "ports",
    "ActionResult": "ports",
    "AttentionItem": "triage",
    "AutonomyLevel": "config",
    "BudgetConfig": "config",
    "Component": "topology",
    "Conclusion": "ports",
    "ConsolidatorPort": "ports",
    "ControllerResearch": "research",
    "Coverage": "coverage",
    "CoverageConfig": "config",
    "CycleResult": "results",
    "DecomposerPort": "ports",
    "DeliberationBudget": "topology",
    "DeliberationRequest": "ports",
    "DeliberationResult": "ports",
    "DeliberatorPort": "ports",
    "DispatchMode": "config",
    "DispatchRecord": "results",
    "DuplicateConsolidator": "defaults",
    "EdgeDecayConfig": "config",
    "EdgeDecayPort": "ports",
    "EdgeRecord": "records",
    "Engine": "engine",
    "EngineConfig": "config",
    "EscalateWhen": "config",
    "FaultLineDeliberator": "ports",
    "Finding": "ports",
    "GapDecomposer": "defaults",
    "GovernanceConfig": "config",
    "GraphPort": "ports",
    "GraphResearch": "defaults",
    "InMemoryGraph": "memgraph",
    "InspectionLead": "ports",
    "Journal": "journal",
    "JournalEntry": "journal",
    "Ledger": "results",
    "LogNotifier": "ports",
    "NoActionExecutor": "ports",
    "NodeRecord": "records",
    "Notice": "ports",
    "NotifierPort": "ports",
    "OutcomeRecord": "records",
    "PlanExecutor": "defaults",
    "RecordingGraph": "journal",
    "ResearchPort": "ports",
    "StaleEdgeDecay": "decay",
    "StoreGraph": "store_adapter",
    "Topology": "topology",
    "TriageConfig": "config",
    "UndoableGraph": "journal",
    "analyze": "topology",
    "assess": "coverage",
    "autonomy_json_schema": "governance",
    "config_from_ampersand": "governance",
    "journal_path": "store_adapter",
    "load_ampersand": "governance",
    "load_engine_config": "config",
    "open_engine": "store_adapter",
    "triage": "triage",
    "undo": "journal",
}

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


class _Package(types.ModuleType):
    """``triage`` is the name of a function and of its submodule: importing the submodule must
    not rebind the package's ``triage`` (the function, loaded on first use) to the module."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "triage" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


__getattr__, __dir__ = lazy_names(__name__, _HOME, globals())
