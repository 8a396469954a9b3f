"""A status read from another thread never sees a counted cycle without its record.

``Engine.status()`` does not take the cycle lock (an MCP thread reads it while the engine's loop
runs), so the order of the engine's two writes (``last_cycle``, then ``cycles_run``) and of
status's two reads (``cycles_run``, then ``last_cycle``) is what keeps a snapshot consistent.
These tests make the interleavings happen deterministically: a subclass hooks the attribute
writes and reads and takes a snapshot, or runs a whole cycle, at exactly those instants.
"""

from __future__ import annotations

from typing import Any

from engine_builders import add_act_region, add_goal, clock

from heedful.engine import Engine, InMemoryGraph


def _consistent(snapshot: dict[str, Any]) -> bool:
    return snapshot["cycles_run"] == 0 or snapshot["last_cycle"] is not None


class _ReadsBetweenWrites(Engine):
    """Takes a status snapshot just before each write of the cycle count or record — what a
    reader on another thread would see if it ran at that instant."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.snapshots: list[dict[str, Any]] = []
        self.watching = False
        super().__init__(*args, **kwargs)
        self.watching = True

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("cycles_run", "last_cycle") and self.__dict__.get("watching"):
            self.snapshots.append(self.status())
        super().__setattr__(name, value)


class _CycleBetweenReads(Engine):
    """Runs one whole cycle right after status() has read the first of the two fields — a
    writer on another thread finishing a cycle between the reader's two reads."""

    interleave = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._count = 0
        self._record: Any = None
        super().__init__(*args, **kwargs)

    def _read(self, value: Any) -> Any:
        if self.interleave:
            self.interleave = False
            self.run_cycle()
        return value

    @property
    def cycles_run(self) -> int:
        return self._read(self._count)

    @cycles_run.setter
    def cycles_run(self, value: int) -> None:
        self._count = value

    @property
    def last_cycle(self) -> Any:
        return self._read(self._record)

    @last_cycle.setter
    def last_cycle(self, value: Any) -> None:
        self._record = value

    def status(self) -> dict[str, Any]:
        self.interleave = True
        try:
            return super().status()
        finally:
            self.interleave = False


def _graph() -> InMemoryGraph:
    graph = InMemoryGraph(clock=clock)
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g", "deploy")
    return graph


def test_a_read_between_the_cycle_writes_sees_a_record_for_every_counted_cycle() -> None:
    engine = _ReadsBetweenWrites(_graph(), clock=clock)
    engine.run_cycle()
    engine.run_cycle()
    # Two writes per cycle, each preceded by a snapshot.
    assert len(engine.snapshots) == 4
    assert all(_consistent(s) for s in engine.snapshots), engine.snapshots
    assert engine.status()["cycles_run"] == 2


def test_a_cycle_finishing_between_the_status_reads_leaves_the_snapshot_consistent() -> None:
    engine = _CycleBetweenReads(_graph(), clock=clock)
    first = engine.status()  # a cycle runs between status's two reads
    assert engine._count == 1  # it did run, inside the read
    assert _consistent(first), first
    assert first["cycles_run"] == 0 and first["last_cycle"] is not None
    second = engine.status()  # and once more, with one cycle already recorded
    assert engine._count == 2
    assert _consistent(second) and second["cycles_run"] == 1, second
