"""Suite-wide test settings."""

from __future__ import annotations

import os
import traceback
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import settings

from heedful.model import base

# Machines here are shared and noisy: no per-example deadline (speed lives in benchmarks/), and
# in CI the examples are derived from each test's name so a run is reproducible.
settings.register_profile("heedful", deadline=None, print_blob=True)
settings.register_profile("heedful-ci", deadline=None, print_blob=True, derandomize=True)
settings.load_profile("heedful-ci" if os.environ.get("CI") else "heedful")


# --- The real clock -------------------------------------------------------------------------
# Everything that depends on time in heedful takes a clock (Controller, Engine, MemoryGraph,
# Store) and reads the real one, heedful.model.base.wall_time, only when none is passed. A test
# that lets it do so depends on how long the machine takes between two reads — on a loaded box
# freshness decayed between two surveys (0.909999 for 0.91). Every test is watched: a read of
# the real clock fails it, naming where. A test that means to read it (a live server, a
# heartbeat that sleeps) says so with @pytest.mark.wall_clock; one that drives the CLI in
# process pins the clock with the ``fixed_clock`` fixture.

FIXED_NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "wall_clock: the test reads the real clock on purpose (not a flaky accident)"
    )


@pytest.fixture(autouse=True)
def _no_real_clock(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    if request.node.get_closest_marker("wall_clock") is not None:
        yield
        return
    reads: list[str] = []
    real = base._real_time

    def watched() -> float:
        if not reads:
            frames = traceback.extract_stack(limit=12)[:-2]
            ours = [f for f in frames if "/heedful/" in f.filename or "/tests/" in f.filename]
            reads.append(" <- ".join(f"{Path(f.filename).name}:{f.lineno}" for f in ours[::-1]))
        return real()

    monkeypatch.setattr(base, "_real_time", watched)
    yield
    if reads:
        pytest.fail(
            "the test read the real clock (heedful.model.base.wall_time) where the code takes an "
            f"injected one: pass clock=..., use the fixed_clock fixture, or mark it "
            f"@pytest.mark.wall_clock — first read at {reads[0]}",
            pytrace=False,
        )


@pytest.fixture
def fixed_clock(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> datetime:
    """Pin the default clock to :data:`FIXED_NOW` (for code the test cannot hand a clock, such
    as a CLI command run in process); a test marked ``wall_clock`` keeps the real one."""
    if request.node.get_closest_marker("wall_clock") is None:
        monkeypatch.setattr(base, "_real_time", lambda: FIXED_NOW.timestamp())
    return FIXED_NOW
