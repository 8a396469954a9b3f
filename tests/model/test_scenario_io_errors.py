from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from heedful.errors import ScenarioError
from heedful.model import load_scenarios, scenario_from_dict


def test_file_that_is_not_utf8_is_a_scenario_error(tmp_path: Path) -> None:
    f = tmp_path / "latin1.yaml"
    f.write_bytes(b"format: heedful.scenario/v1\nid: caf\xe9\n")
    with pytest.raises(ScenarioError, match="UTF-8"):
        load_scenarios(f)


def test_validating_a_binary_file_exits_2_without_traceback(tmp_path: Path) -> None:
    f = tmp_path / "binary.yaml"
    f.write_bytes(b"\xff\xfe\x00\x01binary")
    proc = subprocess.run(
        [sys.executable, "-m", "heedful.cli", "scenario", "validate", str(f)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr


_DUPLICATE_ACTION = """\
format: heedful.scenario/v1
id: dup
budget: 0
variables:
  x: {domain: [a, b], prior: [0.5, 0.5]}
actions:
  go: {utility: [{value: 1.0}]}
  go: {utility: [{value: -1.0}]}
"""


def test_duplicate_yaml_key_is_rejected_with_its_line(tmp_path: Path) -> None:
    f = tmp_path / "dup.yaml"
    f.write_text(_DUPLICATE_ACTION)
    with pytest.raises(ScenarioError, match=r"line 8: duplicate key 'go'"):
        load_scenarios(f)


def test_duplicate_json_key_is_rejected(tmp_path: Path) -> None:
    f = tmp_path / "dup.json"
    f.write_text(
        '{"format": "heedful.scenario/v1", "id": "dup", "budget": 0,'
        ' "variables": {"x": {"domain": ["a"], "prior": [1.0]},'
        ' "x": {"domain": ["a", "b"], "prior": [0.5, 0.5]}},'
        ' "actions": {"go": {"utility": [{"value": 1.0}]}}}'
    )
    with pytest.raises(ScenarioError, match="duplicate key 'x'"):
        load_scenarios(f)


def test_yaml_merge_keys_still_load(tmp_path: Path) -> None:
    f = tmp_path / "merge.yaml"
    f.write_text(
        "format: heedful.scenario/v1\nid: m\nbudget: 0\n"
        "variables:\n  x: {domain: [a, b], prior: [0.5, 0.5]}\n"
        "actions:\n  go: &base {utility: [{value: 1.0}]}\n"
        "  stay:\n    <<: *base\n    description: same rules\n"
    )
    (scenario,) = load_scenarios(f)
    assert scenario.view.actions["stay"].description == "same rules"


def _raw() -> dict[str, Any]:
    return {
        "format": "heedful.scenario/v1",
        "id": "finite",
        "budget": 1,
        "variables": {"x": {"domain": ["a", "b"], "prior": [0.5, 0.5]}},
        "actions": {"go": {"utility": [{"when": {"x": "a"}, "value": 1.0}, {"value": 0.0}]}},
        "sources": [{"id": "s", "reports": ["x"], "accuracy": 0.9}],
    }


@pytest.mark.parametrize(
    ("mutate", "path"),
    [
        (lambda d: d.update(cost_weight=math.inf), "cost_weight"),
        (lambda d: d["sources"][0].update(cost={"tokens": math.inf}), "sources[0].cost.tokens"),
        (lambda d: d["sources"][0].update(age_s=math.inf), "sources[0].age_s"),
        (
            lambda d: d.update(beliefs=[{"variable": "x", "value": "a", "age_s": math.inf}]),
            "beliefs[0].age_s",
        ),
    ],
)
def test_infinite_numbers_are_validation_errors(mutate: Any, path: str) -> None:
    raw = _raw()
    mutate(raw)
    with pytest.raises(ScenarioError) as info:
        scenario_from_dict(raw, file="f.yaml")
    assert info.value.path == path
    assert "finite" in str(info.value)


def test_count_of_further_problems_is_grammatical(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    text = (root / "examples/scenarios/deploy_a_or_b.yaml").read_text()
    assert text.count("accuracy: 0.99") == 2  # two sources: two problems
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("accuracy: 0.99", "accuracy: 1.5"))
    with pytest.raises(ScenarioError) as err:
        load_scenarios(bad)
    assert str(err.value).endswith("(and 1 more problem)"), str(err.value)
