"""Telemetry fan-out and the optional OpenTelemetry bridge."""

from __future__ import annotations

import pytest
from engine_builders import add_goal, clock

from heedful import tracing
from heedful.engine import Engine
from heedful.engine.memgraph import InMemoryGraph
from heedful.engine.telemetry import Telemetry, TelemetryEvent, span_attributes


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


def test_span_attributes_keep_numbers_and_engine_codes_but_no_goal_id() -> None:
    event = TelemetryEvent(
        "dispatch",
        {"duration_ms": 2.5},
        {"mode": "explore", "goal_id": "agent-written", "kappa": 1, "modes": {"act": 2}},
    )
    assert span_attributes(event) == {
        "heedful.engine.duration_ms": 2.5,
        "heedful.engine.mode": "explore",
        "heedful.engine.kappa": 1,
        "heedful.engine.modes.act": 2,
    }


def test_cycle_span_is_the_shared_no_op_when_not_tracing(graph: InMemoryGraph) -> None:
    add_goal(graph, "g", "quantum widgets")
    engine = Engine(graph, clock=clock)
    assert engine.telemetry.cycle_span("manual") is tracing.NO_SPAN
    assert engine.run_cycle()["items_surveyed"] == 1
