"""Limits of the exact computations (SPEC §3, document 000 §14.3–§14.4).

The oracles refuse with :class:`heedful.errors.ProblemTooLargeError` before starting work that
would exceed these limits, instead of running for an hour or exhausting memory.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DecisionLimits:
    """Size limits of the exact computations.

    Attributes:
        max_worlds: Joint world states a scenario may compile to.
        max_subsets: Subsets the static oracle may enumerate (document 000 §14.3 asks for
            C(30, 5) = 142,506 to be routine; the default leaves two orders of magnitude).
        max_static_flops: Estimated floating-point work of the static oracle.
        max_static_bytes: Estimated peak memory of the static oracle's enumeration, in bytes
            (about ``40·budget + 48`` bytes per subset, measured; 490 sources at budget 3 need
            about 3 GB).
        max_rows: Joint observation rows held in memory at once (value of one set, static oracle).
        max_adaptive_nodes: Decision nodes the adaptive oracle or a policy evaluation may expand.
        max_adaptive_flops: Estimated floating-point work of the adaptive oracle.
    """

    max_worlds: int = 200_000
    max_subsets: int = 20_000_000
    max_static_flops: float = 5e10
    max_static_bytes: float = 1.5e9
    max_rows: int = 4_000_000
    max_adaptive_nodes: int = 2_000_000
    max_adaptive_flops: float = 5e10


DEFAULT_LIMITS = DecisionLimits()
"""The limits used when none are passed."""

OPTIMAL_TOLERANCE = 1e-9
"""Sets whose value is within this of V* are optimal (SPEC §3)."""

UNINFORMATIVE_TOLERANCE = 1e-9
"""``V* − U_random`` below this marks a trial uninformative (SPEC §3)."""
