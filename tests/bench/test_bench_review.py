from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from heedful.bench.results import load_results
from heedful.bench.runner import run_benchmark
from heedful.errors import HeedfulError, InvalidArgumentError
from heedful.model import scenario_from_dict


def test_results_file_that_is_not_utf8_is_an_invalid_argument(tmp_path: Path) -> None:
    f = tmp_path / "results.json"
    f.write_bytes(b"\xff\xfe{}")
    with pytest.raises(InvalidArgumentError, match="UTF-8"):
        load_results(f)


def _huge(scenario_id: str) -> dict[str, Any]:
    # 18 binary variables: 262,144 joint worlds, above the exact-valuation limit
    variables = {f"v{i}": {"domain": ["a", "b"], "prior": [0.5, 0.5]} for i in range(18)}
    return {
        "format": "heedful.scenario/v1",
        "id": scenario_id,
        "budget": 0,
        "variables": variables,
        "actions": {"go": {"utility": [{"value": 1.0}]}},
    }


def test_sealed_run_errors_do_not_name_the_scenario() -> None:
    scenario = scenario_from_dict(_huge("secret-holdout-case-7"))
    with pytest.raises(HeedfulError) as info:
        run_benchmark([scenario], ["random"], trials=1, seed=0, sealed=True)
    assert "secret-holdout-case-7" not in str(info.value)


def test_unsealed_run_errors_still_name_the_scenario() -> None:
    scenario = scenario_from_dict(_huge("open-case-7"))
    with pytest.raises(HeedfulError, match="open-case-7"):
        run_benchmark([scenario], ["random"], trials=1, seed=0)
