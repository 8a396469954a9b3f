"""Engine-cycle and bench-run spans, recorded by the real SDK's in-memory exporter."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from heedful.bench.run.benchmark import run_benchmark
from heedful.bench.worlds.families import generate_family
from heedful.engine import Engine, EngineConfig
from heedful.engine.config import AutonomyLevel, GovernanceConfig
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
    advise = EngineConfig(governance=GovernanceConfig(max_level=AutonomyLevel.ADVISE))
    response = Engine(graph, advise, clock=_clock).run_cycle(autonomy_override="advise")
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


def _shape(spans: InMemorySpanExporter) -> list[tuple[str, str, tuple[tuple[str, object], ...]]]:
    """Each span as (name, parent's name, attributes but the worker count), sorted."""
    finished = spans.get_finished_spans()
    by_id = {s.context.span_id: s.name for s in finished}
    return sorted(
        (
            s.name,
            by_id.get(s.parent.span_id, "") if s.parent else "",
            tuple(
                sorted(
                    (k, v) for k, v in (s.attributes or {}).items() if k != "heedful.bench.workers"
                )
            ),
        )
        for s in finished
    )


def test_parallel_run_relays_worker_spans_as_a_serial_run_records_them(
    spans: InMemorySpanExporter,
) -> None:
    scenarios = generate_family("A", 3, seed=0)
    run_benchmark(scenarios, ["voc", "random"], trials=1, seed=0, progress=False, workers=1)
    serial = _shape(spans)
    spans.clear()
    run_benchmark(scenarios, ["voc", "random"], trials=1, seed=0, progress=False, workers=2)
    finished = spans.get_finished_spans()
    [run] = [s for s in finished if s.name == "heedful.bench.run"]
    assert dict(run.attributes or {})["heedful.bench.workers"] == 2
    # Scenario spans were recorded in the workers and replayed here, under this run's span,
    # with the controller spans of the voc policy under them: the same tree as a serial run.
    assert _shape(spans) == serial
    scenario_spans = [s for s in finished if s.name == "heedful.bench.scenario"]
    assert len(scenario_spans) == 3
    assert {s.parent.span_id for s in scenario_spans if s.parent} == {run.context.span_id}
    assert all(s.context.trace_id == run.context.trace_id for s in finished)
    for s in scenario_spans:
        assert s.start_time is not None and run.start_time is not None
        assert s.end_time is not None and run.end_time is not None
        assert run.start_time <= s.start_time <= s.end_time <= run.end_time
