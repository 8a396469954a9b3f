"""Crash and concurrency reliability of the trace (SIGKILL mid-write; two writers at once)."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from heedful.memory import Store

WRITER = Path(__file__).with_name("memory_trace_writer.py")
ROUNDS = 20

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")


def _start(db: Path, writer: str, count: int, *go: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WRITER), str(db), writer, str(count), *map(str, go)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _committed(output: str) -> list[int]:
    """Sequence numbers from complete lines (a line cut by the kill is ignored)."""
    lines = output.split("\n")[:-1]
    return [int(line) for line in lines if line != "ready"]


def _check_store(db: Path) -> dict[int, dict[str, object]]:
    """Reopen, verify integrity and every payload's checksum and batch atomicity."""
    with Store.open(db) as store:
        assert store._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        events = store.trace()
    by_batch: Counter[str] = Counter()
    sizes: dict[str, object] = {}
    for event in events:
        p = event.payload
        assert hashlib.sha256(str(p["blob"]).encode()).hexdigest() == p["sha"]
        assert event.candidate_id == f"{p['writer']}-{p['batch']}"
        by_batch[str(event.candidate_id)] += 1
        sizes[str(event.candidate_id)] = p["size"]
    assert all(by_batch[b] == sizes[b] for b in by_batch), "a batch was half-written"
    return {e.seq: e.payload for e in events}


def test_killed_writer_never_loses_or_tears_committed_events(tmp_path: Path) -> None:
    db = tmp_path / "trace.db"
    rng = np.random.default_rng(7)
    total_confirmed = 0
    for round_no in range(ROUNDS):
        proc = _start(db, f"w{round_no}", 0)
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
        time.sleep(float(rng.uniform(0.0, 0.08)))
        os.kill(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        confirmed = _committed(out)
        stored = _check_store(db)
        missing = set(confirmed) - set(stored)
        assert not missing, f"round {round_no}: committed events lost: {sorted(missing)[:5]}"
        total_confirmed += len(confirmed)
    assert total_confirmed > 0, "the writer never got to commit; the test proved nothing"


def test_two_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "trace.db"
    Store.open(db).close()
    go = tmp_path / "go"
    procs = [_start(db, name, 150, go) for name in ("a", "b")]
    for proc in procs:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
    go.touch()  # release both writers at once so their transactions contend
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        outputs.append(_committed(out))
    stored = _check_store(db)
    confirmed = outputs[0] + outputs[1]
    assert len(confirmed) == len(set(confirmed)) == len(stored)
    assert set(confirmed) == set(stored)
    assert {p["writer"] for p in stored.values()} == {"a", "b"}


def test_processes_creating_the_same_new_file_at_once_all_succeed(tmp_path: Path) -> None:
    db = tmp_path / "fresh.db"
    procs = [_start(db, name, 5) for name in ("a", "b", "c", "d")]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    assert len(_check_store(db)) == 4 * (1 + 2 + 3 + 1 + 2)
