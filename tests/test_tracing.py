"""The span hook of :mod:`heedful.tracing`, with a recording tracer of its own (no SDK)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from heedful import tracing
from heedful.errors import InvalidArgumentError


class RecordingSpan:
    recording = True

    def __init__(self, name: str, attributes: dict[str, Any]) -> None:
        self.name, self.attributes = name, attributes
        self.events: list[str] = []

    def set(self, attributes: tracing.Attributes) -> None:
        self.attributes.update(attributes)

    def event(self, name: str, attributes: tracing.Attributes | None = None) -> None:
        self.events.append(name)

    def __enter__(self) -> RecordingSpan:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class RecordingTracer:
    def __init__(self) -> None:
        self.spans: list[RecordingSpan] = []

    @contextmanager
    def span(self, name: str, attributes: tracing.Attributes | None) -> Iterator[tracing.Span]:
        s = RecordingSpan(name, dict(attributes or {}))
        self.spans.append(s)
        yield s

    def current(self) -> tracing.Span:
        return self.spans[-1] if self.spans else tracing.NO_SPAN


@pytest.fixture
def tracer() -> Iterator[RecordingTracer]:
    t = RecordingTracer()
    tracing.install(t)
    yield t
    tracing.uninstall()


def _double(x: int, *, plus: int = 0) -> int:
    return 2 * x + plus


traced_double = tracing.traced(
    "test.double", lambda args, kwargs, result: {"test.result": result, "test.x": args[0]}
)(_double)


def test_disabled_span_is_the_one_shared_no_op() -> None:
    assert not tracing.enabled()
    first = tracing.span("a", {"k": 1})
    with tracing.span("b") as s:
        assert s is first is tracing.NO_SPAN
        assert not s.recording
        s.set({"k": 2})
        s.event("e")
    assert tracing.current() is tracing.NO_SPAN


def test_disabled_traced_call_returns_the_bare_result_and_keeps_it_reachable() -> None:
    assert traced_double(3, plus=1) == 7
    assert traced_double.__wrapped__ is _double  # type: ignore[attr-defined]


def test_installed_tracer_records_span_with_described_attributes(tracer: RecordingTracer) -> None:
    assert traced_double(4) == 8
    [span] = tracer.spans
    assert span.name == "test.double"
    assert span.attributes == {"test.result": 8, "test.x": 4}


def test_span_attributes_pass_through_to_the_tracer(tracer: RecordingTracer) -> None:
    with tracing.span("test.outer", {"a": 1}) as s:
        assert s.recording
        tracing.current().event("happened")
    assert tracer.spans[0].attributes == {"a": 1}
    assert tracer.spans[0].events == ["happened"]


def test_uninstall_stops_recording(tracer: RecordingTracer) -> None:
    tracing.uninstall()
    traced_double(1)
    assert tracer.spans == []


def test_traced_exception_propagates_and_skips_describe(tracer: RecordingTracer) -> None:
    calls: list[object] = []

    @tracing.traced("test.boom", lambda a, k, r: calls.append(r) or {})
    def boom() -> None:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        boom()
    assert [s.name for s in tracer.spans] == ["test.boom"]
    assert calls == []


@pytest.mark.parametrize(
    ("value", "expected"), [("1", True), (" ON ", True), ("0", False), ("", False)]
)
def test_env_var_turns_tracing_on_or_off(value: str, expected: bool) -> None:
    assert tracing.requested({tracing.ENV_VAR: value}) is expected
    assert tracing.requested({}) is False


def test_env_var_with_another_value_is_named_in_the_error() -> None:
    with pytest.raises(InvalidArgumentError, match=r"HEEDFUL_OTEL must be 1.*'maybe'"):
        tracing.requested({tracing.ENV_VAR: "maybe"})


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_child_starts_without_the_parents_tracer(tracer: RecordingTracer) -> None:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: report whether the hook is still installed, then leave at once
        os.write(write, b"1" if tracing.enabled() else b"0")
        os._exit(0)
    os.close(write)
    seen = os.read(read, 1)
    os.close(read)
    os.waitpid(pid, 0)
    assert seen == b"0"
    assert tracing.enabled()  # the parent keeps it


def test_the_parts_do_not_load_opentelemetry() -> None:
    code = (
        "import sys, heedful.attention, heedful.engine, heedful.bench, heedful.bench.run.runner\n"
        "from heedful.cli import app\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'opentelemetry'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]"


def test_failing_describe_is_logged_and_the_call_still_returns(
    tracer: RecordingTracer, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(args: Any, kwargs: Any, result: Any) -> tracing.Attributes:
        raise KeyError("missing")

    assert tracing.traced("test.broken", broken)(_double)(5) == 10
    assert [s.name for s in tracer.spans] == ["test.broken"]
    assert "describing the test.broken span failed" in caplog.text
