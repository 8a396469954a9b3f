"""Regression tests for defects found in review: each failed before its fix."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from pydantic import ValidationError

from heedful.errors import InvalidArgumentError
from heedful.memory import Store
from heedful.model.claim import SourceRecord


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.trace(since=2**70),
        lambda s: s.trace(limit=2**64),
        lambda s: s.search("disk", limit=2**64),
    ],
    ids=["trace-since", "trace-limit", "search-limit"],
)
def test_an_integer_beyond_sqlite_range_raises_a_heedful_error(
    call: Callable[[Store], object],
) -> None:
    with Store() as store, pytest.raises(InvalidArgumentError):
        call(store)


def test_a_source_with_an_infinite_data_age_is_refused() -> None:
    with pytest.raises(ValidationError, match="age_s"):
        SourceRecord(id="s", age_s=math.inf)
