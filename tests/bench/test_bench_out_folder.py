from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from heedful.errors import InvalidArgumentError


def _heedful(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "heedful.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("suffix", ["", "/sub"])
def test_an_output_folder_that_cannot_be_made_is_one_line_and_exit_2(
    tmp_path: Path, suffix: str
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    proc = _heedful(
        "bench", "run", "--family", "G", "--count", "1", "--trials", "1",
        "--policies", "random", "--out", f"{blocker}{suffix}",
    )  # fmt: skip
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().count("\n") == 0
    assert "output folder" in proc.stderr
    assert blocker.read_text() == "not a folder"


def test_an_empty_scenario_path_is_refused_not_read_as_the_current_folder() -> None:
    proc = _heedful("scenario", "validate", "")
    assert proc.returncode == 2
    assert "empty path" in proc.stderr


def test_an_output_folder_holding_a_run_is_refused_not_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "results.json").write_text("{}")
    proc = _heedful(
        "bench", "run", "--family", "G", "--count", "1", "--trials", "1",
        "--policies", "random", "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0
    assert "already holds a run" in proc.stderr
    assert (out / "results.json").read_text() == "{}"


def test_a_run_spec_runs_and_is_recorded_in_the_manifest(tmp_path: Path) -> None:
    from heedful.bench import RunSpec, load_results, run_to_folder

    spec = RunSpec(families="G", count=2, policies="random,oracle", trials=1, out=tmp_path / "r")
    output = run_to_folder(spec, progress=False)
    recorded = load_results(output.results_path).manifest.run_spec
    assert recorded is not None
    assert recorded.pop("holdout") is False
    assert RunSpec(**recorded, out=spec.out) == spec  # out, workers, config: not results


def test_a_run_spec_and_loose_fields_together_are_refused(tmp_path: Path) -> None:
    from heedful.bench import RunSpec, run_to_folder

    with pytest.raises(InvalidArgumentError, match=r"not both.*trials"):
        run_to_folder(RunSpec(families="G"), trials=2)


def test_a_run_spec_with_a_wrong_field_names_it() -> None:
    from heedful.bench import run_spec

    with pytest.raises(InvalidArgumentError, match="run spec: trails"):
        run_spec(families="G", trails=2)
    with pytest.raises(InvalidArgumentError, match="run spec: trials"):
        run_spec(trials="many")
