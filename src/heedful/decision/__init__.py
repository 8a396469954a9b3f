"""Exact decision theory on numpy: decision problems, value of information, exact oracles.

Pure: no I/O, no clock. SPEC §3; document 000 §14.
"""

from __future__ import annotations

from heedful.decision.adaptive import (
    AdaptiveOracleResult,
    History,
    Policy,
    PolicyEvaluation,
    adaptive_oracle,
    evaluate_policy,
    policy_value,
    static_policy,
)
from heedful.decision.belief import (
    MyopicVoi,
    Observations,
    best_action,
    myopic_voi,
    myopic_voi_all,
    posterior,
    sample_outcome,
    vpi,
)
from heedful.decision.compile import HONESTY_DOMAIN, compile_problem, honesty_variable
from heedful.decision.config import (
    DEFAULT_LIMITS,
    OPTIMAL_TOLERANCE,
    UNINFORMATIVE_TOLERANCE,
    DecisionLimits,
)
from heedful.decision.heuristic import heuristic_voc, utility_tensor
from heedful.decision.problem import (
    DecisionProblem,
    OutcomeLabel,
    outcome_index,
    outcome_values,
)
from heedful.decision.static import StaticOracleResult, all_subset_values, static_oracle
from heedful.decision.valuation import value, value_empty

__all__ = [
    "DEFAULT_LIMITS",
    "HONESTY_DOMAIN",
    "OPTIMAL_TOLERANCE",
    "UNINFORMATIVE_TOLERANCE",
    "AdaptiveOracleResult",
    "DecisionLimits",
    "DecisionProblem",
    "History",
    "MyopicVoi",
    "Observations",
    "OutcomeLabel",
    "Policy",
    "PolicyEvaluation",
    "StaticOracleResult",
    "adaptive_oracle",
    "all_subset_values",
    "best_action",
    "compile_problem",
    "evaluate_policy",
    "heuristic_voc",
    "honesty_variable",
    "myopic_voi",
    "myopic_voi_all",
    "outcome_index",
    "outcome_values",
    "policy_value",
    "posterior",
    "sample_outcome",
    "static_oracle",
    "static_policy",
    "utility_tensor",
    "value",
    "value_empty",
    "vpi",
]
