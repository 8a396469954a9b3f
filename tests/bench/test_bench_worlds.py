"""Hidden models of the generated worlds and the shift (issue 9, item 3)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from heedful.attention.config import DEFAULT_HAZARDS_PER_HOUR
from heedful.attention.world import observation_accuracy
from heedful.bench.worlds.families import (
    DEFAULT_SHIFT,
    FAMILIES,
    World,
    generate_family,
    generator_versions,
    get_family,
)
from heedful.bench.worlds.families._worlds import DEFAULT_HAZARDS
from heedful.bench.worlds.holdout import make_holdout
from heedful.cli import app
from heedful.errors import InvalidArgumentError
from heedful.model import Volatility, load_scenario_set

ORDER = [Volatility.LOW, Volatility.MEDIUM, Volatility.HIGH, Volatility.VERY_HIGH]


def test_shift_zero_is_exactly_the_controllers_model() -> None:
    assert dict(DEFAULT_HAZARDS_PER_HOUR) == DEFAULT_HAZARDS
    w = get_family("G").draw_world(0.0, np.random.default_rng(1))
    assert w == World()
    for vol in ORDER:
        for age in (0.0, 600.0, 7_200.0, 86_400.0):
            expected = observation_accuracy(0.8, age, vol, DEFAULT_HAZARDS_PER_HOUR, 3, 0.99)
            assert w.accuracy(0.8, vol, age, 3, 0.0) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("code", sorted(FAMILIES))
def test_shifted_worlds_are_not_the_controllers_model_but_stay_ordered(code: str) -> None:
    fam = get_family(code)
    rng = np.random.default_rng(7)
    worlds = [fam.draw_world(1.0, rng) for _ in range(50)]
    assert all(w != World() for w in worlds)
    for w in worlds:
        rates = [w.hazard(v) for v in ORDER]
        assert rates == sorted(rates)  # a more volatile class never changes more slowly
        assert w.hazard(Volatility.IMMUTABLE) == 0.0
    # The family's own distribution: hazards move away from the defaults, in its direction.
    mean_log = np.mean(
        [math.log(w.hazard(Volatility.MEDIUM) / DEFAULT_HAZARDS[Volatility.MEDIUM]) for w in worlds]
    )
    assert abs(mean_log) > 0.1


def test_accuracy_stays_honest_in_every_world() -> None:
    rng = np.random.default_rng(3)
    for code in sorted(FAMILIES):
        w = get_family(code).draw_world(2.0, rng)
        accs = [w.accuracy(a, Volatility.MEDIUM, 60.0, 2, 0.0) for a in (0.5, 0.7, 0.9)]
        assert accs == sorted(accs)  # more authority, never less accuracy
        fresh = w.accuracy(0.9, Volatility.HIGH, 60.0, 2, 0.0)
        stale = w.accuracy(0.9, Volatility.HIGH, 36_000.0, 2, 0.0)
        assert stale <= fresh
        assert w.keep(0.9, Volatility.LOW, 600.0) >= w.keep(0.6, Volatility.LOW, 600.0)


@pytest.mark.parametrize("code", sorted(FAMILIES))
def test_the_shift_moves_only_the_hidden_truth(code: str) -> None:
    base = generate_family(code, 6, 4, shift=0.0)
    far = generate_family(code, 6, 4, shift=2.0)
    assert [s.view for s in base] == [s.view for s in far]
    assert [s.truth for s in base] != [s.truth for s in far]


def test_default_shift_and_versions_say_which_worlds_were_used() -> None:
    assert DEFAULT_SHIFT == 1.0
    assert [s.truth for s in generate_family("G", 3, 0)] == [
        s.truth for s in generate_family("G", 3, 0, shift=1.0)
    ]
    v = generator_versions(["G", "B"], shift=0.5)
    assert v["shift"] == "0.5" and v["G"] == "G-v3" and v["B"] == "B-v3"
    assert generator_versions(["G"])["shift"] == "1"


@pytest.mark.parametrize("bad", [-0.1, math.inf, math.nan])
def test_a_bad_shift_is_refused(bad: float) -> None:
    with pytest.raises(InvalidArgumentError, match="shift"):
        generate_family("G", 1, 0, shift=bad)


def test_cli_shift_generates_the_same_views_and_refuses_a_negative_one() -> None:
    runner = CliRunner()
    ok = runner.invoke(
        app, ["scenario", "generate", "--family", "B", "--count", "1", "--shift", "0"]
    )
    assert ok.exit_code == 0 and "B-d0-0000" in ok.output
    bad = runner.invoke(app, ["scenario", "generate", "--family", "B", "--shift", "-1"])
    assert bad.exit_code == 2
    assert "shift must be a finite number" in bad.output
    assert "Traceback" not in bad.output


def test_holdout_sets_draw_shifted_worlds_and_record_the_shift(tmp_path: Path) -> None:
    key = tmp_path / "k" / "key"
    near = make_holdout(["B"], 2, key, tmp_path / "near", cwd=tmp_path / "x", shift=0.0)
    far = make_holdout(["B"], 2, key, tmp_path / "far", cwd=tmp_path / "x", shift=2.0)
    a, b = load_scenario_set(near.files), load_scenario_set(far.files)
    assert [s.view for s in a] == [s.view for s in b]
    assert [s.truth for s in a] != [s.truth for s in b]
    manifest = json.loads((tmp_path / "far" / "holdout.json").read_text())
    assert manifest["generator_versions"]["shift"] == "2"
