"""A run stopped half-way (issue 37): Ctrl-C names the run folder and the ``--resume`` command;
a killed run leaves no worker process behind. Real ``heedful bench run`` processes."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from heedful.bench.run.checkpoint import PARTIAL, Checkpoint

#: A run long enough to be interrupted on a loaded machine, short enough to start quickly.
RUN = ["bench", "run", "--family", "G,B", "--count", "20", "--trials", "3", "--workers", "2"]


def _start(out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "heedful.cli", *RUN, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(check, what: str, timeout: float = 120.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found |= {int(c) for c in (task / "children").read_text().split()}
    return found


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent to reap it has exited)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def test_ctrl_c_names_the_run_folder_and_the_resume_command(tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = _start(out)
    try:
        # The folder holds the run's arguments before the first scenario is played.
        _wait_for(lambda: (out / PARTIAL / "args.json").exists(), "the run folder")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert f"the run folder is {out}" in err, err
    assert f"heedful bench run --resume {out}" in err, err
    assert "Traceback" not in err, err
    assert Checkpoint(out).load_args()["count"] == 20  # the named folder can be resumed


def test_a_killed_run_leaves_no_worker_alive_after_5_s(tmp_path: Path) -> None:
    proc = _start(tmp_path / "run")
    try:
        _wait_for(lambda: len(_children(proc.pid)) >= 2, "two worker processes")
        workers = _children(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 5.0
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [w for w in workers if _alive(w)]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    for w in [w for w in workers if _alive(w)]:  # do not leave them to the next test
        os.kill(w, signal.SIGKILL)
    assert left == [], f"workers {left} still alive 5 s after their parent was killed"
