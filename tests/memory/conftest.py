"""Fixtures for memory tests: an in-memory store with a controllable clock."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from memory_fakes import FakeClock

from heedful.memory import Store


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(clock: FakeClock) -> Iterator[Store]:
    with Store.open(":memory:", clock=clock) as s:
        yield s
