from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from heedful.bench import config as bench_config
from heedful.cli import app
from heedful.model import load_scenarios

SMALL = ["--count", "2", "--trials", "1", "--policies", "random,oracle"]


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "heedful.cli", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )


def test_bench_run_writes_results_and_report(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["bench", "run", *SMALL, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "oracle" in result.output
    assert json.loads((out / "results.json").read_text())["format"] == "heedful.results/v2"
    assert (out / "report.html").read_text().startswith("<!doctype html>")


def test_bench_run_reads_scenario_files(tmp_path: Path) -> None:
    gen = CliRunner().invoke(
        app,
        [
            "scenario",
            "generate",
            "--family",
            "B",
            "--count",
            "2",
            "--out",
            str(tmp_path / "b.yaml"),
        ],
    )
    assert gen.exit_code == 0, gen.output
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        [
            "bench",
            "run",
            "--scenarios",
            str(tmp_path / "b.yaml"),
            "--trials",
            "1",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads((out / "results.json").read_text())
    assert data["manifest"]["n_scenarios"] == 2
    assert data["manifest"]["scenario_source"].startswith("files:")


def test_bench_report_regenerates_the_html(tmp_path: Path) -> None:
    out = tmp_path / "run"
    CliRunner().invoke(app, ["bench", "run", *SMALL, "--out", str(out)])
    (out / "report.html").unlink()
    result = CliRunner().invoke(app, ["bench", "report", str(out / "results.json")])
    assert result.exit_code == 0, result.output
    assert (out / "report.html").exists()
    assert "random" in result.output


def test_report_html_is_self_contained(tmp_path: Path) -> None:
    out = tmp_path / "run"
    CliRunner().invoke(app, ["bench", "run", *SMALL, "--out", str(out)])
    page = (out / "report.html").read_text()
    for external in ("http://", "https://", "<script", "<link", "src=", "@import"):
        assert external not in page
    assert "<svg" in page and "<style>" in page


def test_heedful_run_writes_a_new_run_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = bench_config.BenchConfig(suite_count=2, suite_trials=1, bootstrap_resamples=100)
    monkeypatch.setattr(bench_config, "DEFAULT_CONFIG", small)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["run", "--seed", "3"])
    assert result.exit_code == 0, result.output
    (folder,) = (tmp_path / "runs").iterdir()
    assert folder.name.endswith("-3")
    assert (folder / "results.json").exists() and (folder / "report.html").exists()
    assert f"runs/{folder.name}/results.json" in result.output


def test_scenario_generate_writes_loadable_yaml(tmp_path: Path) -> None:
    path = tmp_path / "g.yaml"
    result = CliRunner().invoke(
        app,
        [
            "scenario",
            "generate",
            "--family",
            "G",
            "--count",
            "3",
            "--seed",
            "4",
            "--out",
            str(path),
        ],
    )
    assert result.exit_code == 0, result.output
    assert [s.view.family for s in load_scenarios(path)] == ["G", "G", "G"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["bench", "run", "--policies", "nope"], "unknown policy 'nope'"),
        (["bench", "run", "--family", "Z"], "unknown family 'Z'"),
        (["bench", "run", "--trials", "0"], "--trials must be at least 1, not 0"),
        (["scenario", "generate", "--family", "Q"], "unknown family 'Q'"),
        (["bench", "report", "no-such-results.json"], "cannot read"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], needle: str, tmp_path: Path) -> None:
    proc = _cli(*args, cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0]
