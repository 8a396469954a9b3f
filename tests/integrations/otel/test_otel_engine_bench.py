"""Engine-cycle and bench-run spans, recorded by the real SDK's in-memory exporter."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from heedful.bench.families import generate_family
from heedful.bench.runner import run_benchmark
from heedful.engine import Engine
from heedful.engine.memgraph import InMemoryGraph
from heedful.model.goal import Goal, GoalPriority, GoalStatus

NOW = datetime(2026, 3, 21, 12, 0, tzinfo=UTC)


def _clock() -> datetime:
    return NOW


def test_engine_cycle_span_has_mode_dispatch_counts_and_events_without_goal_ids(
    spans: InMemorySpanExporter,
) -> None:
    graph = InMemoryGraph(clock=_clock)
    graph.add_goal(
        Goal(
            id="agent-chosen-goal-id",
            title="quantum widgets",
            status=GoalStatus.ACTIVE,
            priority=GoalPriority.HIGH,
            due_at=NOW + timedelta(days=2),
        )
    )
    response = Engine(graph, clock=_clock).run_cycle(autonomy_override="advise")
    [span] = spans.get_finished_spans()
    assert span.name == "heedful.engine.cycle"
    attrs = dict(span.attributes or {})
    assert attrs["heedful.engine.trigger"] == "manual"
    assert attrs["heedful.engine.autonomy"] == "advise"
    assert attrs["heedful.engine.items_dispatched"] == response["items_dispatched"] == 1
    assert attrs["heedful.engine.modes.explore"] == response["modes"]["explore"]
    assert [e.name for e in span.events] == [
        "heedful.engine.cycle_start",
        "heedful.engine.dispatch",
        "heedful.engine.cycle_complete",
    ]
    values = [*attrs.values(), *(v for e in span.events for v in (e.attributes or {}).values())]
    assert not [v for v in values if "agent-chosen" in str(v) or "widgets" in str(v)]


def test_bench_run_span_is_the_parent_of_each_scenario_and_its_controller_spans(
    spans: InMemorySpanExporter,
) -> None:
    scenarios = generate_family("A", 2, seed=0)
    results = run_benchmark(scenarios, ["voc", "random"], trials=1, seed=0, progress=False)
    finished = spans.get_finished_spans()
    [run] = [s for s in finished if s.name == "heedful.bench.run"]
    scenario_spans = [s for s in finished if s.name == "heedful.bench.scenario"]
    assert len(scenario_spans) == 2
    assert {s.parent.span_id for s in scenario_spans if s.parent} == {run.context.span_id}
    attrs = dict(run.attributes or {})
    assert attrs["heedful.bench.scenarios"] == 2
    assert attrs["heedful.bench.families"] == (scenarios[0].view.family,)
    assert attrs["heedful.bench.policies"] == ("random", "voc")
    assert attrs["heedful.bench.trial_records"] == len(results.trials) == 4
    first = dict(scenario_spans[0].attributes or {})
    assert first["heedful.bench.scenario_id"] == scenarios[0].id
    assert first["heedful.bench.sources"] == len(scenarios[0].view.sources)
    # The voc policy drives a Controller: its next() spans sit under the scenario that ran it.
    nexts = [s for s in finished if s.name == "heedful.controller.next"]
    scenario_ids = {s.context.span_id for s in scenario_spans}
    assert nexts and all(s.parent and s.parent.span_id in scenario_ids for s in nexts)


def test_sealed_run_records_counts_but_no_scenario_id_or_family(
    spans: InMemorySpanExporter,
) -> None:
    scenarios = generate_family("A", 1, seed=0)
    run_benchmark(scenarios, ["random"], trials=1, seed=0, progress=False, sealed=True)
    for span in spans.get_finished_spans():
        keys = set(span.attributes or {})
        assert not keys & {"heedful.bench.scenario_id", "heedful.bench.family"}
        assert "heedful.bench.families" not in keys
        assert not [v for v in (span.attributes or {}).values() if scenarios[0].id in str(v)]


def test_parallel_run_records_the_run_span_with_its_worker_count(
    spans: InMemorySpanExporter,
) -> None:
    scenarios = generate_family("A", 2, seed=0)
    run_benchmark(scenarios, ["random"], trials=1, seed=0, progress=False, workers=2)
    names = [s.name for s in spans.get_finished_spans()]
    # Scenarios ran in worker processes, which do not trace (see heedful.tracing).
    assert names == ["heedful.bench.run"]
    assert dict(spans.get_finished_spans()[0].attributes or {})["heedful.bench.workers"] == 2
