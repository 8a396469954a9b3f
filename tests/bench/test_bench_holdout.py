from __future__ import annotations

import json
import re
import stat
import subprocess
from pathlib import Path

import pytest
import yaml

from heedful.bench.results import Results
from heedful.bench.seeds import Stream
from heedful.bench.suite import run_to_folder
from heedful.bench.worlds.families import generate_family
from heedful.bench.worlds.holdout import load_holdout, make_holdout
from heedful.errors import InvalidArgumentError, ScenarioError
from heedful.model import scenario_to_dict


@pytest.fixture
def sealed_dir(tmp_path: Path) -> Path:
    d = tmp_path / "evaluator-private" / "heldout"
    make_holdout(["G", "B"], 2, tmp_path / "evaluator-private" / "key", d)
    return d


def _checkout(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def test_holdout_directory_inside_the_current_checkout_is_refused(tmp_path: Path) -> None:
    project = _checkout(tmp_path / "project")
    inside = project / "tests" / "heldout"
    inside.mkdir(parents=True)
    with pytest.raises(InvalidArgumentError, match="outside the project"):
        load_holdout(inside, cwd=project / "tests")


def test_a_working_directory_outside_any_checkout_is_not_the_project(tmp_path: Path) -> None:
    # The documented command run from a home directory: ~/.heedful/holdout.key is where an
    # evaluator keeps the key, not "inside the project".
    home = tmp_path / "home"
    home.mkdir()
    made = make_holdout(["G"], 1, home / ".heedful" / "holdout.key", home / "sealed", cwd=home)
    assert made.key_created and len(load_holdout(home / "sealed", cwd=home)) == 1


def test_holdout_files_and_folders_are_private(tmp_path: Path) -> None:
    key = tmp_path / "keys" / "holdout.key"
    made = make_holdout(["G"], 2, key, tmp_path / "sealed", cwd=tmp_path)
    mode = lambda p: stat.S_IMODE(p.stat().st_mode)  # noqa: E731
    assert mode(key) == 0o600 and mode(key.parent) == 0o700
    assert mode(made.directory) == 0o700
    written = sorted(made.directory.iterdir())
    assert len(written) == 3 and {mode(f) for f in written} == {0o600}


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


def test_a_holdout_set_cannot_be_run_unsealed_as_scenario_files(
    sealed_dir: Path, tmp_path: Path
) -> None:
    """Red team: ``--scenarios`` on the hold-out folder, on its files, or on a copy of one file
    elsewhere would write ids, worlds and oracle answers; each is refused before any work."""
    files = sorted(sealed_dir.glob("hx-*.yaml"))
    copy = tmp_path / "copied" / "case.yaml"
    copy.parent.mkdir()
    copy.write_text(files[0].read_text())
    for paths in ([sealed_dir], files, [copy]):
        with pytest.raises(InvalidArgumentError, match="--holdout DIR"):
            run_to_folder(scenario_paths=paths, policies="random", out=tmp_path / "never")
        assert not (tmp_path / "never").exists()


def test_holdout_and_scenario_files_together_are_refused(sealed_dir: Path) -> None:
    with pytest.raises(InvalidArgumentError, match="either"):
        run_to_folder(holdout=sealed_dir, scenario_paths=[sealed_dir])


def test_holdout_make_creates_a_private_256_bit_key_and_opaque_ids(tmp_path: Path) -> None:
    key_file = tmp_path / "secret" / "holdout.key"
    made = make_holdout(["G", "B"], 3, key_file, tmp_path / "set", cwd=tmp_path / "elsewhere")
    assert made.key_created
    assert key_file.stat().st_mode & 0o777 == 0o600
    assert len(bytes.fromhex(key_file.read_text().strip())) * 8 >= 256
    scenarios = load_holdout(tmp_path / "set", cwd=tmp_path / "elsewhere")
    assert len(scenarios) == 6
    for s in scenarios:
        # A keyed hash: nothing of family, seed or index in the id.
        assert re.fullmatch(r"hx-[0-9a-f]{20}", s.id)
    manifest = json.loads((tmp_path / "set" / "holdout.json").read_text())
    assert key_file.read_text().strip() not in json.dumps(manifest)
    assert manifest["families"] == ["G", "B"] and manifest["count"] == 3


def test_holdout_make_is_a_function_of_the_key(tmp_path: Path) -> None:
    key = tmp_path / "k"
    make_holdout(["G"], 2, key, tmp_path / "a", cwd=tmp_path / "x")
    make_holdout(["G"], 2, key, tmp_path / "b", cwd=tmp_path / "x")
    make_holdout(["G"], 2, tmp_path / "other-key", tmp_path / "c", cwd=tmp_path / "x")
    a = sorted(p.name for p in (tmp_path / "a").glob("*.yaml"))
    assert a == sorted(p.name for p in (tmp_path / "b").glob("*.yaml"))
    assert (tmp_path / "a" / a[0]).read_text() == (tmp_path / "b" / a[0]).read_text()
    assert not set(a) & {p.name for p in (tmp_path / "c").glob("*.yaml")}


def test_holdout_truth_is_not_found_by_searching_public_seeds(tmp_path: Path) -> None:
    # The attack of issue 9: recover a hold-out scenario's truth by regenerating public ones.
    make_holdout(["G"], 2, tmp_path / "k", tmp_path / "set", cwd=tmp_path / "x")
    sealed = load_holdout(tmp_path / "set", cwd=tmp_path / "x")
    truths = {json.dumps(s.truth.model_dump(mode="json"), sort_keys=True) for s in sealed}
    for stream in (Stream.DEV, Stream.HOLDOUT):
        for seed in range(40):
            for s in generate_family("G", 2, seed, stream=stream):
                assert json.dumps(s.truth.model_dump(mode="json"), sort_keys=True) not in truths


def test_holdout_key_and_folder_inside_the_project_are_refused(tmp_path: Path) -> None:
    inside = Path(__file__).resolve().parent
    with pytest.raises(InvalidArgumentError, match="key must live outside the project"):
        make_holdout(["G"], 1, inside / "holdout.key", tmp_path / "set")
    with pytest.raises(InvalidArgumentError, match="must live outside the project"):
        make_holdout(["G"], 1, tmp_path / "k", inside / "sealed")
    assert not (inside / "holdout.key").exists()


def test_short_or_garbled_key_files_are_refused(tmp_path: Path) -> None:
    (tmp_path / "short").write_text("ab" * 16)
    (tmp_path / "short").chmod(0o600)
    with pytest.raises(InvalidArgumentError, match="128 bits; at least 256"):
        make_holdout(["G"], 1, tmp_path / "short", tmp_path / "s1", cwd=tmp_path / "x")
    (tmp_path / "garbled").write_text("not a key")
    (tmp_path / "garbled").chmod(0o600)
    with pytest.raises(InvalidArgumentError, match="hex text"):
        make_holdout(["G"], 1, tmp_path / "garbled", tmp_path / "s2", cwd=tmp_path / "x")


def test_a_key_file_others_can_read_is_refused(tmp_path: Path) -> None:
    key = tmp_path / "holdout.key"
    make_holdout(["G"], 1, key, tmp_path / "s1", cwd=tmp_path / "x")
    key.chmod(0o644)
    with pytest.raises(
        InvalidArgumentError, match=r"can be read by others \(mode 644\); run: chmod 600"
    ):
        make_holdout(["G"], 1, key, tmp_path / "s2", cwd=tmp_path / "x")
    assert not (tmp_path / "s2").exists()


def test_holdout_run_refuses_public_generator_ids(tmp_path: Path) -> None:
    d = tmp_path / "public-seed-set"
    d.mkdir()
    items = [scenario_to_dict(s) for s in generate_family("G", 2, 9, stream=Stream.HOLDOUT)]
    (d / "G.yaml").write_text(yaml.safe_dump(items))
    with pytest.raises(InvalidArgumentError, match="public generators"):
        load_holdout(d, cwd=tmp_path / "x")


def test_holdout_make_refuses_a_folder_that_holds_scenarios(tmp_path: Path) -> None:
    make_holdout(["G"], 1, tmp_path / "k", tmp_path / "set", cwd=tmp_path / "x")
    with pytest.raises(InvalidArgumentError, match="already holds scenario files"):
        make_holdout(["G"], 1, tmp_path / "k", tmp_path / "set", cwd=tmp_path / "x")
    (tmp_path / "empty").mkdir()
    make_holdout(["B"], 1, tmp_path / "k", tmp_path / "empty", cwd=tmp_path / "x")


def test_holdout_make_cli_prints_the_run_command_on_its_own_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from heedful.cli import app

    out = tmp_path / "sealed"
    args = ["holdout", "make", "--family", "G", "--count", "2", "--out", str(out)]
    result = CliRunner().invoke(app, [*args, "--key-file", str(tmp_path / "k")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert f"  heedful bench run --holdout {out}" in lines  # copyable, not wrapped mid-path
    assert all(len(line) <= 80 for line in lines if str(tmp_path) not in line)


def test_missing_holdout_directory_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(InvalidArgumentError, match=re.escape(f"{missing}: the hold-out path")):
        load_holdout(missing)


def test_a_sealed_run_records_each_generators_version(sealed_dir: Path, tmp_path: Path) -> None:
    made = json.loads((sealed_dir / "holdout.json").read_text())["generator_versions"]
    out = run_to_folder(holdout=sealed_dir, policies="random", trials=1, out=tmp_path / "out")
    versions = out.results.manifest.generator_versions
    assert versions["G"] == made["G"] and versions["B"] == made["B"]
    assert versions["G"].startswith("G-v") and versions["generator"] == made["generator"]
    assert versions["shift"] == made["shift"]


def test_a_sealed_set_without_its_manifest_says_the_versions_are_unrecorded(
    sealed_dir: Path, tmp_path: Path
) -> None:
    (sealed_dir / "holdout.json").unlink()
    out = run_to_folder(holdout=sealed_dir, policies="random", trials=1, out=tmp_path / "out")
    assert out.results.manifest.generator_versions == {
        "B": "unrecorded (no holdout.json beside the set)",
        "G": "unrecorded (no holdout.json beside the set)",
    }


def test_a_sealed_set_with_a_broken_manifest_is_refused(sealed_dir: Path, tmp_path: Path) -> None:
    (sealed_dir / "holdout.json").write_text('{"format": "something else"}')
    with pytest.raises(InvalidArgumentError, match=r"holdout\.json: not a heedful\.holdout/v1"):
        run_to_folder(holdout=sealed_dir, policies="random", trials=1, out=tmp_path / "out")
