"""A lone surrogate in an id or claim type is a heedful error, never a codec or pydantic one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from heedful.attention.controller import Controller
from heedful.errors import HeedfulError

BAD = "a\ud800b"

CALLS: dict[str, Callable[[Controller], object]] = {
    "register_source id": lambda c: c.register_source(BAD),
    "register_source reports": lambda c: c.register_source("s", reports=[BAD]),
    "register_source authority": lambda c: c.register_source("s", authority={BAD: 0.9}),
    "record_belief id": lambda c: c.record_belief(BAD, "x"),
    "record_belief claim type": lambda c: c.record_belief("c", "x", claim_type=BAD),
    "record_belief domain": lambda c: c.record_belief("c", "x", domain=["x", BAD]),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_lone_surrogate_is_a_heedful_error_and_changes_nothing(tmp_path: Path, call: str) -> None:
    ctl = Controller(tmp_path / "m.db")
    with pytest.raises(HeedfulError, match="not valid Unicode"):
        CALLS[call](ctl)
    assert ctl.world.sources == {} and ctl.world.beliefs == {}
    assert ctl.store is not None and ctl.store.claims() == [] and ctl.store.sources() == []


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
