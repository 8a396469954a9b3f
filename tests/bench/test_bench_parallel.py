"""Scenarios across worker processes, and the split results files (summary + trial records)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from heedful.bench.parallel import map_in_processes, resolve_workers
from heedful.bench.results import Results, load_results, trials_path, write_results
from heedful.bench.run.benchmark import run_benchmark
from heedful.bench.suite import run_to_folder
from heedful.bench.worlds.families import generate_suite
from heedful.cli import app
from heedful.errors import InvalidArgumentError

POLICIES = ["random", "recency", "voc", "oracle"]


def _files(folder: Path) -> tuple[list[str], bytes]:
    summary = (folder / "results.json").read_text().splitlines()
    kept = [line for line in summary if '"created_utc"' not in line]
    assert len(kept) == len(summary) - 1
    return kept, (folder / "results.trials.jsonl.gz").read_bytes()


@pytest.mark.parametrize("adaptive", [False, True])
def test_worker_count_does_not_change_a_byte(tmp_path: Path, adaptive: bool) -> None:
    kwargs = dict(
        families="G,B", count=2, trials=2, policies=",".join(POLICIES), seed=3, adaptive=adaptive
    )
    run_to_folder(out=tmp_path / "one", workers=1, **kwargs)  # type: ignore[arg-type]
    run_to_folder(out=tmp_path / "two", workers=2, **kwargs)  # type: ignore[arg-type]
    assert _files(tmp_path / "one") == _files(tmp_path / "two")


def test_progress_reaches_the_total_with_workers() -> None:
    scenarios = generate_suite(["G"], 3, seed=0)
    calls: list[tuple[int, int, str]] = []
    run_benchmark(
        scenarios,
        ["random", "oracle"],
        trials=2,
        seed=0,
        workers=2,
        progress=lambda d, t, label: calls.append((d, t, label)),
    )
    done = [d for d, _, _ in calls]
    assert done == sorted(done) and done[-1] == calls[-1][1] == 3 * 2 * 2
    assert {label for _, _, label in calls} >= {s.id for s in scenarios}
    assert calls[-1][2].startswith("aggregating")


def test_bad_worker_counts_are_rejected() -> None:
    with pytest.raises(InvalidArgumentError, match="workers must be at least 1"):
        resolve_workers(0)
    assert resolve_workers(None) >= 1
    result = CliRunner().invoke(app, ["bench", "run", "--count", "1", "--workers", "-1"])
    assert result.exit_code == 2
    assert "workers must be at least 1" in result.output


def test_a_failing_job_raises_in_the_caller() -> None:
    with pytest.raises(ZeroDivisionError):
        list(map_in_processes(_invert, [1, 0, 2], 2))
    assert list(map_in_processes(_invert, [1, 2, 4], 2)) == [1.0, 0.5, 0.25]


def _invert(x: int) -> float:
    return 1 / x


@pytest.fixture(scope="module")
def small() -> Results:
    return run_benchmark(generate_suite(["G"], 2, seed=0), ["random", "oracle"], trials=2, seed=0)


def test_summary_and_trial_records_round_trip(small: Results, tmp_path: Path) -> None:
    path = write_results(small, tmp_path / "results.json")
    data = json.loads(path.read_text())
    assert data["trials"] == [] and data["trials_file"] == "results.trials.jsonl.gz"
    assert data["trials_count"] == len(small.trials) == 8
    lines = gzip.decompress(trials_path(path).read_bytes()).splitlines()
    assert len(lines) == 8 and json.loads(lines[0])["policy"] == "random"
    assert load_results(path) == small


def test_writing_twice_gives_the_same_bytes(small: Results, tmp_path: Path) -> None:
    write_results(small, tmp_path / "a.json")
    write_results(small, tmp_path / "b.json")
    assert (tmp_path / "a.trials.jsonl.gz").read_bytes() == (
        tmp_path / "b.trials.jsonl.gz"
    ).read_bytes()


def test_an_old_single_file_still_loads(small: Results, tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(small.model_dump_json(indent=1, exclude={"trials_file", "trials_count"}))
    assert "trials_file" not in path.read_text()
    assert load_results(path) == small


def test_missing_or_short_trial_records_are_one_clear_error(small: Results, tmp_path: Path) -> None:
    path = write_results(small, tmp_path / "results.json")
    records = trials_path(path)
    lines = gzip.decompress(records.read_bytes()).splitlines(keepends=True)
    records.write_bytes(gzip.compress(b"".join(lines[:-1])))
    with pytest.raises(InvalidArgumentError, match="7 trial records, the summary says 8"):
        load_results(path)
    records.write_bytes(gzip.compress(b"".join(lines[:2]) + b'{"policy": 1}\n'))
    with pytest.raises(InvalidArgumentError, match=r"line 3: "):
        load_results(path)
    records.write_bytes(b"not gzip")
    with pytest.raises(InvalidArgumentError, match="cannot read the trial records"):
        load_results(path)
    records.unlink()
    with pytest.raises(InvalidArgumentError, match="cannot read the trial records"):
        load_results(path)
    result = CliRunner().invoke(app, ["bench", "report", str(path)])
    assert result.exit_code == 2 and "results.trials.jsonl.gz" in result.output


def test_trials_file_must_sit_beside_the_summary(small: Results, tmp_path: Path) -> None:
    path = write_results(small, tmp_path / "results.json")
    data = json.loads(path.read_text())
    data["trials_file"] = "../elsewhere.jsonl.gz"
    path.write_text(json.dumps(data))
    with pytest.raises(InvalidArgumentError, match="trials_file"):
        load_results(path)


def test_sealed_results_write_no_trial_records(tmp_path: Path) -> None:
    sealed = run_benchmark(
        generate_suite(["G"], 1, seed=0), ["random"], trials=1, seed=0, sealed=True
    )
    path = write_results(sealed, tmp_path / "results.json")
    assert not trials_path(path).exists()
    assert load_results(path) == sealed


def test_few_collections_restores_the_thresholds_even_on_error() -> None:
    import gc

    from heedful.bench.parallel import few_collections

    before = gc.get_threshold()
    with few_collections():
        assert gc.get_threshold()[0] >= 50_000
    assert gc.get_threshold() == before
    try:
        with few_collections():
            raise ValueError("boom")
    except ValueError:
        pass
    assert gc.get_threshold() == before
