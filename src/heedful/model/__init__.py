"""Vocabulary every other part speaks: scenarios, goals, claims, graph, candidates, events.

The names below load on first use (PEP 562): ``import heedful.model.documents`` — the bounded
loader every command runs before any work — does not pay for the pydantic models, so a bad file
is refused before the rest of the package is imported.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from heedful.model.candidate import (
        Candidate,
        CandidateKind,
        EventType,
        FailureCode,
        Floor,
        Resolution,
        TraceEvent,
        Trigger,
    )
    from heedful.model.claim import (
        SURPRISING,
        Claim,
        ClaimType,
        ClaimValue,
        Evidence,
        Justification,
        JustificationKind,
        Outcome,
        OutcomeStatus,
        SourceRecord,
    )
    from heedful.model.goal import (
        GOAL_TRANSITIONS,
        ClaimDependency,
        Goal,
        GoalPriority,
        GoalSource,
        GoalStatus,
        GoalTimescale,
        can_transition,
    )
    from heedful.model.graph import Edge, EdgeType, Node, NodeType, SearchHit
    from heedful.model.scenario import (
        FORMAT_V1,
        ActionView,
        Belief,
        Condition,
        Cost,
        SalienceCues,
        Scenario,
        ScenarioKind,
        ScenarioTruth,
        ScenarioView,
        SourceTruth,
        SourceView,
        TaskView,
        UtilityRule,
        VariableView,
        Volatility,
    )
    from heedful.model.scenario_io import (
        load_scenario_set,
        load_scenarios,
        scenario_files,
        scenario_from_dict,
        scenario_json_schema,
        scenario_to_dict,
    )

#: Each public name and the submodule that defines it.
_HOME: dict[str, str] = {
    "ActionView": "scenario",
    "Belief": "scenario",
    "Candidate": "candidate",
    "CandidateKind": "candidate",
    "Claim": "claim",
    "ClaimDependency": "goal",
    "ClaimType": "claim",
    "ClaimValue": "claim",
    "Condition": "scenario",
    "Cost": "scenario",
    "Edge": "graph",
    "EdgeType": "graph",
    "EventType": "candidate",
    "Evidence": "claim",
    "FORMAT_V1": "scenario",
    "FailureCode": "candidate",
    "Floor": "candidate",
    "GOAL_TRANSITIONS": "goal",
    "Goal": "goal",
    "GoalPriority": "goal",
    "GoalSource": "goal",
    "GoalStatus": "goal",
    "GoalTimescale": "goal",
    "Justification": "claim",
    "JustificationKind": "claim",
    "Node": "graph",
    "NodeType": "graph",
    "Outcome": "claim",
    "OutcomeStatus": "claim",
    "Resolution": "candidate",
    "SURPRISING": "claim",
    "SalienceCues": "scenario",
    "Scenario": "scenario",
    "ScenarioKind": "scenario",
    "ScenarioTruth": "scenario",
    "ScenarioView": "scenario",
    "SearchHit": "graph",
    "SourceRecord": "claim",
    "SourceTruth": "scenario",
    "SourceView": "scenario",
    "TaskView": "scenario",
    "TraceEvent": "candidate",
    "Trigger": "candidate",
    "UtilityRule": "scenario",
    "VariableView": "scenario",
    "Volatility": "scenario",
    "can_transition": "goal",
    "load_scenario_set": "scenario_io",
    "load_scenarios": "scenario_io",
    "scenario_files": "scenario_io",
    "scenario_from_dict": "scenario_io",
    "scenario_json_schema": "scenario_io",
    "scenario_to_dict": "scenario_io",
}

__all__ = [
    "FORMAT_V1",
    "GOAL_TRANSITIONS",
    "SURPRISING",
    "ActionView",
    "Belief",
    "Candidate",
    "CandidateKind",
    "Claim",
    "ClaimDependency",
    "ClaimType",
    "ClaimValue",
    "Condition",
    "Cost",
    "Edge",
    "EdgeType",
    "EventType",
    "Evidence",
    "FailureCode",
    "Floor",
    "Goal",
    "GoalPriority",
    "GoalSource",
    "GoalStatus",
    "GoalTimescale",
    "Justification",
    "JustificationKind",
    "Node",
    "NodeType",
    "Outcome",
    "OutcomeStatus",
    "Resolution",
    "SalienceCues",
    "Scenario",
    "ScenarioKind",
    "ScenarioTruth",
    "ScenarioView",
    "SearchHit",
    "SourceRecord",
    "SourceTruth",
    "SourceView",
    "TaskView",
    "TraceEvent",
    "Trigger",
    "UtilityRule",
    "VariableView",
    "Volatility",
    "can_transition",
    "load_scenario_set",
    "load_scenarios",
    "scenario_files",
    "scenario_from_dict",
    "scenario_json_schema",
    "scenario_to_dict",
]


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'heedful.model' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"heedful.model.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
