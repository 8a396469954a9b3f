"""The ranker: fitting, plain-JSON persistence and clear errors on bad model files."""

from __future__ import annotations

import json

import numpy as np
import pytest

from heedful.errors import InvalidArgumentError
from heedful.learn.features import FEATURE_NAMES
from heedful.learn.model_files import default_model_path, load_ranker
from heedful.learn.ranker import MODEL_FORMAT, RidgeRanker, load_model

D = len(FEATURE_NAMES)


def _fitted(base: str | None = "model_net") -> RidgeRanker:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, D))
    y = 2.0 * x[:, 0] - 0.5 * x[:, 3] + 0.1
    return RidgeRanker(ridge=0.01, base=base).fit(x, y)


def test_ridge_recovers_a_linear_target() -> None:
    model = _fitted(base=None)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(20, D))
    np.testing.assert_allclose(model.predict(x), 2.0 * x[:, 0] - 0.5 * x[:, 3] + 0.1, atol=1e-3)


def test_base_feature_model_predicts_base_plus_correction() -> None:
    model = _fitted()
    x = np.random.default_rng(2).normal(size=(5, D))
    np.testing.assert_allclose(model.predict(x), 2.0 * x[:, 0] - 0.5 * x[:, 3] + 0.1, atol=1e-3)
    assert model.predict_one(x[0]) == pytest.approx(float(model.predict(x[:1])[0]))


def test_saved_model_is_plain_json_and_predicts_the_same(tmp_path) -> None:
    model = _fitted()
    model.manifest = {"families": ["G"]}
    path = tmp_path / "m.json"
    model.save(path)
    data = json.loads(path.read_text())
    assert data["format"] == MODEL_FORMAT and data["manifest"] == {"families": ["G"]}
    back = load_model(path)
    x = np.random.default_rng(3).normal(size=(7, D))
    np.testing.assert_allclose(back.predict(x), model.predict(x))


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (lambda d: d.update(format="pickle"), "format"),
        (lambda d: d.update(weights=d["weights"][:-1]), "weights"),
        (lambda d: d.update(scale=[0.0] * D), "scale"),
        (lambda d: d.update(features_hash="x"), "features_hash"),
        (lambda d: d.update(intercept="a"), "intercept"),
        (lambda d: d.update(base="nope"), "base"),
    ],
)
def test_bad_model_file_is_one_line_naming_file_and_field(tmp_path, edit, needle) -> None:
    data = _fitted().to_dict()
    edit(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InvalidArgumentError) as err:
        load_model(path)
    assert str(path) in str(err.value) and needle in str(err.value)
    assert "\n" not in str(err.value)


def test_missing_or_non_json_model_file_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(InvalidArgumentError, match=r"model file .*nope\.json: cannot read"):
        load_model(tmp_path / "nope.json")
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(InvalidArgumentError, match=r"model file .*invalid JSON at line 1"):
        load_model(tmp_path / "x.json")


def test_fit_refuses_mismatched_or_non_finite_input() -> None:
    with pytest.raises(InvalidArgumentError):
        RidgeRanker().fit(np.zeros((3, D)), np.zeros(2))
    x = np.zeros((3, D))
    x[0, 0] = np.nan
    with pytest.raises(InvalidArgumentError):
        RidgeRanker().fit(x, np.zeros(3))


def test_shipped_default_model_loads_with_its_training_manifest() -> None:
    model = load_ranker(None)
    assert default_model_path().name == "default_model.json"
    man = model.manifest
    assert man["families"] and man["count"] >= 1 and man["features_hash"]
    assert "heedful learn train" in man["command"]
    assert model.feature_names == FEATURE_NAMES


def test_shipped_model_is_the_fit_its_validation_selected() -> None:
    man = load_ranker(None).manifest
    val = man["validation"]
    assert man["fit"] == ("ridge" if val["selected"] not in ("none", "search") else val["selected"])
    if man["fit"] != "none":  # a kept correction beat no correction by selection_z SEs
        best = val["best_fit"]
        assert best["fit"] == val["selected"]
        assert best["mean_gain"] > val["selection_z"] * best["se"] > 0.0
        assert val["mean_regret"][val["selected"]] < val["mean_regret"]["none"]
