"""Regression tests for defects found in review: each failed before its fix."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from pydantic import ValidationError

from heedful.errors import InvalidArgumentError
from heedful.memory import Store
from heedful.model.claim import SourceRecord
from heedful.model.goal import Goal


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


@pytest.mark.parametrize(
    "fields",
    [{"consequence": math.inf}, {"progress": math.inf}],
    ids=["consequence", "progress"],
)
def test_a_goal_that_cannot_be_read_back_is_refused(fields: dict[str, object]) -> None:
    with Store() as store:
        with pytest.raises(InvalidArgumentError):
            store.add_goal(Goal(id="g", title="ship", **fields))  # type: ignore[arg-type]
        assert store.list_goals() == []


def test_an_update_that_could_not_be_read_back_changes_nothing() -> None:
    with Store() as store:
        store.add_goal(Goal(id="g", title="ship"))
        with pytest.raises(InvalidArgumentError):
            store.update_goal(Goal(id="g", title="ship", consequence=math.inf))
        assert store.get_goal("g").consequence == 1.0


def test_a_transaction_block_is_all_or_nothing() -> None:
    with Store() as store:
        with pytest.raises(InvalidArgumentError), store.transaction():
            store.add_source(SourceRecord(id="s"))
            store.add_goal(Goal(id="g", title="ship", consequence=math.inf))
        assert store.sources() == []


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
