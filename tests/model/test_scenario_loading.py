from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from heedful.errors import ScenarioError
from heedful.model import (
    ScenarioView,
    load_scenarios,
    scenario_from_dict,
    scenario_json_schema,
    scenario_to_dict,
)

PRIVATE_KEYS = {"prior", "accuracy", "fails", "render", "echo", "world"}

BASE: dict[str, Any] = {
    "format": "heedful.scenario/v1",
    "id": "deploy",
    "task": "Deploy A or B",
    "budget": 1,
    "cost_weight": 0.01,
    "variables": {
        "v": {"domain": ["4.1", "4.2"], "prior": [0.3, 0.7], "volatility": "high"},
        "c": {"domain": ["yes", "no"], "prior": [0.8, 0.2], "volatility": "low"},
    },
    "actions": {
        "a": {"utility": [{"when": {"v": "4.1"}, "value": 1.0}, {"value": -1.0}]},
        "b": {"utility": [{"when": {"v": "4.2", "c": "yes"}, "value": 1.0}, {"value": -1}]},
    },
    "beliefs": [{"variable": "v", "value": "4.1", "origin": "summary", "confidence": 0.9}],
    "sources": [
        {
            "id": "registry",
            "reports": ["v"],
            "authority": 0.99,
            "accuracy": 0.99,
            "fails": 0.1,
            "render": "version {v}",
        },
        {"id": "summary", "reports": ["v"], "echo": {"v": "4.1"}},
    ],
    "world": {"v": "4.2", "c": "yes"},
}


def _walk_keys(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in _walk_keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in _walk_keys(v)}
    return set()


def test_view_holds_no_private_field() -> None:
    scenario = scenario_from_dict(BASE)
    dumped = scenario.view.model_dump(mode="json")
    assert not (_walk_keys(dumped) & PRIVATE_KEYS)
    assert scenario.truth.sources["registry"].accuracy == 0.99
    assert scenario.truth.world == {"v": "4.2", "c": "yes"}


def test_view_type_has_no_private_attributes() -> None:
    fields = set(ScenarioView.model_fields)
    for name in ScenarioView.model_fields:
        annotation = ScenarioView.model_fields[name].annotation
        fields |= set(getattr(annotation, "model_fields", {}))
    assert not (fields & PRIVATE_KEYS)


def test_round_trip_through_file_form() -> None:
    scenario = scenario_from_dict(BASE)
    again = scenario_from_dict(scenario_to_dict(scenario))
    assert again.view == scenario.view
    assert again.truth == scenario.truth


@pytest.mark.parametrize(
    ("mutate", "path", "fragment"),
    [
        (lambda d: d["variables"]["v"].update(prior=[0.3, 0.6]), "variables.v.prior", "sum to 1"),
        (lambda d: d["sources"][0].update(accuracy=1.5), "sources[0].accuracy", "less than"),
        (lambda d: d["sources"][1].update(id="registry"), "sources[1].id", "duplicate"),
        (lambda d: d.update(budget=-1), "budget", "greater than"),
        (lambda d: d.update(budget=3), "budget", "larger than the number of sources"),
        (lambda d: d["beliefs"][0].update(value="9"), "beliefs[0].value", "not in the domain"),
        (lambda d: d["world"].update(v="5"), "world.v", "not in the domain"),
        (lambda d: d["sources"][0].pop("accuracy"), "sources[0]", "neither accuracy nor echo"),
        (lambda d: d["sources"][0].update(reports=["zz"]), "sources[0].reports[0]", "unknown"),
        (lambda d: d["sources"][0].update(secret=1), "sources[0].secret", "not permitted"),
        (lambda d: d.update(format="v0"), "format", "heedful.scenario/v1"),
    ],
)
def test_validation_error_names_path_and_problem(mutate: Any, path: str, fragment: str) -> None:
    raw = copy.deepcopy(BASE)
    mutate(raw)
    with pytest.raises(ScenarioError) as info:
        scenario_from_dict(raw, file="s.yaml")
    assert info.value.file == "s.yaml"
    assert info.value.path == path
    assert fragment in str(info.value)


def test_list_file_errors_carry_the_item_index(tmp_path: Path) -> None:
    bad = copy.deepcopy(BASE)
    bad["id"] = "other"
    bad["variables"]["c"]["prior"] = [0.5, 0.6]
    f = tmp_path / "set.json"
    f.write_text(json.dumps([BASE, bad]))
    with pytest.raises(ScenarioError) as info:
        load_scenarios(f)
    assert str(info.value).startswith(f"{f}:[1].variables.c.prior:")


def test_duplicate_ids_in_one_file_are_rejected(tmp_path: Path) -> None:
    f = tmp_path / "dup.json"
    f.write_text(json.dumps([BASE, BASE]))
    with pytest.raises(ScenarioError, match="duplicate scenario id"):
        load_scenarios(f)


def test_unquoted_yaml_values_are_read_as_strings(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(
        "format: heedful.scenario/v1\nid: y\nbudget: 0\n"
        "variables: {ok: {domain: [yes, no], prior: [0.5, 0.5]},"
        " n: {domain: [1, 2], prior: [1, 0]}}\n"
        "actions: {go: {utility: [{when: {ok: yes, n: 1}, value: 1}, {value: 0}]}}\n"
    )
    (scenario,) = load_scenarios(f)
    assert scenario.view.variables["ok"].domain == ("true", "false")
    assert scenario.view.actions["go"].utility[0].when == {"ok": "true", "n": "1"}


def test_invalid_yaml_reports_the_line(tmp_path: Path) -> None:
    f = tmp_path / "broken.yaml"
    f.write_text("format: heedful.scenario/v1\nid: [unclosed\n")
    with pytest.raises(ScenarioError, match="invalid YAML at line"):
        load_scenarios(f)


def test_json_schema_names_the_format() -> None:
    schema = scenario_json_schema()
    assert schema["title"] == "heedful.scenario/v1"
    assert "sources" in schema["properties"]
