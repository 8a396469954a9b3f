"""heedful.attention — the runtime attention controller (SPEC §4; document 000 §6–§12, §19, §24).

generators → estimator → selector → trace, with a claim validator and a hijack guard. Drop
:class:`Controller` into an agent loop; the parts are public so they can be swapped or measured.
"""

from __future__ import annotations

from heedful.attention.config import (
    DEFAULT_CONFIG,
    DEFAULT_HAZARDS_PER_HOUR,
    AttentionConfig,
    EstimatorConfig,
    GeneratorConfig,
    GuardConfig,
    SelectorConfig,
)
from heedful.attention.context import (
    AttentionContext,
    ClaimState,
    DecisionModel,
    Focus,
    SourceInfo,
    p_stale,
)
from heedful.attention.controller import Controller, Stop
from heedful.attention.estimators import (
    Estimate,
    Estimator,
    HeuristicEstimator,
    SingleSignalEstimator,
)
from heedful.attention.generators import Generator, default_generators
from heedful.attention.guard import Admission, CandidateTable, Guard, Saturation
from heedful.attention.health import HealthReport, health
from heedful.attention.model_estimator import ModelEstimator, estimated_problem
from heedful.attention.selector import Selection, Selector, choose
from heedful.attention.trace import Trace
from heedful.attention.validator import (
    DEFAULT_CLAIM_POLICIES,
    ClaimPolicy,
    ClaimValidator,
    EvidenceRecord,
    Requirement,
    ValidatorMode,
    Verdict,
)
from heedful.decision.heuristic import heuristic_voc  # re-exported: the public name stays

__all__ = [
    "DEFAULT_CLAIM_POLICIES",
    "DEFAULT_CONFIG",
    "DEFAULT_HAZARDS_PER_HOUR",
    "Admission",
    "AttentionConfig",
    "AttentionContext",
    "CandidateTable",
    "ClaimPolicy",
    "ClaimState",
    "ClaimValidator",
    "Controller",
    "DecisionModel",
    "Estimate",
    "Estimator",
    "EstimatorConfig",
    "EvidenceRecord",
    "Focus",
    "Generator",
    "GeneratorConfig",
    "Guard",
    "GuardConfig",
    "HealthReport",
    "HeuristicEstimator",
    "ModelEstimator",
    "Requirement",
    "Saturation",
    "Selection",
    "Selector",
    "SelectorConfig",
    "SingleSignalEstimator",
    "SourceInfo",
    "Stop",
    "Trace",
    "ValidatorMode",
    "Verdict",
    "choose",
    "default_generators",
    "estimated_problem",
    "health",
    "heuristic_voc",
    "p_stale",
]
