"""``HEEDFUL_OTEL=1``: tracing for the ``heedful`` command, configured by OTel's variables."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor
from typer.testing import CliRunner

from heedful import tracing
from heedful.cli import app
from heedful.errors import InvalidArgumentError
from heedful.integrations.otel import instrument_from_env, processors_from_env
from heedful.integrations.otel.env import _resource


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


HAS_OTLP_HTTP = _importable("opentelemetry.exporter.otlp.proto.http")


def test_unset_variable_leaves_tracing_off() -> None:
    assert instrument_from_env({}) is None
    assert instrument_from_env({"HEEDFUL_OTEL": "0"}) is None
    assert not tracing.enabled()


def test_on_installs_a_tracer_until_stopped() -> None:
    stop = instrument_from_env({"HEEDFUL_OTEL": "1", "OTEL_TRACES_EXPORTER": "none"})
    assert stop is not None and tracing.enabled()
    stop()
    assert not tracing.enabled()


def test_console_is_the_default_exporter_and_none_means_no_exporter() -> None:
    [processor] = processors_from_env({})
    assert isinstance(processor, SimpleSpanProcessor)
    assert isinstance(processor.span_exporter, ConsoleSpanExporter)
    assert processors_from_env({"OTEL_TRACES_EXPORTER": "none"}) == []


def test_unknown_exporter_is_named() -> None:
    with pytest.raises(InvalidArgumentError, match=r"OTEL_TRACES_EXPORTER.*'jaeger'"):
        processors_from_env({"OTEL_TRACES_EXPORTER": "console,jaeger"})


def test_unknown_otlp_protocol_is_named() -> None:
    env = {"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "carrier-pigeon"}
    with pytest.raises(InvalidArgumentError, match=r"OTEL_EXPORTER_OTLP_PROTOCOL.*carrier-pigeon"):
        processors_from_env(env)


@pytest.mark.skipif(HAS_OTLP_HTTP, reason="the OTLP/HTTP exporter is installed here")
def test_otlp_without_its_package_says_what_to_install() -> None:
    with pytest.raises(
        InvalidArgumentError,
        match=r"\.venv/bin/pip install opentelemetry-exporter-otlp-proto-http$",
    ):
        processors_from_env({"OTEL_TRACES_EXPORTER": "otlp"})


def test_service_name_defaults_to_heedful_and_follows_otel_service_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
    monkeypatch.delenv("OTEL_RESOURCE_ATTRIBUTES", raising=False)
    assert _resource().attributes["service.name"] == "heedful"
    monkeypatch.setenv("OTEL_SERVICE_NAME", "my-agent")
    assert _resource().attributes["service.name"] == "my-agent"


def test_cli_bad_value_is_one_line_and_exit_2() -> None:
    result = CliRunner().invoke(app, ["version"], env={"HEEDFUL_OTEL": "maybe"})
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: HEEDFUL_OTEL must be 1 (tracing on) or 0 (off), got 'maybe'"
    ]


def test_cli_unknown_exporter_is_one_line_and_exit_2() -> None:
    env = {"HEEDFUL_OTEL": "1", "OTEL_TRACES_EXPORTER": "zipkin"}
    result = CliRunner().invoke(app, ["version"], env=env)
    assert result.exit_code == 2
    [line] = result.output.strip().splitlines()
    assert line.startswith("error: OTEL_TRACES_EXPORTER") and "'zipkin'" in line
    assert not tracing.enabled()


def test_cli_without_the_extra_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "heedful.integrations.otel", None)  # import fails
    result = CliRunner().invoke(app, ["version"], env={"HEEDFUL_OTEL": "1"})
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: HEEDFUL_OTEL is set but the 'otel' extra is not installed; "
        "install it with: .venv/bin/pip install -e '.[otel]' (from the checkout's root)"
    ]


def test_cli_run_prints_its_spans_on_stderr_and_leaves_stdout_alone(tmp_path: Path) -> None:
    env = {**os.environ, "HEEDFUL_OTEL": "1", "OTEL_TRACES_EXPORTER": "console"}
    env.pop("OTEL_SERVICE_NAME", None)
    args = ["bench", "run", "--count", "1", "--trials", "1", "--policies", "voc", "--workers", "1"]
    done = subprocess.run(
        [sys.executable, "-m", "heedful.cli", *args, "--out", str(tmp_path / "run")],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert '"name": "heedful' not in done.stdout
    decoder = json.JSONDecoder()
    text, found, i = done.stderr, [], done.stderr.find('{\n    "name"')
    while i != -1:
        span, end = decoder.raw_decode(text, i)
        found.append(span)
        i = text.find('{\n    "name"', end)
    names = {s["name"] for s in found}
    assert {"heedful.bench.run", "heedful.bench.scenario", "heedful.controller.next"} <= names
    assert {s["resource"]["attributes"]["service.name"] for s in found} == {"heedful"}


def test_the_python_example_of_the_guide_runs() -> None:
    guide = (Path(__file__).resolve().parents[3] / "docs" / "observability.md").read_text()
    [block] = re.findall(r"```python\n(.*?)```", guide, flags=re.S)
    done = subprocess.run(
        [sys.executable, "-c", block], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
