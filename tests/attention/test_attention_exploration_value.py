"""examples/exploration_value.py: the multi-turn run that measures what exploration buys.

The measurement means something only if its machinery works: with exploration on, a long-lived
controller reads the claims its prior undervalues, learns their change rate from those reads and
then reads them on its own; with exploration off it never reads one and learns nothing.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "exploration_value", ROOT / "examples" / "exploration_value.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_exploration_finds_and_learns_the_undervalued_claims(script: ModuleType) -> None:
    ep = script.make_episode("undervalued", 120, 0)
    played = script.play(ep, script.EXPLORING, 0)
    assert played.explorations > 0
    assert played.slow_reads > 0
    # learned from those reads: far above the stated `low` (0.001 per hour) ...
    assert played.slow_rate is not None and played.slow_rate > 0.01
    # ... and acted on: the controller then reads them beyond what exploration chose
    assert played.slow_reads > played.explorations


def test_without_exploration_the_undervalued_claims_are_never_read(script: ModuleType) -> None:
    ep = script.make_episode("undervalued", 120, 0)
    played = script.play(ep, script.NOT_EXPLORING, 0)
    assert played.explorations == 0
    assert played.slow_reads == 0
    assert played.slow_rate is None
    assert played.reads > 0  # it does read: the stated-right claims
