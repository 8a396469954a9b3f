from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from heedful.bench.families import generate_family
from heedful.bench.holdout import load_holdout
from heedful.bench.results import Results
from heedful.bench.seeds import Stream
from heedful.bench.suite import run_to_folder
from heedful.errors import InvalidArgumentError, ScenarioError
from heedful.model import scenario_to_dict


@pytest.fixture
def sealed_dir(tmp_path: Path) -> Path:
    d = tmp_path / "evaluator-private" / "heldout"
    d.mkdir(parents=True)
    for fam in ("G", "B"):
        items = [scenario_to_dict(s) for s in generate_family(fam, 2, 9, stream=Stream.HOLDOUT)]
        (d / f"{fam}.yaml").write_text(yaml.safe_dump(items))
    return d


def test_holdout_directory_inside_the_project_is_refused(tmp_path: Path) -> None:
    inside = tmp_path / "tests" / "heldout"
    inside.mkdir(parents=True)
    with pytest.raises(InvalidArgumentError, match="outside the project"):
        load_holdout(inside, cwd=tmp_path)


def test_holdout_directory_inside_the_heedful_checkout_is_refused(tmp_path: Path) -> None:
    here = Path(__file__).resolve().parent
    with pytest.raises(InvalidArgumentError, match="outside the project"):
        load_holdout(here, cwd=tmp_path)


def test_invalid_holdout_file_does_not_quote_the_set(tmp_path: Path) -> None:
    d = tmp_path / "sealed"
    d.mkdir()
    (d / "bad.yaml").write_text("format: heedful.scenario/v1\nid: secret-case-42\nbudget: -1\n")
    with pytest.raises(ScenarioError) as info:
        load_holdout(d, cwd=tmp_path / "elsewhere")
    assert "secret-case-42" not in str(info.value) and "bad.yaml" not in str(info.value)


def test_holdout_run_publishes_aggregates_only(sealed_dir: Path, tmp_path: Path) -> None:
    ids = [s.id for s in load_holdout(sealed_dir, cwd=tmp_path / "elsewhere")]
    out = run_to_folder(
        holdout=sealed_dir, policies="random,oracle", trials=2, out=tmp_path / "out"
    )
    data = json.loads(out.results_path.read_text())
    assert data["sealed"] is True
    assert data["trials"] == [] and data["scenarios"] == []
    assert {r["family"] for r in data["aggregates"]["rows"]} == {"G", "B", "all"}
    published = out.results_path.read_text() + out.report_path.read_text()
    assert not any(i in published for i in ids)
    assert str(sealed_dir) not in published


def test_sealed_results_cannot_hold_trials(sealed_dir: Path, tmp_path: Path) -> None:
    out = run_to_folder(holdout=sealed_dir, policies="random", trials=1, out=tmp_path / "o")
    open_run = run_to_folder(families="B", count=1, policies="random", trials=1, out=tmp_path / "p")
    data = out.results.model_dump(mode="json")
    data["scenarios"] = open_run.results.model_dump(mode="json")["scenarios"]
    with pytest.raises(ValueError, match="sealed"):
        Results.model_validate(data)


def test_holdout_and_scenario_files_together_are_refused(sealed_dir: Path) -> None:
    with pytest.raises(InvalidArgumentError, match="either"):
        run_to_folder(holdout=sealed_dir, scenario_paths=[sealed_dir])
