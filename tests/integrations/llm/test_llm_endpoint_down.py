"""An endpoint that accepts connections and never answers costs minutes, not hours (issue 34).

After ``endpoint_down_after`` (default 3) trials in a row in which the agent's endpoint answered
none of its calls, its remaining trials are recorded ``endpoint_down`` without calling it, said
once on the terminal; a timed-out call is retried ``timeout_retries`` (default 1) times, fewer
than the other failures. The tests use small timeouts so that they are fast.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from heedful.bench.agents.contract import AgentSettings
from heedful.bench.results import AgentUsage, TrialRecord, load_results
from heedful.cli import app

pytestmark = pytest.mark.usefixtures("fixed_clock")


@pytest.fixture
def silent_url() -> Iterator[str]:
    """A port that accepts every connection, reads the request and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            held.append(conn)  # kept open, never written to

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/v1"
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        server.close()


def _run(tmp_path: Path, url: str, *extra: str) -> tuple[int, str, list[TrialRecord]]:
    args = ["bench", "run", "--family", "G", "--count", "10", "--trials", "1", "--policies"]
    args += ["llm", "--model", "m", "--base-url", url, "--no-cache", "--timeout", "0.2"]
    result = CliRunner().invoke(app, [*args, *extra, "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    return result.exit_code, result.stderr, load_results(tmp_path / "run" / "results.json").trials


def test_three_unanswered_trials_in_a_row_take_the_endpoint_for_down(
    tmp_path: Path, silent_url: str
) -> None:
    code, err, trials = _run(tmp_path, silent_url, "--concurrency", "1")
    assert code == 0, err
    assert len(trials) == 10  # a complete results.json: every trial recorded
    errors = [str(t.protocol_error) for t in trials]
    assert all(e.startswith("endpoint_timeout") for e in errors[:3]), errors
    assert all(e.startswith("endpoint_down") for e in errors[3:]), errors
    for t in trials[3:]:
        assert t.usage is not None and t.usage.calls == 0 and t.usage.errors == 0
    said = [line for line in err.splitlines() if "recorded endpoint_down" in line]
    assert len(said) == 1 and said[0].startswith("warning: llm: the endpoint answered no call")


def test_a_timed_out_call_is_retried_once_not_retries_times(
    tmp_path: Path, silent_url: str
) -> None:
    code, err, trials = _run(tmp_path, silent_url, "--concurrency", "1", "--retries", "4")
    assert code == 0, err
    first = trials[0]
    assert first.usage is not None and first.usage.errors == 2  # one attempt, one retry
    assert "after 2 attempts" in str(first.protocol_error)
    assert AgentSettings(model="m", base_url=silent_url).timeout_retries == 1


def test_one_answered_trial_resets_the_count() -> None:
    from heedful.bench.agents.runner import AgentTrials, _DownWatch

    said: list[str] = []
    watch = _DownWatch(AgentTrials(trials=1, seed=0, on_notice=said.append))

    def record(error: str | None) -> TrialRecord:
        return TrialRecord.model_construct(protocol_error=error)

    lost = AgentUsage(errors=2)
    for _ in range(2):
        watch.count("llm", record("endpoint_timeout: x"), lost, 9)
    watch.count("llm", record(None), AgentUsage(calls=1), 9)  # answered: the run starts over
    for _ in range(2):
        watch.count("llm", record("endpoint_timeout: x"), lost, 9)
    assert watch.skip("llm") is None and not said
    watch.count("llm", record("endpoint_error: x"), lost, 9)
    assert (watch.skip("llm") or "").startswith("endpoint_down") and len(said) == 1


def test_concurrent_trials_do_not_start_a_second_batch_against_a_silent_endpoint(
    tmp_path: Path, silent_url: str
) -> None:
    # 8 trials in flight fail together; the 2 waiting for a slot wait for them instead of
    # calling, and are recorded endpoint_down: the run costs one call deadline, not two.
    code, err, trials = _run(tmp_path, silent_url, "--concurrency", "8")
    assert code == 0, err
    errors = [str(t.protocol_error).split(":")[0] for t in trials]
    assert errors.count("endpoint_timeout") == 8 and errors.count("endpoint_down") == 2, errors
