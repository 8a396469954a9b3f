"""The contract of a scenario kind, and the one decorator that registers a kind.

A scenario kind (inspection, switching, schedule, …) is one module of :mod:`heedful.bench.kinds`
holding one subclass of :class:`ScenarioKindSpec`, decorated with :func:`scenario_kind`. The
class says everything that makes the kind that kind:

- how its scenario is recognised (``scenario``, the loaded class; the kind's file reader is
  named by ``reader``) and its generated families (``families``: each code's generator);
- how a scenario is prepared into its *case* — the compiled problem and the exact oracle,
  PRIVATE, evaluator side (:meth:`~ScenarioKindSpec.prepare`) — and handed to the one policy
  given the truth (:meth:`~ScenarioKindSpec.bind`);
- how one policy plays one trial, scored against that oracle (:meth:`~ScenarioKindSpec.play`),
  and the record order of a scenario's trials (``policy_major``);
- its policies' protocol (``policy_base``; every policy of the kind subclasses it and is
  registered with :func:`heedful.bench.register_policy`);
- its trial record and aggregate row (``trial_record``, ``row``) and the row's own columns
  (:meth:`~ScenarioKindSpec.columns`), its table in the report (``table``) and what ``heedful
  bench oracle`` prints of a case (:meth:`~ScenarioKindSpec.oracle_record`).

The runner (:mod:`heedful.bench.run`), the aggregation (:mod:`heedful.bench.score.aggregate`),
the results file and the report know kinds only through this contract. The inspection kind has
its own record, rows and tables (its rich metrics); the other kinds share the generic ones
written here and in :mod:`heedful.bench.results.kinds`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import numpy as np
from pydantic import BaseModel

from heedful.bench.config import BenchConfig
from heedful.bench.policy import KindPolicy, add_policy_kind
from heedful.bench.results.kinds import KindRow, register_records
from heedful.bench.seeds import Stream, generator, name_key
from heedful.bench.stats import MeanCI, Proportion
from heedful.bench.worlds.families import scenario_rngs
from heedful.errors import InvalidArgumentError, UnknownNameError

__all__ = [
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

C = TypeVar("C")
R = TypeVar("R")


@dataclass(frozen=True)
class TrialJob:
    """The settings every scenario of a run shares (picklable, sent to worker processes).

    Attributes:
        trials: Trials per scenario and policy.
        seed: Root seed.
        config: Benchmark settings.
        adaptive: Inspection: reveal each observation before the next choice.
        sealed: A hold-out run (no scenario is named).
        initiation: Inspection: record the unprompted-condition metrics on every trial.
        keep_plays: Inspection: keep the trace of every play of a controller policy.
    """

    trials: int
    seed: int
    config: BenchConfig
    adaptive: bool = False
    sealed: bool = False
    initiation: bool = False
    keep_plays: bool = False


@dataclass(frozen=True)
class KindFamily:
    """A generated family of a scenario kind (document 000 §16).

    Attributes:
        code: Its code (``D``), as ``--family`` names it.
        name: Its long name (``switching``), which ``--family`` accepts too.
        kind: The kind it is a family of.
        version: Its generator's version, recorded in the manifest.
        description: One line for ``heedful bench families``.
        make: ``(rng, wording rng, scenario id)`` → one scenario.
    """

    code: str
    name: str
    kind: str
    version: str
    description: str
    make: Callable[[np.random.Generator, np.random.Generator, str], Any]


#: ``cluster_mean`` of one trial field over a row's trials.
MeanOf = Callable[[Callable[[Any], float | None]], MeanCI | None]


@dataclass(frozen=True)
class Column:
    """One column a kind adds to its table (terminal and report.html).

    Attributes:
        terminal: Its header in the terminal table (``\\n`` breaks it).
        html: Its header in report.html.
        cell: The terminal cell of a row (a mean, laid out for 80 columns).
        html_cell: The report.html cell of a row (with its interval); default ``cell``.
    """

    terminal: str
    html: str
    cell: Callable[[Any], str]
    html_cell: Callable[[Any], str] | None = None


@dataclass(frozen=True)
class KindTable:
    """How the report draws a kind's rows: the caption under the terminal table, the columns
    after score, regret and optimal."""

    caption: str
    columns: tuple[Column, ...]


class _Oracle(Protocol):
    @property
    def v_star(self) -> float: ...
    @property
    def u_random(self) -> float: ...


Sc = TypeVar("Sc")
Pr = TypeVar("Pr")
Or = TypeVar("Or", bound=_Oracle)


@dataclass(frozen=True)
class KindCase(Generic[Sc, Pr, Or]):
    """A scenario with its compiled problem and exact oracle (PRIVATE; evaluator side).

    What the kinds other than inspection share as a case; ``oracle`` has ``v_star`` and
    ``u_random``.
    """

    scenario: Sc
    problem: Pr
    oracle: Or

    def record(self, kind: str, **optimal: Any) -> dict[str, Any]:
        """What ``heedful bench oracle`` prints: the id, the kind, V*, U_random and ``optimal``."""
        return {
            "id": self.scenario.id,  # type: ignore[attr-defined]
            "kind": kind,
            "v_star": self.oracle.v_star,
            "u_random": self.oracle.u_random,
            **optimal,
        }


class ScenarioKindSpec(Generic[C, R]):
    """The contract of a scenario kind (see the module docstring for each part).

    Subclass it in the kind's module and decorate the subclass with :func:`scenario_kind`;
    the registry holds one instance. Class attributes:

    Attributes:
        kind: The kind's name, the ``kind`` of its scenarios, records and rows.
        scenario: The class of its loaded scenarios (a scenario's kind is found by it).
        reader: Where its scenario files are read (a dotted name, for the documentation).
        policy_base: The base class of its policies (inspection: :class:`~heedful.bench.Policy`).
        trial_record: The pydantic model of one trial's record (``kind`` field first-class).
        row: The pydantic model of its aggregate rows (``None``: the kind aggregates itself —
            the inspection kind, :func:`heedful.bench.score.aggregate.aggregate`).
        families: Its generated families.
        policy_major: The order of a scenario's records: policy by policy (each policy's trials
            together) or, when false, trial by trial (every policy of a trial together; the
            inspection kind, whose policies of one trial share its world).
        table: How the report draws its rows (``None``: the kind has its own tables).
    """

    kind: ClassVar[str] = ""
    scenario: ClassVar[type] = object
    reader: ClassVar[str] = ""
    policy_base: ClassVar[type] = KindPolicy
    trial_record: ClassVar[type[BaseModel]] = BaseModel
    row: ClassVar[type[KindRow] | None] = None
    families: ClassVar[tuple[KindFamily, ...]] = ()
    policy_major: ClassVar[bool] = True
    table: ClassVar[KindTable | None] = None

    def prepare(self, scenario: Any, key: int, job: TrialJob) -> C:
        """``(scenario, world key, job)`` → its case: the compiled problem and the exact oracle
        (PRIVATE), and whatever the kind's trials share."""
        raise NotImplementedError

    def bind(self, case: C, policy: Any) -> None:
        """Hand the case to a policy given the truth (the oracle policies: they have ``bind``),
        once per scenario before its trials; every other policy is left alone."""
        bind = getattr(policy, "bind", None)
        if bind is not None:
            bind(case)

    def play(self, case: C, name: str, policy: Any, trial: int, job: TrialJob) -> R:
        """One policy plays one trial of a case; its record, scored against the case's oracle."""
        raise NotImplementedError

    def columns(
        self, trials: Sequence[Any], mean: MeanOf, clusters: list[str], config: BenchConfig
    ) -> dict[str, Any]:
        """The row's own columns, from its trials (``mean``: the clustered mean with CI of a
        trial field; ``clusters``: the scenario id of each trial)."""
        return {}

    def oracle_record(self, scenario: Any) -> dict[str, Any]:
        """What ``heedful bench oracle`` prints of a scenario (JSON-able: id, kind, V* …)."""
        raise NotImplementedError

    def oracle_lines(self, record: dict[str, Any]) -> list[str]:
        """The lines ``heedful bench oracle`` prints under a record's id (after V* and
        U_random)."""
        return []

    def rng(self, case: Any, name: str, trial: int, job: TrialJob) -> np.random.Generator:
        """A policy's own stream of the seed for one (scenario, trial, policy)."""
        return generator(job.seed, Stream.POLICY, name_key(case.scenario.id), trial, name_key(name))


_KINDS: dict[str, ScenarioKindSpec[Any, Any]] = {}
K = TypeVar("K", bound=type[ScenarioKindSpec[Any, Any]])


def scenario_kind(cls: K) -> K:
    """Class decorator: register a scenario kind (one instance of ``cls``).

    Its policy base joins the one policy registry, its records and row the results file.

    Raises:
        ValueError: no ``kind`` name, the name taken by another class, or a family code taken.
    """
    name = cls.kind
    if not name:
        raise ValueError(f"@scenario_kind: {cls.__name__} sets no kind name")
    existing = _KINDS.get(name)
    if existing is not None and type(existing).__qualname__ != cls.__qualname__:
        raise ValueError(f"scenario kind {name!r} is already registered to {type(existing)}")
    taken = {f.code: k for k, spec in _KINDS.items() if k != name for f in spec.families}
    for fam in cls.families:
        if fam.code in taken:
            raise ValueError(f"family code {fam.code!r} is already a family of {taken[fam.code]}")
    _KINDS[name] = cls()
    if name != "inspection":
        add_policy_kind(name, cls.policy_base)
        register_records(name, cls.trial_record, cls.row or KindRow)
    return cls


def registered_kinds() -> list[ScenarioKindSpec[Any, Any]]:
    """Every registered kind, in registration order (inspection, switching, schedule, …)."""
    return list(_KINDS.values())


def kind_names() -> list[str]:
    """The names of the registered kinds, in registration order."""
    return list(_KINDS)


def get_kind(name: str) -> ScenarioKindSpec[Any, Any]:
    """The registered kind named ``name``.

    Raises:
        UnknownNameError: naming the known kinds.
    """
    try:
        return _KINDS[name]
    except KeyError:
        known = ", ".join(_KINDS)
        raise UnknownNameError(f"unknown scenario kind {name!r}; known kinds: {known}") from None


def kind_of(scenario: Any) -> str:
    """The kind of a loaded or generated scenario (by its class).

    Raises:
        InvalidArgumentError: an object no registered kind has as its scenario.
    """
    for name, spec in _KINDS.items():
        if isinstance(scenario, spec.scenario):
            return name
    raise InvalidArgumentError(f"{type(scenario).__name__} is a scenario of no registered kind")


def kind_families() -> dict[str, KindFamily]:
    """The generated families of every kind but inspection, by code (inspection families are
    :data:`heedful.bench.worlds.families.FAMILIES`)."""
    return {f.code: f for spec in _KINDS.values() for f in spec.families}


def family_of(code: str) -> KindFamily:
    """The family of a kind other than inspection with code ``code``.

    Raises:
        UnknownNameError: no such family.
    """
    families = kind_families()
    if code not in families:
        raise UnknownNameError(f"unknown family {code!r}; known: {', '.join(sorted(families))}")
    return families[code]


def generate_kind_family(
    code: str, count: int, seed: int, *, stream: Stream = Stream.DEV
) -> list[Any]:
    """Generate ``count`` scenarios of a family of a kind other than inspection (same seeding
    scheme as every family).

    Raises:
        InvalidArgumentError: a count below 1.
        UnknownNameError: no such family.
    """
    fam = family_of(code)
    if count < 1:
        raise InvalidArgumentError(f"count must be at least 1, got {count}")
    tag = "d" if stream is Stream.DEV else "h"
    out = []
    for i in range(count):
        rng, wording = scenario_rngs(code, seed, i, stream)
        out.append(fam.make(rng, wording, f"{code}-{tag}{seed}-{i:04d}"))
    return out


def score_of(value: float, v_star: float, u_random: float, config: BenchConfig) -> float | None:
    """``100·(V − U_random)/(V* − U_random)``, never clipped (SPEC §3).

    ``None`` when the trial is uninformative (``V* − U_random`` below the configured gap).
    """
    gap = v_star - u_random
    return None if gap < config.uninformative_gap else 100.0 * (value - u_random) / gap


class _Named(Protocol):
    @property
    def name(self) -> str: ...


def trial_head(
    case: KindCase[Any, Any, Any],
    policy: _Named,
    value: float,
    violations: int,
    *,
    trial: int,
    config: BenchConfig,
) -> dict[str, Any]:
    """The fields every kind's trial record shares: value against the oracle, score, optimality."""
    oracle = case.oracle
    scenario: Any = case.scenario
    return {
        "scenario_id": scenario.id,
        "family": scenario.view.family,
        "policy": policy.name,
        "trial": trial,
        "value": value,
        "v_star": oracle.v_star,
        "u_random": oracle.u_random,
        "regret": oracle.v_star - value,
        "score": score_of(value, oracle.v_star, oracle.u_random, config),
        "uninformative": oracle.v_star - oracle.u_random < config.uninformative_gap,
        "optimal": value >= oracle.v_star - config.optimal_tolerance,
        "violations": violations,
    }


def mean_text(m: MeanCI | None, digits: int) -> str:
    """A mean alone (the terminal's cells); ``—`` when there is none; never ``-0.000``."""
    return "—" if m is None else f"{round(m.mean, digits) + 0.0:.{digits}f}"


def ci_text(m: MeanCI | None, digits: int = 1) -> str:
    """A mean with its interval, ``mean [lo, hi]`` (report.html's cells)."""
    if m is None:
        return "—"
    return f"{m.mean:.{digits}f} [{m.lo:.{digits}f}, {m.hi:.{digits}f}]"


def share_text(p: Proportion | None) -> str:
    """A proportion alone (the terminal's cells)."""
    return "—" if p is None or p.p is None else f"{p.p:.2f}"


def share_ci_text(p: Proportion | None) -> str:
    """A proportion with its interval (report.html's cells)."""
    return "—" if p is None or p.p is None else f"{p.p:.2f} [{p.lo:.2f}, {p.hi:.2f}]"
