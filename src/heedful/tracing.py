"""The span hook: where the hot paths say "a span starts here", with no tracing library.

``attention``, ``engine`` and ``bench`` mark their hot paths with :func:`span` or :func:`traced`
and never import a tracing library. Until a tracer is installed (by
:func:`heedful.integrations.otel.instrument`, the ``otel`` extra) every call returns one shared
no-op span: the disabled path is a single global check, with no allocation. Installing a tracer
turns the same calls into real spans.

Attribute values are counts, codes and kinds — never untrusted content (claim text, source or
goal names written by an agent), which could carry anything into a tracing backend.

Tracing is per process: a forked child starts with no tracer (its spans could not be exported:
pool workers exit without flushing). A job run in a worker records its spans as plain data, and
the caller re-emits them with :func:`replay` (:mod:`heedful.span_relay`, used by
:func:`heedful.bench.run.backend.map_traced`).
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from heedful.errors import InvalidArgumentError

__all__ = [
    "ENV_VAR",
    "NO_SPAN",
    "AttributeValue",
    "Attributes",
    "Span",
    "SpanRecord",
    "Tracer",
    "current",
    "enabled",
    "install",
    "installed",
    "replay",
    "requested",
    "span",
    "traced",
    "uninstall",
]

#: A span attribute value: what OpenTelemetry accepts.
AttributeValue = str | bool | int | float | Sequence[str] | Sequence[int] | Sequence[float]
#: Span attributes, keyed ``heedful.<part>.<name>``.
Attributes = Mapping[str, AttributeValue]


class Span(Protocol):
    """What code inside a span may do with it."""

    @property
    def recording(self) -> bool:
        """Whether anything is recorded; compute costly attributes only when true."""
        ...

    def set(self, attributes: Attributes) -> None:
        """Set attributes on the span."""
        ...

    def event(self, name: str, attributes: Attributes | None = None) -> None:
        """Add a timestamped event to the span."""
        ...

    def __enter__(self) -> Span: ...

    def __exit__(self, *exc: object) -> None: ...


@dataclass(frozen=True, slots=True)
class SpanRecord:
    """A finished span recorded in another process, to be replayed here (:func:`replay`).

    Attributes:
        name: The span's name.
        start_ns: When it started (``time.time_ns()`` of the process that recorded it).
        end_ns: When it ended.
        parent: Index of its parent among the records of the same job, or ``-1``: a top-level
            span of the job, replayed as a child of the span current at :func:`replay`.
        attributes: Its attributes.
        events: ``(name, time_ns, attributes)`` of each event.
        error: The type name of the exception that ended it, if one did.
    """

    name: str
    start_ns: int
    end_ns: int
    parent: int
    attributes: Mapping[str, AttributeValue]
    events: tuple[tuple[str, int, Mapping[str, AttributeValue]], ...] = ()
    error: str | None = None


class Tracer(Protocol):
    """What an installed tracer provides (see :mod:`heedful.integrations.otel`)."""

    def span(self, name: str, attributes: Attributes | None) -> AbstractContextManager[Span]:
        """Start a span, current (the parent of spans started inside it) until it exits."""
        ...

    def current(self) -> Span:
        """The span current in this context (a non-recording one when there is none)."""
        ...

    def replay(self, records: Sequence[SpanRecord]) -> None:
        """Emit spans recorded elsewhere as children of the current span, at their own times."""
        ...


class _NoSpan:
    """The shared disabled span: a context manager that does nothing and records nothing."""

    __slots__ = ()
    recording = False

    def set(self, attributes: Attributes) -> None:
        """Do nothing."""

    def event(self, name: str, attributes: Attributes | None = None) -> None:
        """Do nothing."""

    def __enter__(self) -> _NoSpan:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


#: The one no-op span every call returns while no tracer is installed.
NO_SPAN: Span = _NoSpan()

_tracer: Tracer | None = None
_log = logging.getLogger("heedful.tracing")


def span(name: str, attributes: Attributes | None = None) -> AbstractContextManager[Span]:
    """A span named ``name`` (``heedful.<part>.<operation>``), or :data:`NO_SPAN`.

    Attributes are a mapping, not keyword arguments, so a disabled call allocates nothing; pass
    costly ones later with ``s.set(...)`` under ``if s.recording``.
    """
    if _tracer is None:
        return NO_SPAN
    return _tracer.span(name, attributes)


def current() -> Span:
    """The current span (to add events or attributes), or :data:`NO_SPAN`."""
    if _tracer is None:
        return NO_SPAN
    return _tracer.current()


def replay(records: Sequence[SpanRecord]) -> None:
    """Emit spans a job recorded in another process (see :mod:`heedful.span_relay`).

    Top-level records become children of the current span; the rest keep their parents. Does
    nothing while no tracer is installed.
    """
    if _tracer is not None and records:
        _tracer.replay(records)


def enabled() -> bool:
    """Whether a tracer is installed."""
    return _tracer is not None


def installed() -> Tracer | None:
    """The installed tracer, if any."""
    return _tracer


def install(tracer: Tracer) -> None:
    """Route every span of this process to ``tracer`` (replacing any installed one)."""
    global _tracer
    _tracer = tracer


def uninstall() -> None:
    """Back to no-op spans."""
    global _tracer
    _tracer = None


#: The environment variable that turns tracing on for the ``heedful`` command.
ENV_VAR = "HEEDFUL_OTEL"
_ON = frozenset({"1", "true", "yes", "on"})
_OFF = frozenset({"", "0", "false", "no", "off"})


def requested(environ: Mapping[str, str] | None = None) -> bool:
    """Whether :data:`ENV_VAR` asks for tracing (``1``/``true``/``yes``/``on``; unset is off).

    Raises:
        InvalidArgumentError: any other value, named with the variable.
    """
    raw = (os.environ if environ is None else environ).get(ENV_VAR, "")
    value = raw.strip().lower()
    if value in _ON:
        return True
    if value in _OFF:
        return False
    raise InvalidArgumentError(f"{ENV_VAR} must be 1 (tracing on) or 0 (off), got {raw!r}")


# A forked child (a bench worker process) must not keep the parent's tracer: see the module doc.
os.register_at_fork(after_in_child=uninstall)

_F = TypeVar("_F", bound=Callable[..., Any])
#: ``(args, kwargs, result) → attributes`` of a finished call.
Describe = Callable[[tuple[Any, ...], dict[str, Any], Any], Attributes]


def _describe(
    s: Span,
    name: str,
    describe: Describe,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    result: Any,
) -> None:
    """Set the described attributes; a failing ``describe`` is logged, never the call's failure.

    The call itself has succeeded (and changed state): an observer's bug must not turn it into
    an exception for the caller. It is not hidden either: logged with its traceback.
    """
    try:
        attributes = describe(args, kwargs, result)
    except Exception:
        _log.exception("describing the %s span failed", name)
        return
    s.set(attributes)


def traced(name: str, describe: Describe | None = None) -> Callable[[_F], _F]:
    """Decorate a function so each call runs in a span named ``name``.

    Disabled, a call costs one global check more than the bare function, which stays reachable
    as ``__wrapped__`` (the overhead benchmark calls it). Enabled, ``describe(args, kwargs,
    result)`` gives the span's attributes after a successful call; an exception is recorded on
    the span by the tracer and re-raised. A failing ``describe`` is logged, not raised.
    """

    def decorate(fn: _F) -> _F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if _tracer is None:
                return fn(*args, **kwargs)
            with _tracer.span(name, None) as s:
                result = fn(*args, **kwargs)
                if describe is not None and s.recording:
                    _describe(s, name, describe, args, kwargs, result)
                return result

        return wrapper  # type: ignore[return-value]

    return decorate
