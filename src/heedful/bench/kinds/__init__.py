"""The scenario kinds of the benchmark, one module each, behind one contract.

- :mod:`~heedful.bench.kinds.contract` — what a kind supplies (:class:`ScenarioKindSpec`), the
  decorator that registers it (:func:`scenario_kind`) and the registry (:func:`get_kind`,
  :func:`kind_of`, the families of every kind).
- :mod:`~heedful.bench.kinds.inspection` — which sources to read before one decision (A–I).
- :mod:`~heedful.bench.kinds.switching` — stay, queue or preempt while mid-task (D).
- :mod:`~heedful.bench.kinds.schedule` — obligations on several timescales (J).

Adding a kind is one module: a :class:`ScenarioKindSpec` subclass decorated with
:func:`scenario_kind` (its policies subclass its ``policy_base`` and register with
:func:`heedful.bench.register_policy`). Importing the module registers it; the built-in kinds
are imported here.
"""

from __future__ import annotations

import importlib

from heedful.bench.kinds.contract import (
    Column,
    KindCase,
    KindFamily,
    KindTable,
    MeanOf,
    ScenarioKindSpec,
    TrialJob,
    ci_text,
    family_of,
    generate_kind_family,
    get_kind,
    kind_families,
    kind_names,
    kind_of,
    mean_text,
    registered_kinds,
    scenario_kind,
    score_of,
    share_ci_text,
    share_text,
    trial_head,
)

#: The built-in kinds, in the order their rows, trials and tables come (each registers itself
#: when its module is imported).
BUILTIN_KINDS = ("inspection", "switching", "schedule")

for _name in BUILTIN_KINDS:
    importlib.import_module(f"{__name__}.{_name}")

__all__ = [
    "BUILTIN_KINDS",
    "Column",
    "KindCase",
    "KindFamily",
    "KindTable",
    "MeanOf",
    "ScenarioKindSpec",
    "TrialJob",
    "ci_text",
    "family_of",
    "generate_kind_family",
    "get_kind",
    "kind_families",
    "kind_names",
    "kind_of",
    "mean_text",
    "registered_kinds",
    "scenario_kind",
    "score_of",
    "share_ci_text",
    "share_text",
    "trial_head",
]
