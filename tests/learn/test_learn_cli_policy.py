"""`heedful learn train`, the voc-learned policy and `heedful bench run --model-file`."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from heedful.bench.policy import get_policy, suite_policy_names
from heedful.bench.results import PolicySpec
from heedful.bench.run.benchmark import run_benchmark
from heedful.bench.worlds.families import generate_family
from heedful.cli import app
from heedful.errors import InvalidArgumentError
from heedful.learn.estimator import LearnedEstimator
from heedful.learn.model_files import load_ranker


def test_learn_train_writes_a_model_with_its_manifest(tmp_path) -> None:
    out = tmp_path / "m.json"
    res = CliRunner().invoke(
        app, ["learn", "train", "--family", "A", "--count", "2", "--rounds", "1", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    assert data["manifest"]["families"] == ["A"] and data["manifest"]["count"] == 2


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--family", "Q"], "unknown family"),
        (["--count", "0"], "count must be at least 1"),
        (["--out", "/no/such/dir/m.json"], "existing folder"),
    ],
)
def test_learn_train_bad_input_is_one_line_and_exit_2(tmp_path, args, needle) -> None:
    base = {"--family": "A", "--count": "2", "--out": str(tmp_path / "m.json")}
    for k, v in zip(args[::2], args[1::2], strict=True):
        base[k] = v
    argv = ["learn", "train", *[t for kv in base.items() for t in kv]]
    res = CliRunner().invoke(app, argv)
    assert res.exit_code == 2
    assert needle in res.output and "Traceback" not in res.output


def test_voc_learned_is_a_registered_suite_policy_with_the_default_model() -> None:
    policy = get_policy("voc-learned")
    assert "voc-learned" in suite_policy_names()
    assert policy.get_params() == {"model_file": None}
    assert isinstance(policy._make_estimator(), LearnedEstimator)


def test_voc_learned_runs_in_the_bench_and_stays_within_budget() -> None:
    scenarios = generate_family("G", 3, 9)
    res = run_benchmark(scenarios, ["voc-learned"], trials=1, seed=0)
    assert len(res.trials) == 3
    for t, s in zip(res.trials, scenarios, strict=True):
        assert len(t.inspected) <= s.view.budget and t.violation is None


def test_a_bad_model_file_is_a_clear_error(tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "other"}')
    with pytest.raises(InvalidArgumentError, match=r"bad\.json"):
        get_policy("voc-learned", model_file=str(bad))


def test_bench_run_takes_a_model_file(tmp_path) -> None:
    model = tmp_path / "m.json"
    load_ranker(None).save(model)
    argv = ["bench", "run", "--family", "A", "--count", "2", "--trials", "1", "--policies"]
    argv += ["voc,voc-learned", "--model-file", str(model), "--out", str(tmp_path / "r")]
    res = CliRunner().invoke(app, argv)
    assert res.exit_code == 0, res.output
    data = json.loads((tmp_path / "r" / "results.json").read_text())
    specs = data["manifest"]["policies"]
    want = PolicySpec(name="voc-learned", params={"model_file": str(model)}).model_dump()
    assert want in specs


def test_model_file_without_voc_learned_is_refused(tmp_path) -> None:
    argv = ["bench", "run", "--family", "A", "--count", "1", "--policies", "voc"]
    (tmp_path / "m.json").write_text("{}")
    argv += ["--model-file", str(tmp_path / "m.json"), "--out", str(tmp_path / "r")]
    res = CliRunner().invoke(app, argv)
    assert res.exit_code == 2 and "not run" in res.output


def test_learn_train_says_which_fit_it_kept_and_why(tmp_path) -> None:
    out = tmp_path / "m.json"
    res = CliRunner().invoke(
        app, ["learn", "train", "--family", "A", "--count", "2", "--rounds", "1", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert "scenarios × 1 family," in res.output
    manifest = json.loads(out.read_text())["manifest"]
    kept = "no correction" if manifest["fit"] == "none" else manifest["fit"]
    assert f"kept: {kept}" in " ".join(res.output.split()).replace("regret search", "search")


def test_selection_line_names_the_kept_fit_with_its_validation_numbers() -> None:
    from heedful.cli.learn import _selection_line

    val = {
        "scenarios": 600,
        "selection_z": 1.0,
        "mean_regret": {"none": 0.012, "1000.0": 0.0125, "search": 0.0099},
        "best_fit": {"fit": "search", "mean_gain": 0.0022, "se": 0.0011},
        "selected": "search",
    }
    line = _selection_line({"fit": "search", "validation": val})
    assert line.startswith("kept: regret search: validation regret 0.0099 against 0.0120")
    assert "600 scenarios (gain +0.0022 ± 0.0011)" in line
    val = {
        **val,
        "selected": "none",
        "best_fit": {"fit": "1000.0", "mean_gain": -0.0005, "se": 0.001},
    }
    line = _selection_line({"fit": "none", "validation": val})
    assert line.startswith("kept: no correction (voc-learned ranks as voc-model)")
    assert "best: ridge (penalty 1,000), gain -0.0005 ± 0.0010" in line
    assert _selection_line({"fit": "ridge"}) == "kept: ridge"


def test_learn_calibrate_writes_a_map_the_controller_can_load(tmp_path) -> None:
    from heedful.attention.voc_calibration import VocCalibration

    out = tmp_path / "cal.json"
    res = CliRunner().invoke(
        app, ["learn", "calibrate", "--family", "G", "--count", "3", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    cal = VocCalibration.from_dict(json.loads(out.read_text()), where=str(out))
    assert "3 training-stream scenarios" in cal.fitted_on and "of each of G" in cal.fitted_on


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--family", "Q"], "unknown family"),
        (["--count", "0"], "count must be at least 1"),
        (["--out", "/no/such/dir/c.json"], "existing folder"),
    ],
)
def test_learn_calibrate_bad_input_is_one_line_and_exit_2(tmp_path, args, needle) -> None:
    base = {"--family": "G", "--count": "2", "--out": str(tmp_path / "c.json")}
    for k, v in zip(args[::2], args[1::2], strict=True):
        base[k] = v
    argv = ["learn", "calibrate", *[t for kv in base.items() for t in kv]]
    res = CliRunner().invoke(app, argv)
    assert res.exit_code == 2
    assert needle in res.output and "Traceback" not in res.output
