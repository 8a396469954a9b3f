"""The shared frozen model base and the UTC helper."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from heedful.model import Claim, Cost, SourceRecord
from heedful.model.base import FrozenModel, as_utc


def test_as_utc_takes_a_naive_datetime_as_utc_and_keeps_an_aware_one() -> None:
    naive = datetime(2026, 1, 1, 12)
    assert as_utc(naive) == datetime(2026, 1, 1, 12, tzinfo=UTC)
    plus_two = datetime(2026, 1, 1, 14, tzinfo=timezone(timedelta(hours=2)))
    assert as_utc(plus_two) is plus_two and as_utc(plus_two) == as_utc(naive)


@pytest.mark.parametrize("model", [Claim, Cost, SourceRecord])
def test_vocabulary_records_share_the_frozen_base(model: type[FrozenModel]) -> None:
    assert issubclass(model, FrozenModel)


def test_frozen_base_refuses_changes_and_unknown_fields() -> None:
    cost = Cost(tool_calls=1)
    with pytest.raises(ValidationError):
        cost.tool_calls = 2  # type: ignore[misc]
    with pytest.raises(ValidationError):
        Cost(tool_calls=1, surprise=3)  # type: ignore[call-arg]
