"""An agent endpoint that answers nothing is said so, before the run and after it.

One dead endpoint must not end the run (each trial ends with an endpoint error, as any bad reply
does), but a ranked table of agents that never reached a model must not pass for a result: a
TCP-only check warns before any work, and the tables end with one line per agent whose endpoint
answered none of its calls.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from heedful.cli import app
from heedful.cli.bench import endpoint_answers

pytestmark = pytest.mark.usefixtures("fixed_clock")


def _dead_url() -> str:
    with socket.socket() as s:  # a port that was just free: nothing listens there now
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_the_connect_check_tells_a_listening_port_from_a_dead_one() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        assert endpoint_answers(f"http://127.0.0.1:{server.getsockname()[1]}/v1") is None
    why = endpoint_answers(_dead_url())
    assert why is not None and "refused" in why.lower()


def test_a_run_against_a_dead_endpoint_warns_before_and_after(tmp_path: Path) -> None:
    url = _dead_url()
    args = ["bench", "run", "--family", "G", "--count", "1", "--trials", "1", "--retries", "0"]
    args += ["--policies", "llm,voc", "--model", "m", "--base-url", url, "--no-cache"]
    result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output  # one dead endpoint ends trials, not the run
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings[0].startswith(f"warning: nothing accepts connections at {url} (")
    assert len(warnings) == 2, warnings  # llm only: voc is no agent
    assert warnings[1].startswith("warning: llm: the endpoint answered none of its calls (")
    # The saved results say the same when reported again.
    again = CliRunner().invoke(app, ["bench", "report", str(tmp_path / "run" / "results.json")])
    assert again.exit_code == 0
    assert [ln for ln in again.stderr.splitlines() if ln.startswith("warning:")] == warnings[1:]


def test_a_run_without_agents_checks_no_endpoint(tmp_path: Path) -> None:
    args = ["bench", "run", "--family", "G", "--count", "1", "--trials", "1", "--policies", "voc"]
    args += ["--model", "m", "--base-url", _dead_url(), "--out", str(tmp_path / "run")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "warning:" not in result.stderr


def test_a_refused_run_prints_its_error_alone(tmp_path: Path) -> None:
    # The check runs after the run's own checks: a refused run gets its one line, no warning.
    args = ["bench", "run", "--count", "1", "--policies", "llm,llm", "--model", "m"]
    result = CliRunner().invoke(app, [*args, "--base-url", _dead_url(), "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == ["error: an agent is listed twice in 'llm,llm'"]
