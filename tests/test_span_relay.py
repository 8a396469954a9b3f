"""Spans recorded in a job as plain data, and replayed where the run's span lives."""

from __future__ import annotations

import pickle

import pytest

from heedful import tracing
from heedful.span_relay import RecordingTracer, RelayedJob


@pytest.fixture(autouse=True)
def _no_tracer() -> None:
    tracing.uninstall()
    yield
    tracing.uninstall()


def _job(n: int) -> int:
    with tracing.span("outer", {"n": n}):
        for i in range(n):
            with tracing.span("inner", {"i": i}) as s:
                s.event("tick", {"i": i})
    return n * 10


def _failing(_: int) -> int:
    with tracing.span("doomed", None):
        raise KeyError("an agent-written id")


def test_recording_tracer_keeps_parents_attributes_and_events_in_start_order() -> None:
    rec = RecordingTracer()
    tracing.install(rec)
    _job(2)
    names = [(r.name, r.parent, dict(r.attributes)) for r in rec.records]
    assert names == [("outer", -1, {"n": 2}), ("inner", 0, {"i": 0}), ("inner", 0, {"i": 1})]
    assert [e[0] for e in rec.records[2].events] == ["tick"]
    assert all(r.start_ns <= r.end_ns for r in rec.records)
    assert rec.records[0].start_ns <= rec.records[1].start_ns


def test_a_failing_span_records_only_the_exception_type() -> None:
    rec = RecordingTracer()
    tracing.install(rec)
    with pytest.raises(KeyError):
        _failing(0)
    [record] = rec.records
    assert record.error == "KeyError"
    assert "agent-written" not in repr(record)


def test_relayed_job_returns_the_result_and_spans_and_restores_the_tracer() -> None:
    outer = RecordingTracer()
    tracing.install(outer)
    result, records = RelayedJob(_job)(1)
    assert result == 10
    assert [r.name for r in records] == ["outer", "inner"]
    assert tracing.installed() is outer and outer.records == []
    tracing.uninstall()
    _, records = RelayedJob(_job)(0)
    assert [r.name for r in records] == ["outer"] and tracing.installed() is None


def test_relayed_job_pickles_and_its_spans_survive_pickling() -> None:
    job = pickle.loads(pickle.dumps(RelayedJob(_job)))
    result, records = job(2)
    assert pickle.loads(pickle.dumps(records)) == records and result == 20


def test_replay_nests_a_jobs_top_level_spans_under_the_current_span() -> None:
    _, records = RelayedJob(_job)(2)
    rec = RecordingTracer()
    tracing.install(rec)
    with tracing.span("run", None):
        tracing.replay(records)
    got = [(r.name, r.parent) for r in rec.records]
    assert got == [("run", -1), ("outer", 0), ("inner", 1), ("inner", 1)]


def test_replay_without_a_tracer_does_nothing() -> None:
    _, records = RelayedJob(_job)(1)
    tracing.replay(records)  # no tracer installed: nothing to emit to, and no error
    assert tracing.installed() is None
