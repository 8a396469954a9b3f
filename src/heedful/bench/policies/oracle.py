"""The oracle policy of the inspection kind lives with its kind, in
:mod:`heedful.bench.kinds.inspection` (the one policy handed the truth, document 000 §14.5,
§21); it is named here too, beside the other built-in policies."""

from __future__ import annotations

from heedful.bench.kinds.inspection import OraclePolicy

__all__ = ["OraclePolicy"]
