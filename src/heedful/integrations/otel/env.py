"""Tracing for the ``heedful`` command, configured by environment variables.

``HEEDFUL_OTEL=1`` turns it on (:func:`heedful.tracing.requested`). The rest is OpenTelemetry's
standard configuration: ``OTEL_TRACES_EXPORTER`` (``console``, ``otlp``, ``none``, or several
comma-separated; heedful's default is ``console``, on stderr), the ``OTEL_EXPORTER_OTLP_*``
variables of the OTLP exporter, ``OTEL_SERVICE_NAME``/``OTEL_RESOURCE_ATTRIBUTES`` (the service
name defaults to ``heedful``), ``OTEL_TRACES_SAMPLER`` and ``OTEL_BSP_*``, all read by the SDK.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping

from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SimpleSpanProcessor,
    SpanExporter,
)

from heedful import tracing
from heedful.errors import InvalidArgumentError
from heedful.extras import pip_hint
from heedful.integrations.otel.tracer import instrument, uninstrument

__all__ = ["EXPORTERS", "instrument_from_env", "processors_from_env"]

#: ``OTEL_TRACES_EXPORTER`` values heedful understands.
EXPORTERS = ("console", "otlp", "none")
_OTLP_PACKAGES = {
    "http/protobuf": "opentelemetry-exporter-otlp-proto-http",
    "grpc": "opentelemetry-exporter-otlp-proto-grpc",
}


def _otlp_exporter(environ: Mapping[str, str]) -> SpanExporter:
    protocol = (
        environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        or environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
        or "http/protobuf"
    ).strip()
    if protocol not in _OTLP_PACKAGES:
        raise InvalidArgumentError(
            f"OTEL_EXPORTER_OTLP_PROTOCOL must be one of {', '.join(_OTLP_PACKAGES)}, "
            f"got {protocol!r}"
        )
    try:
        if protocol == "grpc":
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        else:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
                OTLPSpanExporter,
            )
    except ImportError:
        raise InvalidArgumentError(
            f"OTEL_TRACES_EXPORTER=otlp ({protocol}) needs the OTLP exporter; install it with: "
            f"{pip_hint(_OTLP_PACKAGES[protocol])}"
        ) from None
    # The exporter reads its endpoint, headers and timeout from OTEL_EXPORTER_OTLP_* itself.
    exporter: SpanExporter = OTLPSpanExporter()
    return exporter


def processors_from_env(environ: Mapping[str, str] | None = None) -> list[SpanProcessor]:
    """The span processors ``OTEL_TRACES_EXPORTER`` asks for (default: console on stderr).

    Console spans are printed as each ends (a command is short and they are for reading);
    OTLP spans are batched.

    Raises:
        InvalidArgumentError: an unknown exporter name, or ``otlp`` without its package.
    """
    env = os.environ if environ is None else environ
    names = [n.strip() for n in env.get("OTEL_TRACES_EXPORTER", "console").split(",")]
    processors: list[SpanProcessor] = []
    for name in (n for n in names if n):
        if name == "console":
            processors.append(SimpleSpanProcessor(ConsoleSpanExporter(out=sys.stderr)))
        elif name == "otlp":
            processors.append(BatchSpanProcessor(_otlp_exporter(env)))
        elif name != "none":
            raise InvalidArgumentError(
                f"OTEL_TRACES_EXPORTER must name exporters among {', '.join(EXPORTERS)}, "
                f"got {name!r}"
            )
    return processors


def _resource() -> Resource:
    """OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES, with ``heedful`` as the default name."""
    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: "heedful"}))
    return resource


def instrument_from_env(environ: Mapping[str, str] | None = None) -> Callable[[], None] | None:
    """Turn tracing on when ``HEEDFUL_OTEL`` asks for it, configured by the environment.

    The provider is heedful's own (the global OpenTelemetry provider is left alone).

    Returns:
        ``None`` when tracing is not requested; otherwise the function to call when the command
        ends, which uninstruments, flushes every pending span and shuts the provider down.

    Raises:
        InvalidArgumentError: a bad ``HEEDFUL_OTEL`` or ``OTEL_TRACES_EXPORTER`` value, or the
            OTLP exporter asked for but not installed.
    """
    if not tracing.requested(environ):
        return None
    processors = processors_from_env(environ)
    provider = TracerProvider(resource=_resource())
    for processor in processors:
        provider.add_span_processor(processor)
    instrument(provider)

    def stop() -> None:
        uninstrument()
        provider.shutdown()

    return stop
