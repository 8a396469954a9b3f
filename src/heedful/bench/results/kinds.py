"""Result records of the scenario kinds other than inspection (docs/metrics.md, "Families D and
J"): the parts every such kind shares, and the registry of each kind's own record and row.

Each kind's module (:mod:`heedful.bench.kinds`) defines its trial record (a :class:`KindTrial`
with a ``kind`` literal) and its aggregate row (a :class:`KindRow` with its columns), and
:func:`heedful.bench.kinds.scenario_kind` registers them here with :func:`register_records`; the
results file reads a row or a trial by its ``kind``. Their trials sit beside the inspection
trials (``Results.kinds``: one list per kind, so a run that mixes kinds keeps each kind's
metrics typed); their rows and paired rows are in ``aggregates.rows`` and ``aggregates.paired``
with every other family's, told apart by ``kind``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from heedful.bench.results._trial import ScoredTrial, TrialKey
from heedful.bench.stats import MeanCI, PairedDiff, Proportion

__all__ = [
    "KindPairedRow",
    "KindRecords",
    "KindResults",
    "KindRow",
    "KindTrial",
    "kind_records",
    "recorded_kinds",
    "register_records",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class KindTrial(ScoredTrial, TrialKey):
    """What every trial record of a kind other than inspection has: the key, the score, the
    protocol violations and the failure code. A kind's record adds ``kind`` and its fields.

    Bases in this order keep the file's field order: the key, then the score (see ._trial).
    """

    violations: int = 0
    failure: str | None = None


class KindRow(_Model):
    """Aggregates of one policy on one family of a kind other than inspection (a kind's row
    adds its columns: :meth:`heedful.bench.kinds.ScenarioKindSpec.columns`)."""

    kind: str
    family: str
    policy: str
    n_trials: int
    n_informative: int
    score: MeanCI | None
    regret: MeanCI
    optimal: Proportion
    violations: int
    failures: dict[str, int]


class KindPairedRow(_Model):
    """Policy ``a`` against policy ``b`` on matched (scenario, trial) pairs of one family."""

    kind: str
    family: str
    policy_a: str
    policy_b: str
    score: PairedDiff | None
    regret: PairedDiff | None


@dataclass(frozen=True)
class KindRecords:
    """A kind's record models: its trial record and its aggregate row."""

    trial: type[BaseModel]
    row: type[KindRow]


_RECORDS: dict[str, KindRecords] = {}


def register_records(kind: str, trial: type[BaseModel], row: type[KindRow]) -> None:
    """Name a kind's trial record and row (:func:`heedful.bench.kinds.scenario_kind` calls it)."""
    _RECORDS[kind] = KindRecords(trial, row)


def kind_records(kind: str) -> KindRecords:
    """The record models of a kind other than inspection.

    Raises:
        ValueError: no kind of that name (a results file naming it does not load).
    """
    if kind not in _RECORDS:
        importlib.import_module("heedful.bench.kinds")  # the built-in kinds register here
    if kind not in _RECORDS:
        raise ValueError(f"unknown scenario kind {kind!r} (known: {', '.join(_RECORDS)})")
    return _RECORDS[kind]


def recorded_kinds() -> list[str]:
    """The kinds other than inspection with records, in registration order."""
    importlib.import_module("heedful.bench.kinds")
    return list(_RECORDS)


class KindResults(BaseModel):
    """Every trial of the kinds other than inspection of one run, one list per kind
    (``switching``, ``schedule``, …; their rows are ``aggregates``').

    Each list is read with its kind's trial record (:func:`kind_records`).
    """

    model_config = ConfigDict(extra="allow")

    @model_validator(mode="before")
    @classmethod
    def _typed(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        out: dict[str, Any] = {}
        for kind, trials in data.items():
            model = kind_records(kind).trial
            if not isinstance(trials, list):
                raise ValueError(f"{kind}: a list of trial records, got {type(trials).__name__}")
            out[kind] = [t if isinstance(t, model) else model.model_validate(t) for t in trials]
        return out

    def of(self, kind: str) -> list[Any]:
        """The trials of one kind (empty when the run had none)."""
        return list((self.model_extra or {}).get(kind, []))
