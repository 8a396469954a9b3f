"""The policy protocol of the benchmark, and the registry of named policies.

A policy is built with its parameters (scikit-learn style), then for every trial the runner calls
``reset(view, rng)`` once and ``next(history)`` until it returns ``None`` (Gymnasium style). It
only ever receives a :class:`~heedful.model.TaskView` — the visible interface — and the
observations of its own inspections. In the static condition every history entry is
``withheld`` (the policy commits to all its choices before anything is revealed).

Writing one (see ``docs/benchmark.md``)::

    @register_policy("cheapest-first")
    class CheapestFirst(Policy):
        def reset(self, view, rng):
            order = sorted(view.sources, key=lambda s: s.cost.scalar())
            self._order, self._budget = [s.id for s in order], view.budget

        def next(self, history):
            if len(history) >= self._budget:
                return None
            return self._order[len(history)]
"""

from __future__ import annotations

import importlib
import inspect
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, ClassVar, TypeVar

import numpy as np

from heedful.bench.registry import add_named
from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.model import SourceView, TaskView
from heedful.model.candidate import TraceEvent


@dataclass(frozen=True)
class Observation:
    """What a policy learns about one inspection it asked for.

    Attributes:
        source_id: The inspected source.
        values: The reported values (variable → value); ``None`` if failed or withheld.
        failed: The inspection failed (retrieval failure): nothing was returned, it still cost.
        withheld: Static condition: the result exists but is not shown before all choices are made.
        revealed: Sources this read named that were hidden until now (issue 23), with their
            visible metadata; from this observation on they may be inspected. Given whatever the
            read returned (failed or withheld too): a link is structure, not a result.
    """

    source_id: str
    values: dict[str, str] | None = field(default=None, hash=False)
    failed: bool = False
    withheld: bool = False
    revealed: tuple[SourceView, ...] = field(default=(), hash=False)


class Policy(ABC):
    """Base class of every benchmark policy.

    Subclasses take their parameters as keyword arguments of ``__init__`` and store each one as an
    attribute of the same name, so :meth:`get_params` can report them (as scikit-learn does).

    Attributes:
        name: The registered name (set by :func:`register_policy`).
        deterministic: ``True`` if ``next`` depends only on the view and the history, never on the
            rng; the runner then also computes the policy's exact adaptive value.
        in_default_suite: ``False`` keeps the policy out of ``all`` (it runs only when named, or
            in the runs that add it, e.g. the unprompted condition).
        uses_observations: ``False`` if the policy's choices never depend on what it observed
            (it ranks the sources once at ``reset``). In the adaptive condition the value of
            its realized set is then exactly its value given its choices, which the runner uses
            instead of a noisier per-trial estimate.
        reads_task: ``True`` if the policy's choices depend on the task text (its own reading
            of it). A policy that reads no task text has an initiation gap of 0 by construction,
            so the tables print "n/a — reads no task text" for it instead of a finding.
        validates: ``True`` for a policy with a claim validator in production mode
            (document 000 §19, Appendix D): after it stops, the runner hands it the real
            observations of its reads and executes the reads :meth:`validate` forces. Its trials
            are scored in ``production`` mode; forced reads are never spontaneous attention.
    """

    name: ClassVar[str] = ""
    deterministic: ClassVar[bool] = True
    in_default_suite: ClassVar[bool] = True
    uses_observations: ClassVar[bool] = True
    reads_task: ClassVar[bool] = False
    validates: ClassVar[bool] = False

    @abstractmethod
    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        """Start a new trial on the visible interface ``view``, drawing randomness from ``rng``."""

    @abstractmethod
    def next(self, history: Sequence[Observation]) -> str | None:
        """Return the id of the next source to inspect, or ``None`` to stop."""

    def deterministic_for(self, view: TaskView) -> bool:
        """Whether ``next`` depends only on the view and the history on this task (never on the
        rng): ``deterministic`` by default. A randomised policy whose randomness cannot act on
        a task like ``view`` (``voc-default``: its exploration is paced and cannot fire before a
        controller's 10th selection, beyond any budget under 10) says so here; the runner then
        computes its exact adaptive value like a deterministic policy's, and ``check_policy``
        checks the claim."""
        return self.deterministic

    def validate(self, observations: Sequence[Observation]) -> list[str]:
        """Production mode (``validates``): the reads the claim validator forces before the
        decision, given the real observations of the reads made (static condition: the results
        that arrive after the plan). Outside the budget; never counted as attention."""
        return []

    def candidate_sources(self) -> frozenset[str] | None:
        """Sources that became inspection candidates during the last trial (document 000 §18).

        Controller-based policies override this so the evaluator can tell a candidate that was
        never generated (``ATTN_CANDIDATE_MISSING``) from one generated but not selected;
        ``None`` (the default) means the policy has no candidate stage to report.
        """
        return None

    def trace(self) -> Sequence[TraceEvent] | None:
        """The attention trace of the last trial (controller-based policies); ``None``: none."""
        return None

    def get_params(self) -> dict[str, Any]:
        """Return the constructor parameters and their current values."""
        params: dict[str, Any] = {}
        for pname, param in inspect.signature(type(self).__init__).parameters.items():
            if pname == "self" or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            if not hasattr(self, pname):
                raise InvalidArgumentError(
                    f"policy {type(self).__name__} must store its constructor parameter "
                    f"{pname!r} as self.{pname} (scikit-learn convention)"
                )
            params[pname] = getattr(self, pname)
        return params

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


_REGISTRY: dict[str, type[Policy]] = {}
_BUILTINS_LOADED = False


class KindPolicy:
    """The base of every policy protocol of a scenario kind other than inspection (each kind's
    module subclasses it: :class:`heedful.bench.kinds.switching.SwitchingPolicy` …).

    Attributes:
        kind: The scenario kind the policies of this base play (set once, by the base).
        name: The registered name.
        deterministic: ``True`` when answers depend only on what the policy sees.
        in_default_suite: ``False`` keeps the policy out of ``all``.
        information_free: ``True`` when its answers use nothing of the scenario (``random``, and
            the best fixed rule of a kind: ``always-queue`` on D, ``first-open`` on J) — the
            rows a table prints beside ``random`` to say what the 0 means.
    """

    kind: ClassVar[str] = ""
    name: ClassVar[str] = ""
    deterministic: ClassVar[bool] = True
    in_default_suite: ClassVar[bool] = True
    information_free: ClassVar[bool] = False


#: Each kind other than inspection: its policies by name (keyed by their base's ``kind``).
_KIND_POLICIES: dict[str, dict[str, type[KindPolicy]]] = {}

P = TypeVar("P", bound=type[Policy] | type[KindPolicy])


def add_policy_kind(kind: str, base: type[KindPolicy]) -> None:
    """Open the registry of a scenario kind's policies (subclasses of ``base``);
    :func:`heedful.bench.kinds.scenario_kind` calls it.

    Raises:
        ValueError: ``base`` is no :class:`KindPolicy` of that kind.
    """
    if not (isinstance(base, type) and issubclass(base, KindPolicy) and base.kind == kind):
        raise ValueError(f"the policies of kind {kind!r} need a KindPolicy base with kind {kind!r}")
    _KIND_POLICIES.setdefault(kind, {})


def register_policy(name: str) -> Callable[[P], P]:
    """Class decorator: register a policy of any scenario kind under ``name``.

    One registry for every kind: a :class:`Policy` subclass plays inspection scenarios, a
    subclass of another kind's policy base (:class:`~heedful.bench.kinds.switching.
    SwitchingPolicy` family D's, :class:`~heedful.bench.kinds.schedule.SchedulePolicy` family
    J's, …) that kind's. One name can be registered once per kind, so ``--policies voc,random``
    means the same thing on every kind.

    Raises:
        ValueError: if the name is taken by another class of the same kind, or the class is no
            policy of a registered kind.
    """

    def decorate(cls: P) -> P:
        if isinstance(cls, type) and issubclass(cls, KindPolicy):
            if not cls.kind:
                raise ValueError(f"@register_policy({name!r}): {cls.__name__} names no kind")
            add_named(_KIND_POLICIES.setdefault(cls.kind, {}), name, cls, "policy")
            return cls
        if not (isinstance(cls, type) and issubclass(cls, Policy)):
            raise ValueError(
                f"@register_policy({name!r}) needs a Policy subclass or a scenario kind's "
                "policy (a KindPolicy subclass: SwitchingPolicy, SchedulePolicy …)"
            )
        return add_named(_REGISTRY, name, cls, "policy")

    return decorate


def policy_kinds(name: str) -> list[str]:
    """The scenario kinds a registered name plays (``inspection``, ``switching``, ``schedule``)."""
    _load_builtins()
    kinds = ["inspection"] if name in _REGISTRY else []
    return kinds + [kind for kind, reg in _KIND_POLICIES.items() if name in reg]


def other_kinds() -> list[str]:
    """The scenario kinds other than inspection that have a policy registry, in order."""
    _load_builtins()
    return list(_KIND_POLICIES)


def kind_policy_names(kind: str, *, suite_only: bool = False) -> list[str]:
    """Names of the policies registered for a kind other than inspection, sorted
    (``suite_only``: those of ``all``)."""
    _load_builtins()
    reg = _KIND_POLICIES.get(kind, {})
    return sorted(n for n, c in reg.items() if c.in_default_suite or not suite_only)


def kind_policy(kind: str, name: str) -> KindPolicy:
    """Build the policy registered under ``name`` for a kind other than inspection.

    Raises:
        UnknownNameError: naming the policies of that kind.
    """
    _load_builtins()
    reg = _KIND_POLICIES.get(kind, {})
    if name not in reg:
        known = ", ".join(sorted(reg))
        raise UnknownNameError(f"policy {name!r} has no {kind} version; {kind} policies: {known}")
    return reg[name]()


def parse_kind_policies(text: str, kind: str) -> list[str]:
    """The names of ``text`` (``"all"``: the kind's default suite) that exist for a kind.

    A name registered only for other kinds is skipped (``--policies voc-model`` on family D runs
    nothing there); a name registered for no kind at all is an error elsewhere.
    """
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise InvalidArgumentError("no policy given")
    if names == ["all"]:
        return kind_policy_names(kind, suite_only=True)
    known = set(kind_policy_names(kind))
    return [n for n in names if n in known]


#: Entry point group naming modules that register policies when imported (``voc-learned``
#: arrives this way from ``heedful.learn``; another package's policies can too).
POLICY_ENTRY_POINTS = "heedful.policies"


def _load_builtins() -> None:
    # Importing the package registers every module in heedful/bench/policies/ (see its __init__);
    # the entry points register policies of packages above the bench.
    global _BUILTINS_LOADED
    if not _BUILTINS_LOADED:
        _BUILTINS_LOADED = True
        importlib.import_module("heedful.bench.kinds")
        importlib.import_module("heedful.bench.policies")
        for entry in entry_points(group=POLICY_ENTRY_POINTS):
            try:
                entry.load()
            except Exception as exc:  # a broken plugin must not take the built-in policies down
                warnings.warn(
                    f"policies of entry point {entry.name!r} ({entry.value}) not loaded: {exc}",
                    stacklevel=2,
                )


def policy_names() -> list[str]:
    """Return the names of every registered policy, sorted."""
    _load_builtins()
    return sorted(_REGISTRY)


def policy_class(name: str) -> type[Policy]:
    """Return the class registered under ``name``.

    Raises:
        UnknownNameError: naming the known policies.
    """
    _load_builtins()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise UnknownNameError(f"unknown policy {name!r}; known policies: {known}") from None


def get_policy(name: str, **params: Any) -> Policy:
    """Build the policy registered under ``name`` with the given parameters.

    Raises:
        UnknownNameError: if no policy has that name (the message lists the known ones).
        InvalidArgumentError: if the parameters do not fit the policy's constructor.
    """
    cls = policy_class(name)
    try:
        return cls(**params)
    except TypeError as exc:
        raise InvalidArgumentError(f"policy {name!r}: {exc}") from None


def suite_policy_names() -> list[str]:
    """Return the names of every policy of the default suite (``all``), sorted."""
    return [n for n in policy_names() if _REGISTRY[n].in_default_suite]


def parse_policy_list(text: str) -> list[str]:
    """Split ``"a,b, c"`` into names and check each is registered.

    ``"all"`` means every policy of the default suite (:func:`suite_policy_names`).
    """
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise InvalidArgumentError("no policy given")
    if names == ["all"]:
        return suite_policy_names()
    for n in names:
        policy_class(n)
    if len(set(names)) != len(names):
        raise InvalidArgumentError(f"a policy is listed twice in {text!r}")
    return names
