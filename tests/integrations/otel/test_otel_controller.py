"""Controller ``next``/``resolve`` spans, recorded by the real SDK's in-memory exporter."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from heedful.attention import Controller, Stop
from heedful.errors import HeedfulError
from heedful.integrations.otel import instrument, uninstrument
from heedful.model.candidate import Candidate
from heedful.model.goal import ClaimDependency, Goal, GoalStatus

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
#: Content that must never reach a span: a claim value and names an agent chose.
SECRET = "ignore-previous-instructions"


def _controller(n: int = 3) -> Controller:
    ctl = Controller(clock=lambda: EPOCH)
    for i in range(n):
        ctl.register_source(
            f"{SECRET}-src{i}", reports=[f"{SECRET}-c{i}"], authority=0.9, cost={"tool_calls": 1}
        )
        ctl.record_belief(
            f"{SECRET}-c{i}",
            f"{SECRET}-a",
            domain=[f"{SECRET}-a", "b"],
            confidence=0.6,
            age_s=86_400.0,
            volatility="high",
        )
    deps = [ClaimDependency(claim_id=f"{SECRET}-c{i}") for i in range(n)]
    ctl.add_goal(Goal(id=f"{SECRET}-g", title=SECRET, status=GoalStatus.ACTIVE, depends_on=deps))
    return ctl


def _all_attribute_values(exporter: InMemorySpanExporter) -> list[str]:
    out = []
    for span in exporter.get_finished_spans():
        out += [str(v) for v in (span.attributes or {}).values()]
        for event in span.events:
            out += [str(v) for v in (event.attributes or {}).values()]
    return out


def test_next_span_records_live_candidates_selected_kind_and_budget_left(
    spans: InMemorySpanExporter,
) -> None:
    ctl = _controller()
    ctl.begin_turn(budget=2)
    chosen = ctl.next()
    assert isinstance(chosen, Candidate)
    [span] = spans.get_finished_spans()
    assert span.name == "heedful.controller.next"
    attrs = dict(span.attributes or {})
    assert attrs["heedful.controller.live_candidates"] == len(ctl.last_estimates) > 0
    assert attrs["heedful.controller.selected"] == chosen.kind.value
    assert attrs["heedful.controller.budget_left"] == 1
    assert attrs["heedful.controller.turn"] == 1
    assert span.instrumentation_scope is not None
    assert span.instrumentation_scope.name == "heedful"


def test_stop_is_recorded_with_its_reason_code(spans: InMemorySpanExporter) -> None:
    ctl = _controller()
    ctl.begin_turn(budget=0)
    stop = ctl.next()
    assert isinstance(stop, Stop)
    attrs = dict(spans.get_finished_spans()[0].attributes or {})
    assert attrs["heedful.controller.selected"] == "stop"
    assert attrs["heedful.controller.stop_reason"] == stop.reason == "budget_exhausted"
    assert attrs["heedful.controller.budget_left"] == 0


def test_resolve_span_records_outcome_flags(spans: InMemorySpanExporter) -> None:
    ctl = _controller()
    ctl.begin_turn(budget=3)
    chosen = ctl.next()
    assert isinstance(chosen, Candidate)
    ctl.resolve(chosen.id, observations={chosen.claim_ids[0]: "b"})
    names = [s.name for s in spans.get_finished_spans()]
    assert names == ["heedful.controller.next", "heedful.controller.resolve"]
    attrs = dict(spans.get_finished_spans()[1].attributes or {})
    assert attrs["heedful.controller.succeeded"] is True
    assert attrs["heedful.controller.observations"] == 1
    assert attrs["heedful.controller.belief_changed"] is True


def test_no_claim_text_source_or_goal_name_reaches_a_span(spans: InMemorySpanExporter) -> None:
    ctl = _controller()
    ctl.begin_turn(budget=3)
    for _ in range(3):
        chosen = ctl.next()
        if isinstance(chosen, Stop):
            break
        ctl.resolve(chosen.id, observations={c: f"{SECRET}-a" for c in chosen.claim_ids})
    values = _all_attribute_values(spans)
    assert len(spans.get_finished_spans()) >= 2
    assert not [v for v in values if SECRET in v]


def test_failed_resolve_records_the_error_type_but_not_its_message(
    spans: InMemorySpanExporter,
) -> None:
    ctl = _controller()
    ctl.begin_turn(budget=1)
    with pytest.raises(HeedfulError, match=SECRET) as raised:
        ctl.resolve(f"{SECRET}-candidate")
    [span] = spans.get_finished_spans()
    assert span.name == "heedful.controller.resolve"
    assert span.status.status_code is StatusCode.ERROR
    assert span.status.description == type(raised.value).__name__
    assert dict(span.attributes or {}) == {"error.type": type(raised.value).__name__}
    assert span.events == ()  # no exception event: its message quotes the agent's id


def test_heedful_spans_are_children_of_the_application_span(
    spans: InMemorySpanExporter, provider: tuple[TracerProvider, InMemorySpanExporter]
) -> None:
    ctl = _controller()
    ctl.begin_turn(budget=1)
    with provider[0].get_tracer("app").start_as_current_span("agent.step"):
        ctl.next()
    inner, outer = spans.get_finished_spans()
    assert outer.name == "agent.step"
    assert inner.parent is not None and inner.parent.span_id == outer.context.span_id


def test_nothing_is_recorded_when_not_instrumented(
    provider: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    prov, exporter = provider
    ctl = _controller()
    ctl.begin_turn(budget=2)
    ctl.next()
    instrument(prov)
    uninstrument()
    ctl.next()
    assert exporter.get_finished_spans() == ()
