"""The store answers text SQLite cannot hold (a lone surrogate) with one heedful error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from heedful.errors import InvalidArgumentError
from heedful.memory import Store

BAD = "a\ud800b"

CALLS: dict[str, Callable[[Store], object]] = {
    "get_claim": lambda s: s.get_claim(BAD),
    "append_trace": lambda s: s.append_trace(BAD, {}),
    "get_goal": lambda s: s.get_goal(BAD),
    "get_source": lambda s: s.get_source(BAD),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_lone_surrogate_is_an_invalid_argument(tmp_path: Path, call: str) -> None:
    with Store(tmp_path / "m.db") as store:
        with pytest.raises(InvalidArgumentError, match=r"lone surrogate \\ud800 at position 1"):
            CALLS[call](store)
        assert store.claims() == []  # no transaction left open: the store stays usable


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
