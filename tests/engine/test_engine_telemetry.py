"""Telemetry fan-out and the optional OpenTelemetry bridge."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from engine_builders import add_goal, clock

from heedful.engine import Engine
from heedful.engine.memgraph import InMemoryGraph
from heedful.engine.telemetry import Telemetry, TelemetryEvent


def test_unsubscribe_stops_delivery() -> None:
    telemetry = Telemetry()
    seen: list[TelemetryEvent] = []
    unsubscribe = telemetry.subscribe(seen.append)
    telemetry.emit("cycle_start", {"items_surveyed": 1})
    unsubscribe()
    telemetry.emit("cycle_start", {"items_surveyed": 2})
    assert [e.measurements["items_surveyed"] for e in seen] == [1]


def test_failing_subscriber_is_logged_and_others_still_receive(
    caplog: pytest.LogCaptureFixture,
) -> None:
    telemetry = Telemetry()
    seen: list[str] = []

    def broken(event: TelemetryEvent) -> None:
        raise RuntimeError("boom")

    telemetry.subscribe(broken)
    telemetry.subscribe(lambda e: seen.append(e.name))
    telemetry.emit("dispatch")
    assert seen == ["dispatch"]
    assert "telemetry subscriber failed" in caplog.text


class _Span:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def add_event(self, name: str, attributes: dict[str, Any]) -> None:
        self.events.append((name, attributes))


class _Tracer:
    def __init__(self) -> None:
        self.spans: list[str] = []

    @contextlib.contextmanager
    def start_as_current_span(self, name: str, attributes: dict[str, Any]) -> Iterator[None]:
        self.spans.append(name)
        yield


def test_cycles_become_opentelemetry_spans_with_events(
    graph: InMemoryGraph, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = pytest.importorskip("opentelemetry.trace")
    span, tracer = _Span(), _Tracer()
    monkeypatch.setattr(trace, "get_current_span", lambda: span)
    add_goal(graph, "g", "quantum widgets")
    engine = Engine(graph, clock=clock)
    engine.telemetry._otel = tracer
    engine.run_cycle()
    assert tracer.spans == ["heedful.engine.cycle"]
    names = [name for name, _ in span.events]
    assert names[0] == "heedful.engine.cycle_start" and names[-1] == "heedful.engine.cycle_complete"
    assert span.events[0][1]["heedful.items_surveyed"] == 1
