"""In-process telemetry for the engine (document 002 §3.5).

Events: ``cycle_start``, ``dispatch``, ``cycle_complete``, ``goal_proposed``, each with
measurements and metadata like ``:telemetry.execute``. Subscribers are plain callables. When
``opentelemetry`` is importable, every event is also added to the current span (and each cycle
runs inside a ``heedful.engine.cycle`` span).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

_log = logging.getLogger("heedful.engine")

#: Names of the events the engine emits.
EVENTS = ("cycle_start", "dispatch", "cycle_complete", "goal_proposed")


@dataclass(frozen=True)
class TelemetryEvent:
    """One emitted event."""

    name: str
    measurements: dict[str, float] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)


Subscriber = Callable[[TelemetryEvent], None]


def _tracer() -> Any | None:
    try:
        from opentelemetry import trace
    except ImportError:
        return None
    return trace.get_tracer("heedful.engine")


class Telemetry:
    """Fan-out of engine events to subscribers (and OpenTelemetry when available)."""

    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []
        self._otel = _tracer()

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Register a subscriber; returns a function that unsubscribes it."""
        self._subscribers.append(subscriber)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._subscribers.remove(subscriber)

        return unsubscribe

    def emit(
        self,
        name: str,
        measurements: dict[str, float] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        """Deliver one event to every subscriber.

        A subscriber that raises is logged and skipped so one faulty observer cannot stop the
        engine; the exception is not hidden (it is logged with its traceback).
        """
        event = TelemetryEvent(name, dict(measurements or {}), dict(metadata or {}))
        for subscriber in list(self._subscribers):
            try:
                subscriber(event)
            except Exception:
                _log.exception("telemetry subscriber failed on %s", name)
        if self._otel is not None:
            from opentelemetry import trace

            span = trace.get_current_span()
            attrs = {
                f"heedful.{k}": v
                for k, v in {**event.measurements, **event.metadata}.items()
                if isinstance(v, str | int | float | bool)
            }
            span.add_event(f"heedful.engine.{name}", attributes=attrs)

    @contextlib.contextmanager
    def cycle_span(self, trigger: str) -> Iterator[None]:
        """An OpenTelemetry span around one cycle (no-op without opentelemetry)."""
        if self._otel is None:
            yield
            return
        with self._otel.start_as_current_span(
            "heedful.engine.cycle", attributes={"heedful.trigger": trigger}
        ):
            yield
