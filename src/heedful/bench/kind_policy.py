"""The policy protocols of the switching and schedule kinds, and their registries.

A switching policy is ``reset`` on the task view (no interruption in it), then ``answer``-ed one
interruption at a time, at its arrival, with the trial's visible status. A schedule policy is
``reset`` on the scenario's frame (no obligation in it), then asked to ``pick`` the obligation for
each slot among those that have arrived and are unfinished. Neither ever sees a PRIVATE field.

Policies register with the benchmark's one decorator, :func:`heedful.bench.register_policy`,
under the same names as their inspection counterparts (``voc``, ``random`` …) so ``--policies
voc,random`` means the same thing on every kind. Writing one::

    @register_policy("always-queue")
    class AlwaysQueue(SwitchingPolicy):
        def reset(self, view, rng):
            pass

        def answer(self, interruption, status):
            return SwitchChoice.QUEUE
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

import numpy as np

from heedful.bench.registry import add_named
from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.model.scenario import ScenarioKind
from heedful.model.schedule import ObligationView, ScheduleFrame
from heedful.model.switching import (
    InterruptionView,
    SwitchChoice,
    SwitchingStatus,
    SwitchingTaskView,
)

__all__ = [
    "KindPolicy",
    "SchedulePolicy",
    "SwitchingPolicy",
    "add_kind_policy",
    "kind_policy",
    "kind_policy_names",
    "kinds_of",
    "parse_kind_policies",
    "register_schedule_policy",
    "register_switching_policy",
]


class KindPolicy:
    """Common base: a name, and whether the policy ignores its rng.

    Attributes:
        name: The registered name.
        deterministic: ``True`` when answers depend only on what the policy sees.
        in_default_suite: ``False`` keeps the policy out of ``all``.
        information_free: ``True`` when its answers use nothing of the scenario (``random``, and
            the best fixed rule of a kind: ``always-queue`` on D, ``first-open`` on J) — the
            rows a table prints beside ``random`` to say what the 0 means.
    """

    name: ClassVar[str] = ""
    deterministic: ClassVar[bool] = True
    in_default_suite: ClassVar[bool] = True
    information_free: ClassVar[bool] = False


class SwitchingPolicy(KindPolicy, ABC):
    """A policy for ``kind: switching`` scenarios (family D)."""

    @abstractmethod
    def reset(self, view: SwitchingTaskView, rng: np.random.Generator) -> None:
        """Start a trial on the task (no interruption, no scenario id)."""

    @abstractmethod
    def answer(self, interruption: InterruptionView, status: SwitchingStatus) -> SwitchChoice:
        """Answer one interruption at its arrival: stay, queue or preempt."""


class SchedulePolicy(KindPolicy, ABC):
    """A policy for ``kind: schedule`` scenarios (family J)."""

    @abstractmethod
    def reset(self, view: ScheduleFrame, rng: np.random.Generator) -> None:
        """Start a trial on the frame of the scenario (no obligation, no scenario id)."""

    @abstractmethod
    def pick(
        self, slot: int, open_obligations: Sequence[ObligationView], left: Mapping[str, int]
    ) -> str | None:
        """Return the id of the obligation that gets ``slot`` (``None``: leave it idle).

        Args:
            slot: The slot index.
            open_obligations: Arrived, unfinished obligations, in file order.
            left: Slots of work each of them still needs.
        """


_SWITCHING: dict[str, type[SwitchingPolicy]] = {}
_SCHEDULE: dict[str, type[SchedulePolicy]] = {}
_REGISTRIES: dict[ScenarioKind, dict[str, type[SwitchingPolicy]] | dict[str, type[SchedulePolicy]]]
_REGISTRIES = {ScenarioKind.SWITCHING: _SWITCHING, ScenarioKind.SCHEDULE: _SCHEDULE}

S = TypeVar("S", bound=type[SwitchingPolicy])
J = TypeVar("J", bound=type[SchedulePolicy])


def add_kind_policy(name: str, cls: type[SwitchingPolicy] | type[SchedulePolicy]) -> None:
    """Register a switching or schedule policy class (``@register_policy`` calls this).

    Raises:
        ValueError: the name is taken by another class of the same kind.
    """
    add_named(_SWITCHING if issubclass(cls, SwitchingPolicy) else _SCHEDULE, name, cls, "policy")


def kinds_of(name: str) -> list[str]:
    """The kinds among switching and schedule that have a policy named ``name``."""
    _load()
    return [kind.value for kind, reg in _REGISTRIES.items() if name in reg]


def _registering(
    name: str, base: type[SwitchingPolicy] | type[SchedulePolicy], decorator: str
) -> Callable[[Any], Any]:
    def decorate(cls: Any) -> Any:
        if not (isinstance(cls, type) and issubclass(cls, base)):
            raise ValueError(f"@{decorator}({name!r}) needs a {base.__name__}")
        add_kind_policy(name, cls)
        return cls

    return decorate


def register_switching_policy(name: str) -> Callable[[S], S]:
    """Class decorator: register a :class:`SwitchingPolicy` (``@register_policy`` does the same)."""
    return _registering(name, SwitchingPolicy, "register_switching_policy")


def register_schedule_policy(name: str) -> Callable[[J], J]:
    """Class decorator: register a :class:`SchedulePolicy` (``@register_policy`` does the same)."""
    return _registering(name, SchedulePolicy, "register_schedule_policy")


def _load() -> None:
    importlib.import_module("heedful.bench.policies")


def kind_policy_names(kind: ScenarioKind, *, suite_only: bool = False) -> list[str]:
    """Names of the policies registered for a kind, sorted (``suite_only``: those of ``all``)."""
    _load()
    reg = _REGISTRIES[kind]
    return sorted(n for n, c in reg.items() if c.in_default_suite or not suite_only)


def kind_policy(kind: ScenarioKind, name: str) -> KindPolicy:
    """Build the policy registered under ``name`` for a kind.

    Raises:
        UnknownNameError: naming the policies of that kind.
    """
    _load()
    reg = _REGISTRIES[kind]
    if name not in reg:
        known = ", ".join(sorted(reg))
        raise UnknownNameError(
            f"policy {name!r} has no {kind.value} version; {kind.value} policies: {known}"
        )
    return reg[name]()


def parse_kind_policies(text: str, kind: ScenarioKind) -> list[str]:
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
