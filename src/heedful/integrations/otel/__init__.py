"""OpenTelemetry spans for heedful's hot paths (the ``otel`` extra).

::

    from opentelemetry.sdk.trace import TracerProvider
    from heedful.integrations.otel import instrument, uninstrument

    instrument(TracerProvider(...))   # or instrument() to use the global provider
    ...                               # Controller.next/resolve, engine cycles, bench runs: spans
    uninstrument()

From the command line: ``HEEDFUL_OTEL=1 heedful ...`` (see :mod:`.env` and
``docs/observability.md``). The library marks its hot paths through :mod:`heedful.tracing`,
which costs one global check per call while nothing is installed.
"""

from __future__ import annotations

from heedful.integrations.otel.env import EXPORTERS, instrument_from_env, processors_from_env
from heedful.integrations.otel.tracer import (
    INSTRUMENTATION_NAME,
    OtelTracer,
    instrument,
    uninstrument,
)

__all__ = [
    "EXPORTERS",
    "INSTRUMENTATION_NAME",
    "OtelTracer",
    "instrument",
    "instrument_from_env",
    "processors_from_env",
    "uninstrument",
]
