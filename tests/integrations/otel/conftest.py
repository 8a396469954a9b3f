"""The real OpenTelemetry SDK with an in-memory exporter, instrumented for one test.

These tests need the ``otel`` extra (``make test`` installs it); without it they are not collected.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

try:
    import opentelemetry.sdk.trace  # noqa: F401
except ImportError:
    collect_ignore_glob = ["test_*.py"]

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


@pytest.fixture
def provider() -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    """An SDK provider exporting every finished span to memory (not instrumented yet)."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    prov = TracerProvider()
    prov.add_span_processor(SimpleSpanProcessor(exporter))
    yield prov, exporter
    prov.shutdown()


@pytest.fixture
def spans(provider: tuple[TracerProvider, InMemorySpanExporter]) -> Iterator[InMemorySpanExporter]:
    """heedful instrumented with the in-memory provider for the test, uninstrumented after."""
    from heedful.integrations.otel import instrument, uninstrument

    prov, exporter = provider
    instrument(prov)
    yield exporter
    uninstrument()
