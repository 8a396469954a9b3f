"""Server sessions in the store: one versioned JSON document per client session."""

from __future__ import annotations

from heedful.memory import Store


def _clock() -> float:
    return 1_800_000_000.0


def test_a_new_session_has_no_document() -> None:
    with Store(clock=_clock) as store:
        assert store.session_state("alice") is None


def test_each_write_replaces_the_document_and_grows_the_version() -> None:
    with Store(clock=_clock) as store:
        assert store.put_session_state("alice", {"turn": 1}) == 1
        assert store.put_session_state("alice", {"turn": 2}) == 2
        assert store.session_state("alice") == (2, {"turn": 2})


def test_sessions_are_kept_apart() -> None:
    with Store(clock=_clock) as store:
        store.put_session_state("alice", {"turn": 1})
        store.put_session_state("", {"turn": 7})
        assert store.session_state("alice") == (1, {"turn": 1})
        assert store.session_state("") == (1, {"turn": 7})


def test_another_connection_on_the_file_reads_what_one_wrote(tmp_path) -> None:
    path = tmp_path / "s.db"
    with Store(path, clock=_clock) as first, Store(path, clock=_clock) as second:
        first.put_session_state("alice", {"inflight": ["attn-3"]})
        assert second.session_state("alice") == (1, {"inflight": ["attn-3"]})


def test_dropping_forgets_the_document() -> None:
    with Store(clock=_clock) as store:
        store.put_session_state("alice", {"turn": 1})
        assert store.drop_session_state("alice") is True
        assert store.session_state("alice") is None
        assert store.drop_session_state("alice") is False
