"""The OpenTelemetry side of :mod:`heedful.tracing`: a tracer the span hook routes to."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from opentelemetry import trace
from opentelemetry.trace import Status, StatusCode

from heedful import __version__, tracing
from heedful.tracing import Attributes, SpanRecord

__all__ = ["INSTRUMENTATION_NAME", "OtelTracer", "instrument", "uninstrument"]

#: The instrumentation scope every heedful span is recorded under.
INSTRUMENTATION_NAME = "heedful"
#: OpenTelemetry's semantic-convention attribute for the class of a failure.
ERROR_TYPE = "error.type"


class _SpanHandle:
    """A real OpenTelemetry span seen through the :class:`heedful.tracing.Span` protocol."""

    __slots__ = ("_span",)

    def __init__(self, span: trace.Span) -> None:
        self._span = span

    @property
    def recording(self) -> bool:
        """Whether the span records (false when sampled out or the SDK is disabled)."""
        return self._span.is_recording()

    def set(self, attributes: Attributes) -> None:
        """Set attributes on the span."""
        self._span.set_attributes(attributes)

    def event(self, name: str, attributes: Attributes | None = None) -> None:
        """Add an event to the span."""
        self._span.add_event(name, attributes)

    def __enter__(self) -> _SpanHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class OtelTracer:
    """Implements :class:`heedful.tracing.Tracer` over an OpenTelemetry tracer.

    Args:
        tracer: Where spans go. Spans are current while they run, so a heedful span started
            inside an application's own span is its child, and spans of other instrumented
            libraries started inside a heedful span are heedful's children.
    """

    def __init__(self, tracer: trace.Tracer) -> None:
        self._tracer = tracer

    @contextmanager
    def span(self, name: str, attributes: Attributes | None) -> Iterator[tracing.Span]:
        """Start a current span; an exception marks it as an error and is re-raised.

        Only the exception's type is recorded (``error.type`` and the status), not its message
        or traceback: a message can quote what an agent wrote (an unknown id, a claim).
        """
        with self._tracer.start_as_current_span(
            name, attributes=attributes, record_exception=False, set_status_on_exception=False
        ) as otel_span:
            try:
                yield _SpanHandle(otel_span)
            except BaseException as exc:
                kind = type(exc).__name__
                otel_span.set_attribute(ERROR_TYPE, kind)
                otel_span.set_status(Status(StatusCode.ERROR, kind))
                raise

    def current(self) -> tracing.Span:
        """The span current in this context."""
        return _SpanHandle(trace.get_current_span())

    def replay(self, records: Sequence[SpanRecord]) -> None:
        """Emit spans a worker recorded as real spans, children of the current span.

        Each keeps its recorded start and end time, attributes, events and error status; a
        record's parent is the span made from its parent record (parents precede children).
        """
        made: list[trace.Span] = []
        for record in records:
            context = None if record.parent < 0 else trace.set_span_in_context(made[record.parent])
            otel_span = self._tracer.start_span(
                record.name,
                context=context,
                attributes=record.attributes,
                start_time=record.start_ns,
            )
            for name, at, attributes in record.events:
                otel_span.add_event(name, attributes, timestamp=at)
            if record.error is not None:
                otel_span.set_attribute(ERROR_TYPE, record.error)
                otel_span.set_status(Status(StatusCode.ERROR, record.error))
            made.append(otel_span)
        for otel_span, record in zip(made, records, strict=True):
            otel_span.end(end_time=record.end_ns)


def instrument(tracer_provider: trace.TracerProvider | None = None) -> OtelTracer:
    """Turn heedful's spans on: controller ``next``/``resolve``, engine cycles, bench runs.

    Args:
        tracer_provider: Where spans go; default the global provider
            (``opentelemetry.trace.set_tracer_provider``), which without an SDK records nothing.

    Returns:
        The installed tracer (it replaces any installed before).
    """
    tracer = trace.get_tracer(INSTRUMENTATION_NAME, __version__, tracer_provider=tracer_provider)
    installed = OtelTracer(tracer)
    tracing.install(installed)
    return installed


def uninstrument() -> None:
    """Turn heedful's spans off again (every hook back to the shared no-op span)."""
    tracing.uninstall()
