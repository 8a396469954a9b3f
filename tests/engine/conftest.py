"""Fixtures of the engine tests."""

from __future__ import annotations

import pytest
from engine_builders import clock

from heedful.engine.memgraph import InMemoryGraph


@pytest.fixture
def graph() -> InMemoryGraph:
    """An empty in-memory graph on the fixed test clock."""
    return InMemoryGraph(clock=clock)
