from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from heedful.bench.manifest import canonical_hash, git_state, scenario_set_hash
from heedful.bench.results import load_results
from heedful.errors import InvalidArgumentError
from heedful.model import Scenario, scenario_from_dict


def test_git_state_outside_a_checkout_is_unknown(tmp_path: Path) -> None:
    assert git_state(tmp_path) == (None, None)


def test_canonical_hash_ignores_key_order() -> None:
    assert canonical_hash({"a": 1, "b": [1, 2]}) == canonical_hash({"b": [1, 2], "a": 1})


def test_scenario_set_hash_changes_with_a_private_field(
    tiny: Scenario, tiny_raw: dict[str, Any]
) -> None:
    changed = tiny_raw
    changed["sources"][2]["accuracy"] = 0.9
    assert scenario_set_hash([tiny]) != scenario_set_hash([scenario_from_dict(changed)])


def test_results_file_with_another_format_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"format": "heedful.results/v0", "manifest": {}}))
    with pytest.raises(InvalidArgumentError, match=r"heedful\.results/v1.*heedful\.results/v2"):
        load_results(path)


def test_results_file_that_is_not_json_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text("{not json")
    with pytest.raises(InvalidArgumentError, match="invalid JSON"):
        load_results(path)
