"""Exact decision theory on numpy: decision problems, value of information, exact oracles.

Pure: no I/O, no clock. SPEC §3; document 000 §14.
"""

from __future__ import annotations

from heedful.decision.compile import compile_problem
from heedful.decision.config import (
    DEFAULT_LIMITS,
    OPTIMAL_TOLERANCE,
    UNINFORMATIVE_TOLERANCE,
    DecisionLimits,
)
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
    "OPTIMAL_TOLERANCE",
    "UNINFORMATIVE_TOLERANCE",
    "DecisionLimits",
    "DecisionProblem",
    "OutcomeLabel",
    "StaticOracleResult",
    "all_subset_values",
    "compile_problem",
    "outcome_index",
    "outcome_values",
    "static_oracle",
    "value",
    "value_empty",
]
