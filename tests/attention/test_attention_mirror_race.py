"""Two writers doing "add or replace" on the same store never see "already exists"."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from tests_attention_time import NOW

from heedful.attention.persist import StoreMirror
from heedful.attention.world import BeliefRecord
from heedful.memory import Store
from heedful.model.claim import Volatility
from heedful.model.goal import Goal

ROUNDS = 150


def _race(db: Path, write: Callable[[StoreMirror, int], None]) -> list[BaseException]:
    Store(db).close()  # create the schema before the writers start
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def writer() -> None:
        store = Store(db)
        mirror = StoreMirror(store)
        try:
            for i in range(ROUNDS):
                barrier.wait()
                try:
                    write(mirror, i)
                except Exception as exc:  # collected, asserted below
                    errors.append(exc)
        finally:
            store.close()

    threads = [threading.Thread(target=writer) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_two_writers_recording_the_same_new_beliefs_never_fail(tmp_path: Path) -> None:
    def write(mirror: StoreMirror, i: int) -> None:
        mirror.belief(
            BeliefRecord(
                claim_id=f"c{i}",
                claim_type="dep",
                value="a",
                confidence=0.9,
                observed_at=NOW,
                volatility=Volatility.HIGH,
                domain=("a", "b"),
            )
        )

    assert _race(tmp_path / "m.db", write) == []
    with Store(tmp_path / "m.db") as store:
        assert len(store.claims()) == ROUNDS


def test_two_writers_adding_the_same_new_goals_never_fail(tmp_path: Path) -> None:
    def write(mirror: StoreMirror, i: int) -> None:
        mirror.goal(Goal(id=f"g{i}", title=f"goal {i}"))

    assert _race(tmp_path / "m.db", write) == []
    with Store(tmp_path / "m.db") as store:
        assert len(store.list_goals()) == ROUNDS


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
