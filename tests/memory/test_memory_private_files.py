"""A new store is readable by its owner only, with its write-ahead log (issue 37); a path that
is not a regular file is refused before SQLite opens it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from heedful.errors import StoreError
from heedful.memory import Store
from heedful.model.goal import Goal


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_store_and_its_wal_files_are_0600_whatever_the_umask(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    old = os.umask(0o022)
    try:
        with Store.open(path, clock=lambda: 1.7e9) as store:
            store.add_goal(Goal(id="g", title="a goal"))
            wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
            assert wal.exists() and shm.exists()
            assert (_mode(path), _mode(wal), _mode(shm)) == (0o600, 0o600, 0o600)
    finally:
        os.umask(old)


def test_an_existing_store_keeps_the_mode_its_owner_gave_it(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    Store.open(path, clock=lambda: 1.7e9).close()
    path.chmod(0o640)
    Store.open(path, clock=lambda: 1.7e9).close()
    assert _mode(path) == 0o640


def test_a_named_pipe_is_refused_as_a_store_before_it_is_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.db"
    os.mkfifo(fifo)
    with pytest.raises(StoreError, match="named pipe"):
        Store.open(fifo, clock=lambda: 1.7e9)
