"""The Ray backend on a local Ray instance the tests start (2 CPUs, small object store).

Skipped when the ``ray`` extra is not installed. The instance starts at the first test that
needs it and stops at the end of the session: once per pytest process, never restarted when
``pytest -n`` hands this module's tests to a process in several pieces (xdist's ``loadgroup``
cannot keep them together under pytest 9).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from heedful.bench.agents.contract import AgentSettings
from heedful.bench.agents.suite import AgentRun
from heedful.bench.results import Results, TrialRecord, load_results
from heedful.bench.suite import run_to_folder
from heedful.cli import app
from heedful.errors import InvalidArgumentError
from heedful.integrations.llm import ScriptedServer, serve_in_thread
from heedful.learn.config import LearnConfig, RankerConfig
from heedful.learn.ranker import RidgeRanker
from heedful.learn.train import train_model

ray = pytest.importorskip(
    "ray", reason="the ray extra is not installed: .venv/bin/pip install -e '.[ray]'"
)

from heedful.integrations.ray import ray_backend  # noqa: E402 - after the skip


@pytest.fixture(scope="session")
def cluster() -> Iterator[None]:
    """A Ray instance on this machine; the backend reuses this process's connection."""
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        object_store_memory=100 * 1024 * 1024,
        namespace="heedful-tests",
    )
    yield
    ray.shutdown()


#: One ridge and no validation scenarios: the rounds of collection are what is under test.
SMALL = LearnConfig(ranker=RankerConfig(ridge_grid=(1000.0,), validation_count=0))


def comparable(model: RidgeRanker) -> dict[str, Any]:
    """The model file's content without the wall-clock fields of its manifest."""
    data = model.to_dict()
    data["manifest"] = {
        k: v for k, v in data["manifest"].items() if k not in ("trained_at", "train_seconds")
    }
    return data


def _cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _summary(folder: Path) -> list[str]:
    lines = (folder / "results.json").read_text().splitlines()
    return [line for line in lines if '"created_utc"' not in line]


@pytest.mark.parametrize(
    ("address", "needle"),
    [
        ("nonsense", "expected auto, local, HOST:PORT or ray://HOST:PORT"),
        ("127.0.0.1:1", "no Ray cluster answers there"),
        ("ray://127.0.0.1:notaport", "expected auto"),
    ],
)
def test_a_bad_address_is_one_line_and_exit_2(address: str, needle: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["bench", "run", "--count", "1", "--out", str(tmp_path), "--backend", "ray",
         "--address", address],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert needle in result.output and f"--address {address}" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_bench_run_on_ray_writes_the_files_of_a_local_run(cluster: None, tmp_path: Path) -> None:
    common = ["bench", "run", "--family", "G,B", "--count", "2", "--trials", "2", "--seed", "3",
              "--policies", "random,recency,voc,oracle", "--adaptive"]  # fmt: skip
    _cli(*common, "--workers", "1", "--out", str(tmp_path / "local"))
    _cli(*common, "--backend", "ray", "--out", str(tmp_path / "ray"))
    assert _summary(tmp_path / "local") == _summary(tmp_path / "ray")
    trials = "results.trials.jsonl.gz"
    assert (tmp_path / "local" / trials).read_bytes() == (tmp_path / "ray" / trials).read_bytes()


def test_learn_train_on_ray_fits_the_local_model(cluster: None) -> None:
    local = train_model(["G"], 2, seed=4, config=SMALL, command="test")
    with ray_backend() as backend:
        on_ray = train_model(["G"], 2, seed=4, config=SMALL, command="test", backend=backend)
    assert on_ray.manifest["rows"] > 0
    assert comparable(on_ray) == comparable(local)


def _counting(server: ScriptedServer) -> dict[str, int]:
    """Count the requests the endpoint is answering at once (its peak)."""
    seen = {"now": 0, "peak": 0}
    route = server._route

    async def counted(method: str, path: str, body: bytes) -> tuple[int, Any]:
        seen["now"] += 1
        seen["peak"] = max(seen["peak"], seen["now"])
        try:
            return await route(method, path, body)
        finally:
            seen["now"] -= 1

    server._route = counted  # type: ignore[method-assign]
    return seen


def _agent_run(tmp_path: Path, name: str, **kwargs: Any) -> tuple[Results, dict[str, int]]:
    with serve_in_thread("careful", latency_s=0.02) as server:
        seen = _counting(server)
        settings = AgentSettings(
            model="scripted", base_url=server.base_url, timeout_s=20.0, backoff_s=0.01
        )
        output = run_to_folder(
            families="B",
            count=2,
            trials=2,
            policies="llm,llm-advised,voc",
            seed=7,
            out=tmp_path / name,
            agent_run=AgentRun(settings=settings, mode="both", concurrency=2),
            workers=1,
            **kwargs,
        )
    return load_results(output.results_path), seen


def _without_latency(records: list[TrialRecord]) -> list[TrialRecord]:
    """The records without wall-clock latency (of the endpoint, not of the run)."""
    out = []
    for r in records:
        usage = r.usage.model_copy(update={"latency_s": 0.0}) if r.usage is not None else None
        out.append(r.model_copy(update={"usage": usage}))
    return out


def test_agent_trials_on_ray_pair_with_a_local_run_within_the_endpoint_limit(
    cluster: None, tmp_path: Path
) -> None:
    local, _ = _agent_run(tmp_path, "local")
    with ray_backend() as backend:
        on_ray, seen = _agent_run(tmp_path, "ray", backend=backend)
    assert _without_latency(on_ray.trials) == _without_latency(local.trials)
    assert on_ray.aggregates.rows == local.aggregates.rows
    assert on_ray.aggregates.paired == local.aggregates.paired
    assert {r.policy for r in on_ray.trials} >= {"llm", "llm-advised@production", "voc"}
    assert 1 <= seen["peak"] <= 2  # --concurrency 2 holds across the Ray workers


def test_a_failing_job_raises_its_own_error_and_results_keep_their_order(cluster: None) -> None:
    def _check(x: int) -> int:  # nested: pickled by value (workers cannot import tests)
        if x == 0:
            raise InvalidArgumentError("job 0 refused")
        return x

    with ray_backend() as backend:
        assert list(backend.map(_check, [3, 1, 2], in_flight=2)) == [3, 1, 2]
        with pytest.raises(InvalidArgumentError, match=r"^job 0 refused$"):
            list(backend.map(_check, [1, 0, 2]))


def test_spans_recorded_in_ray_tasks_are_replayed_under_the_run_span(cluster: None) -> None:
    from heedful import tracing
    from heedful.bench.run.benchmark import run_benchmark
    from heedful.bench.worlds.families import generate_family
    from heedful.span_relay import RecordingTracer

    recorder = RecordingTracer()
    tracing.install(recorder)
    try:
        with ray_backend() as backend:
            run_benchmark(
                generate_family("A", 2, seed=0), ["voc"], trials=1, seed=0, progress=False,
                backend=backend,
            )  # fmt: skip
    finally:
        tracing.uninstall()
    records = recorder.records
    [run] = [i for i, r in enumerate(records) if r.name == "heedful.bench.run"]
    scenarios = [i for i, r in enumerate(records) if r.name == "heedful.bench.scenario"]
    assert len(scenarios) == 2 and all(records[i].parent == run for i in scenarios)
    nexts = [r for r in records if r.name == "heedful.controller.next"]
    assert nexts and all(r.parent in scenarios for r in nexts)
