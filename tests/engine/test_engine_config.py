"""Engine configuration: defaults from document 002, file layer, validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from heedful.engine.config import AutonomyLevel, EngineConfig, load_engine_config
from heedful.errors import InvalidArgumentError


def test_defaults_follow_document_002() -> None:
    cfg = EngineConfig()
    assert cfg.autonomy == AutonomyLevel.OBSERVE
    assert cfg.heartbeat_ms == 300_000
    b = cfg.budget
    assert (b.max_items_per_cycle, b.max_explore_calls, b.max_deliberation_sccs) == (3, 5, 2)
    assert (b.max_action_dispatches, b.total_timeout_ms, b.escalation_cooldown_ms) == (
        1,
        60_000,
        300_000,
    )
    assert cfg.triage.surprise_weight == 0.3
    t = cfg.coverage.thresholds
    assert (t.act_coverage, t.act_max_uncertainty, t.act_max_risk) == (0.72, 0.35, 0.45)
    assert (t.learn_coverage, t.learn_max_uncertainty, t.learn_max_risk) == (0.45, 0.70, 0.75)


def test_yaml_file_overrides_only_what_it_names(tmp_path: Path) -> None:
    path = tmp_path / "engine.yaml"
    path.write_text("autonomy: act\nbudget:\n  max_items_per_cycle: 7\ntriage:\n  method: voc\n")
    cfg = load_engine_config(path)
    assert cfg.autonomy == AutonomyLevel.ACT
    assert cfg.budget.max_items_per_cycle == 7
    assert cfg.budget.max_action_dispatches == 1
    assert cfg.triage.method == "voc"


def test_json_file_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "engine.json"
    path.write_text('{"heartbeat_ms": 1000}')
    assert load_engine_config(path).heartbeat_ms == 1000


def test_invalid_value_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "engine.yaml"
    path.write_text("budget:\n  max_items_per_cycle: -1\n")
    with pytest.raises(InvalidArgumentError, match=r"budget\.max_items_per_cycle"):
        load_engine_config(path)


def test_unknown_key_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "engine.yaml"
    path.write_text("budgett: {}\n")
    with pytest.raises(InvalidArgumentError, match="budgett"):
        load_engine_config(path)


def test_missing_file_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError, match=r"engine config .*nope\.yaml: cannot read"):
        load_engine_config(tmp_path / "nope.yaml")


def test_explore_line_below_learn_threshold_is_rejected() -> None:
    with pytest.raises(InvalidArgumentError, match="explore_below_coverage"):
        EngineConfig().with_overrides(triage={"explore_below_coverage": 0.3})
