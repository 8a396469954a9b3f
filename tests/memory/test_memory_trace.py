"""The append-only trace."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import BaseModel

from heedful.errors import InvalidArgumentError
from heedful.memory import Store, TraceRecord


def test_appended_events_come_back_in_order(store: Store) -> None:
    first = store.append_trace("candidate_created", {"voc": 0.4}, candidate_id="c1", ts=5.0)
    second = store.append_trace("candidate_selected", {"rank": 1}, candidate_id="c1")
    assert second.seq > first.seq
    assert store.trace() == [first, second]


def test_trace_since_returns_only_newer_events(store: Store) -> None:
    first = store.append_trace("a")
    second = store.append_trace("b")
    assert store.trace(since=first.seq) == [second]


def test_trace_filters_by_event_and_candidate(store: Store) -> None:
    store.append_trace("a", candidate_id="x")
    store.append_trace("b", candidate_id="y")
    store.append_trace("a", candidate_id="y")
    assert [e.candidate_id for e in store.trace(event="a")] == ["x", "y"]
    assert [e.event for e in store.trace(candidate_id="y")] == ["b", "a"]
    assert len(store.trace(limit=2)) == 2


def test_payload_round_trips_nested_json(store: Store) -> None:
    payload = {"actual_cost": {"tokens": 211, "tool_calls": 1}, "ok": True, "ids": ["a", "b"]}
    store.append_trace("inspection_succeeded", payload)
    assert store.trace()[0].payload == payload


def test_non_json_payload_is_rejected_and_nothing_is_written(store: Store) -> None:
    with pytest.raises(InvalidArgumentError, match="JSON"):
        store.append_trace("x", {"bad": object()})
    with pytest.raises(InvalidArgumentError, match="JSON"):
        store.append_trace("x", {"nan": float("nan")})
    assert store.trace() == []


def test_empty_event_type_is_rejected(store: Store) -> None:
    with pytest.raises(InvalidArgumentError, match="event type"):
        store.append_trace("")


def test_batch_append_is_all_or_nothing(store: Store) -> None:
    with pytest.raises(InvalidArgumentError):
        store.append_traces([TraceRecord("ok"), TraceRecord("bad", {"x": object()})])
    assert store.trace() == []
    events = store.append_traces([TraceRecord("a"), TraceRecord("b")])
    assert [e.event for e in store.trace()] == ["a", "b"] == [e.event for e in events]


@pytest.mark.parametrize(
    "bad",
    [
        TraceRecord("bad", {"x": object()}),
        TraceRecord("", {}),
        TraceRecord("t", {}, None, float("nan")),
    ],
)
def test_write_traces_checks_like_append_and_is_all_or_nothing(
    store: Store, bad: TraceRecord
) -> None:
    with pytest.raises(InvalidArgumentError):
        store.write_traces([TraceRecord("ok"), bad])
    assert store.trace() == []


def test_write_traces_stores_what_append_traces_would(store: Store) -> None:
    records = [TraceRecord("a", {"k": 1}, "c1", 5.0), TraceRecord("b")]
    store.write_traces(records)
    written = [(e.event, e.payload, e.candidate_id, e.ts) for e in store.trace()]
    assert written[0] == ("a", {"k": 1}, "c1", 5.0)
    assert written[1][:3] == ("b", {}, None) and written[1][3] == store.now()


def test_one_store_can_be_shared_by_threads(tmp_path: Path) -> None:
    with Store.open(tmp_path / "t.db") as store:

        def write(name: str) -> list[int]:
            return [store.append_trace("tick", {"w": name}).seq for _ in range(50)]

        with ThreadPoolExecutor(max_workers=4) as pool:
            seqs = [s for batch in pool.map(write, "abcd") for s in batch]
        assert sorted(seqs) == [e.seq for e in store.trace()]
        assert len(set(seqs)) == 200


class _ControllerEvent(BaseModel):
    event: str
    candidate_id: str | None = None
    timestamp: datetime
    rank: int = 0


def test_pydantic_event_model_is_stored_as_its_json(store: Store) -> None:
    when = datetime(2026, 11, 29, tzinfo=UTC)
    stored = store.append_trace(
        _ControllerEvent(event="candidate_selected", candidate_id="c1", timestamp=when, rank=2)
    )
    assert (stored.event, stored.candidate_id, stored.ts) == (
        "candidate_selected",
        "c1",
        when.timestamp(),
    )
    assert store.trace()[0].payload["rank"] == 2


def test_non_string_event_type_is_rejected(store: Store) -> None:
    with pytest.raises(InvalidArgumentError, match="non-empty string"):
        store.append_trace(42)  # type: ignore[arg-type]


def test_store_constructor_opens_a_path(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        store.append_trace("x")
    with Store.open(tmp_path / "s.db") as store:
        assert [e.event for e in store.trace()] == ["x"]


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
