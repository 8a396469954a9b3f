"""docs/inspect.md's first command: heedful's scripted endpoint through inspect_ai's
``openai-api`` provider, offline; and the scorer's stderr and bootstrap interval."""

from __future__ import annotations

import gzip
import json
import math
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from heedful.integrations.llm import serve_in_thread


def _inspect(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).with_name("inspect")
    return subprocess.run(
        [str(script), *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=300
    )


@pytest.fixture(scope="module")
def offline_run(tmp_path_factory):
    """The documented command on family G, 3 scenarios, against ``careful`` — and the bench's
    own run of the same agent on the same scenarios and worlds."""
    root = tmp_path_factory.mktemp("offline")
    with serve_in_thread("careful") as server:
        env = {
            **os.environ,
            "SCRIPTED_BASE_URL": server.base_url,
            "SCRIPTED_API_KEY": "none",
            "COLUMNS": "200",
            "NO_COLOR": "1",
            # No route to any provider or download: the run must not need one.
            "HTTPS_PROXY": "http://127.0.0.1:9",
            "HTTP_PROXY": "http://127.0.0.1:9",
            "NO_PROXY": "127.0.0.1,localhost",
        }
        done = _inspect(
            "eval", "heedful/family", "-T", "family=G", "-T", "count=3",
            "--model", "openai-api/scripted/careful",
            "--log-dir", str(root / "logs"), "--display", "plain",
            env=env, cwd=root,
        )  # fmt: skip
        bench = subprocess.run(
            [
                sys.executable, "-m", "heedful.cli", "bench", "run", "--family", "G",
                "--count", "3", "--trials", "1", "--policies", "llm", "--model", "scripted",
                "--base-url", server.base_url, "--out", str(root / "bench"),
            ],
            capture_output=True, text=True, env=env, cwd=root, timeout=300,
        )  # fmt: skip
    (log_file,) = (root / "logs").glob("*.eval")
    header = json.loads(zipfile.ZipFile(log_file).read("header.json"))
    return done, bench, header, root


def _metrics(header: dict, name: str) -> dict[str, float]:
    (found,) = [s for s in header["results"]["scores"] if s["name"] == name]
    return {k.removeprefix("heedful/"): m["value"] for k, m in found["metrics"].items()}


def test_the_documented_offline_command_succeeds(offline_run) -> None:
    done, _, header, _ = offline_run
    assert done.returncode == 0, done.stdout + done.stderr
    assert header["status"] == "success"


def test_it_scores_what_heedful_bench_run_scores_on_the_same_worlds(offline_run) -> None:
    _, bench, header, root = offline_run
    assert bench.returncode == 0, bench.stderr
    results = json.loads((root / "bench" / "results.json").read_text())
    (row,) = [r for r in results["aggregates"]["rows"] if r["family"] == "G"]
    got = _metrics(header, "attention_score")
    assert got["mean"] == pytest.approx(row["score"]["mean"])
    assert _metrics(header, "net_utility")["mean"] == pytest.approx(row["net_utility"]["mean"])


def test_the_scorer_reports_the_stderr_of_each_mean(offline_run) -> None:
    _, _, header, root = offline_run
    results = json.loads((root / "bench" / "results.json").read_text())
    with gzip.open(root / "bench" / results["trials_file"], "rt", encoding="utf-8") as f:
        scores = [json.loads(line)["score"] for line in f]
    n = len(scores)
    mean = sum(scores) / n
    expected = math.sqrt(sum((s - mean) ** 2 for s in scores) / (n - 1) / n)
    for key in ("attention_score", "regret", "net_utility", "optimal", "action_correct"):
        assert "stderr" in _metrics(header, key)
    assert _metrics(header, "attention_score")["stderr"] == pytest.approx(expected)


def test_the_scorer_reports_heedfuls_bootstrap_interval_around_the_mean(offline_run) -> None:
    _, _, header, _ = offline_run
    for key in ("attention_score", "net_utility"):
        m = _metrics(header, key)
        assert m["ci_lo"] <= m["mean"] <= m["ci_hi"]
        assert m["ci_lo"] < m["ci_hi"]
