"""The backend seam: the runner's jobs on any backend give the same results file."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest
from typer.testing import CliRunner

from heedful.bench.run.backend import Backend, ProcessBackend, SerialBackend, local_backend
from heedful.bench.suite import run_to_folder
from heedful.cli import app

T = TypeVar("T")
R = TypeVar("R")


class ReversedBackend:
    """Runs jobs last-first in this process and counts them: order must not matter."""

    name = "reversed"

    def __init__(self) -> None:
        self.jobs = 0
        self.limits: list[int | None] = []

    def map(
        self, fn: Callable[[T], R], items: Sequence[T], *, in_flight: int | None = None
    ) -> Iterator[R]:
        self.limits.append(in_flight)
        out = [fn(item) for item in reversed(items)]
        self.jobs += len(items)
        yield from reversed(out)


def _square(x: int) -> int:
    return x * x


def test_local_backends_return_results_in_input_order() -> None:
    items = [3, 1, 4, 1, 5]
    assert list(SerialBackend().map(_square, items)) == [9, 1, 16, 1, 25]
    assert list(ProcessBackend(2).map(_square, items)) == [9, 1, 16, 1, 25]
    assert list(ProcessBackend(2).map(_square, items, in_flight=1)) == [9, 1, 16, 1, 25]
    assert isinstance(local_backend(1), SerialBackend)
    assert isinstance(local_backend(3), ProcessBackend)
    assert isinstance(ReversedBackend(), Backend)


def _summary(folder: Path) -> list[str]:
    return [
        line
        for line in (folder / "results.json").read_text().splitlines()
        if '"created_utc"' not in line
    ]


def test_a_handed_backend_plays_every_scenario_and_changes_no_byte(tmp_path: Path) -> None:
    kwargs: dict[str, Any] = dict(
        families="G,B", count=2, trials=2, policies="random,voc,oracle", seed=5
    )
    run_to_folder(out=tmp_path / "local", workers=1, **kwargs)
    backend = ReversedBackend()
    run_to_folder(out=tmp_path / "handed", workers=1, backend=backend, **kwargs)
    assert backend.jobs == 4 and backend.limits == [None]
    assert _summary(tmp_path / "local") == _summary(tmp_path / "handed")
    trials = "results.trials.jsonl.gz"
    assert (tmp_path / "local" / trials).read_bytes() == (tmp_path / "handed" / trials).read_bytes()


def test_backend_ray_without_the_extra_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    for args in (
        ["bench", "run", "--count", "1", "--out", str(tmp_path / "r"), "--backend", "ray"],
        ["learn", "train", "--count", "1", "--out", str(tmp_path / "m.json"), "--backend", "ray"],
    ):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, result.output
        assert "ray extra: .venv/bin/pip install -e '.[ray]'" in result.output
        assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--backend", "dask"], "--backend must be local or ray"),
        (["--address", "127.0.0.1:6379"], "--address needs --backend ray"),
    ],
)
def test_bad_backend_options_are_one_line_and_exit_2(
    args: list[str], needle: str, tmp_path: Path
) -> None:
    result = CliRunner().invoke(
        app, ["bench", "run", "--count", "1", "--out", str(tmp_path / "r"), *args]
    )
    assert result.exit_code == 2 and needle in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_bench_learn_and_the_cli_never_import_ray() -> None:
    code = (
        "import pkgutil, importlib, sys, heedful.bench as b, heedful.learn as l\n"
        "for pkg in (b, l):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(m.name)\n"
        "import heedful.cli, heedful.integrations.ray\n"
        "print('ray' in sys.modules)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"
