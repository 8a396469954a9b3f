"""Opening, migrating and closing the store."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from heedful.errors import StoreError, UnknownNameError
from heedful.memory import MIGRATIONS, SCHEMA_VERSION, Store
from heedful.memory.schema import _statements
from heedful.model.claim import Claim, SourceRecord
from heedful.model.scenario import Cost


def test_new_store_is_at_the_latest_schema_version() -> None:
    with Store.open() as s:
        assert s.schema_version == SCHEMA_VERSION == len(MIGRATIONS)


def test_file_store_uses_wal_and_foreign_keys(tmp_path: Path) -> None:
    with Store.open(tmp_path / "m.db") as s:
        assert s._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert s._conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_file_store_keeps_data_across_reopen(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with Store.open(path) as s:
        s.add_claim(Claim(id="c1", subject="x", value="a", observed_at=5.0))
    with Store.open(path) as s:
        assert s.get_claim("c1").value == "a"


def test_reopening_does_not_rerun_migrations(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    Store.open(path).close()
    with Store.open(path) as s:
        assert s.schema_version == SCHEMA_VERSION


def test_partially_migrated_file_is_brought_up_to_date(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for statement in _statements(MIGRATIONS[0]):
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    with Store.open(path) as s:
        assert s.schema_version == SCHEMA_VERSION
        tables = {r[0] for r in s._conn.execute("SELECT name FROM sqlite_master")}
        assert {"claims", "nodes", "nodes_fts"} <= tables


def test_newer_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer"):
        Store.open(path)


def test_non_database_file_raises_store_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError):
        Store.open(path)


def test_missing_directory_raises_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="does not exist"):
        Store.open(tmp_path / "nope" / "m.db")


def test_close_is_idempotent() -> None:
    s = Store.open()
    s.close()
    s.close()


def test_clock_is_injected() -> None:
    with Store.open(clock=lambda: 42.0) as s:
        assert s.now() == 42.0
        assert s.append_trace("x").ts == 42.0


def test_sources_of_a_version_2_file_survive_the_migration(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for migration in MIGRATIONS[:2]:
        for statement in _statements(migration):
            conn.execute(statement)
    conn.execute(
        "INSERT INTO sources (id, kind, authority, default_authority, trusted, cost)"
        " VALUES ('db', 'document', '{\"rows\": 0.9}', 0.5, 1, 2.0)"
    )
    conn.execute("PRAGMA user_version = 2")
    conn.close()
    with Store.open(path) as s:
        source = s.get_source("db")
    assert (source.reports, source.cost, source.cost_detail, source.age_s) == ((), 2.0, None, 0.0)
    assert source.authority_for("rows") == 0.9


def test_sources_of_a_version_5_file_open_with_no_measured_cost(tmp_path: Path) -> None:
    """A store the schema before measured costs wrote (version 5) opens and keeps its sources."""
    path = tmp_path / "m.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for migration in MIGRATIONS[:5]:
        for statement in _statements(migration):
            conn.execute(statement)
    conn.execute(
        "INSERT INTO sources (id, kind, authority, default_authority, trusted, cost, reports,"
        " cost_detail, age_s) VALUES ('web', 'doc', '{}', 0.9, 0, 2.0, '[\"x\"]',"
        ' \'{"tokens": 0.0, "tool_calls": 2.0, "latency_ms": 0.0}\', 60.0)'
    )
    conn.execute("PRAGMA user_version = 5")
    conn.close()
    with Store.open(path) as s:
        assert s.schema_version == SCHEMA_VERSION
        source = s.get_source("web")
        assert (source.reports, source.cost, source.age_s) == (("x",), 2.0, 60.0)
        assert source.measured_cost is None
        s.set_measured_cost("web", Cost(tool_calls=3.0))
    with Store.open(path) as s:
        assert s.get_source("web").measured_cost == Cost(tool_calls=3.0)


def test_registering_a_source_again_keeps_its_measured_cost() -> None:
    with Store.open() as s:
        s.add_source(SourceRecord(id="web", default_authority=0.9, cost=1.0))
        s.set_measured_cost("web", Cost(tool_calls=3.0))
        s.add_source(SourceRecord(id="web", default_authority=0.8, cost=1.0))
        assert s.get_source("web").measured_cost == Cost(tool_calls=3.0)
        assert s.get_source("web").default_authority == 0.8
        s.add_source(
            SourceRecord(id="web", cost=1.0, measured_cost=Cost(tokens=100.0, tool_calls=1.0))
        )
        assert s.get_source("web").measured_cost == Cost(tokens=100.0, tool_calls=1.0)


def test_a_measured_cost_for_an_unknown_source_is_refused() -> None:
    with Store.open() as s, pytest.raises(UnknownNameError, match="nope"):
        s.set_measured_cost("nope", Cost(tool_calls=1.0))
