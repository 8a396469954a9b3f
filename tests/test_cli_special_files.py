"""Every file option refuses a named pipe, a device and (where a file is meant) a folder before
opening it; every output option refuses a place it cannot write before any work; every count
has a range (issue 37). Each is one line and exit 2 — a pipe used to block forever.

The commands run in process through the console entry point (``main``). A guard thread opens
each pipe for writing whenever something reads it, so a regression fails instead of hanging.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from heedful.cli._app import main
from heedful.errors import InputError
from heedful.files import (
    check_output_dir,
    check_output_file,
    create_private,
    open_input,
    write_output,
)
from heedful.memory import Store

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = str(ROOT / "examples" / "scenarios" / "deploy_a_or_b.yaml")
#: An engine seed file with nothing in it (valid).
EMPTY_SEED = str(ROOT / "tests" / "data" / "empty_seed.yaml")


def _run(args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    monkeypatch.setattr("sys.argv", ["heedful", *args])
    with pytest.raises(SystemExit) as info:
        main()
    code = info.value.code
    return (code if isinstance(code, int) else 0), capsys.readouterr().err.strip().splitlines()


def _one_line(
    args: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *expected: str,
) -> str:
    code, err = _run(args, monkeypatch, capsys)
    assert code == 2, err
    assert len(err) == 1 and err[0].startswith("error: "), err
    for text in expected:
        assert text in err[0], err[0]
    return err[0]


@contextlib.contextmanager
def _unblocking(fifo: Path) -> Iterator[None]:
    """Open ``fifo`` for writing whenever a reader waits on it (then close it: end of file)."""
    done = threading.Event()

    def guard() -> None:
        while not done.is_set():
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError as exc:
                if exc.errno not in (errno.ENXIO, errno.ENOENT):
                    return
            time.sleep(0.05)

    thread = threading.Thread(target=guard, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=5)


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = tmp_path / "m.db"
    Store.open(path, clock=lambda: 1.7e9).close()
    return str(path)


#: Every file option, as the command line that names FILE there.
FILE_OPTIONS: dict[str, Callable[[str, str, str], list[str]]] = {
    "scenario validate": lambda f, db, t: ["scenario", "validate", f],
    "bench oracle": lambda f, db, t: ["bench", "oracle", f],
    "bench run --scenarios": lambda f, db, t: ["bench", "run", "--scenarios", f, "--out", t],
    "bench run --model-file": lambda f, db, t: ["bench", "run", "--model-file", f, "--out", t],
    "bench run --cache": lambda f, db, t: ["bench", "run", "--cache", f, "--out", t],
    "bench report": lambda f, db, t: ["bench", "report", f],
    "bench plan": lambda f, db, t: ["bench", "plan", f, "--min-diff", "1"],
    "engine load FILE": lambda f, db, t: ["engine", "load", f, "--db", db],
    "engine load --db": lambda f, db, t: ["engine", "load", EMPTY_SEED, "--db", f],
    "engine survey --config": lambda f, db, t: ["engine", "survey", "--db", db, "--config", f],
    "engine survey --governance": lambda f, db, t: [
        "engine",
        "survey",
        "--db",
        db,
        "--governance",
        f,
    ],
    "engine cycle --config": lambda f, db, t: ["engine", "cycle", "--db", db, "--config", f],
    "engine run --config": lambda f, db, t: [
        "engine",
        "run",
        "--db",
        db,
        "--cycles",
        "1",
        "--config",
        f,
    ],
    "engine approve --config": lambda f, db, t: [
        "engine",
        "approve",
        "p-1",
        "--db",
        db,
        "--config",
        f,
    ],
    "engine journal --db": lambda f, db, t: ["engine", "journal", "--db", f],
    "attention health --db": lambda f, db, t: ["attention", "health", "--db", f],
    "mcp serve --db": lambda f, db, t: ["mcp", "serve", "--db", f],
    "mcp serve --config": lambda f, db, t: ["mcp", "serve", "--db", db, "--config", f],
    "mcp serve --governance": lambda f, db, t: ["mcp", "serve", "--db", db, "--governance", f],
    "mcp serve --token-file": lambda f, db, t: [
        "mcp",
        "serve",
        "--db",
        db,
        "--transport",
        "http",
        "--token-file",
        f,
    ],
    "mcp token --token-file": lambda f, db, t: ["mcp", "token", "--db", db, "--token-file", f],
    "salience --history": lambda f, db, t: ["salience", "hi", "--history", f],
    "holdout make --key-file": lambda f, db, t: [
        "holdout",
        "make",
        "--family",
        "G",
        "--count",
        "1",
        "--key-file",
        f,
        "--out",
        t,
    ],
}
#: File options that take a folder as well (scenario files and folders of them).
TAKE_FOLDERS = {"scenario validate", "bench oracle", "bench run --scenarios"}


@pytest.mark.parametrize("option", list(FILE_OPTIONS))
def test_a_named_pipe_is_refused_before_it_is_opened(
    tmp_path: Path,
    db: str,
    option: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    with _unblocking(fifo):
        args = FILE_OPTIONS[option](str(fifo), db, str(tmp_path / "out"))
        _one_line(args, monkeypatch, capsys, str(fifo), "named pipe (FIFO)")


@pytest.mark.parametrize("option", list(FILE_OPTIONS))
def test_dev_zero_is_refused_as_a_device(
    tmp_path: Path,
    db: str,
    option: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = FILE_OPTIONS[option]("/dev/zero", db, str(tmp_path / "out"))
    _one_line(args, monkeypatch, capsys, "/dev/zero", "character device")


@pytest.mark.parametrize("option", sorted(set(FILE_OPTIONS) - TAKE_FOLDERS))
def test_a_folder_given_for_a_file_is_refused(
    tmp_path: Path,
    db: str,
    option: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    args = FILE_OPTIONS[option](str(folder), db, str(tmp_path / "out"))
    _one_line(args, monkeypatch, capsys, str(folder), "directory")


#: Every output option, as the command line that names PLACE there.
OUTPUT_OPTIONS: dict[str, Callable[[str, str, str], list[str]]] = {
    "scenario generate --out": lambda p, db, t: [
        "scenario",
        "generate",
        "--family",
        "G",
        "--count",
        "1",
        "--out",
        p,
    ],
    "learn train --out": lambda p, db, t: ["learn", "train", "--count", "1", "--out", p],
    "learn calibrate --out": lambda p, db, t: ["learn", "calibrate", "--count", "1", "--out", p],
    "bench report --out": lambda p, db, t: ["bench", "report", SCENARIO, "--out", p],
    "bench run --out": lambda p, db, t: ["bench", "run", "--count", "1", "--out", p],
    "run --out": lambda p, db, t: ["run", "--out", p],
    "bench ablations --out": lambda p, db, t: ["bench", "ablations", "--count", "1", "--out", p],
    "holdout make --out": lambda p, db, t: [
        "holdout",
        "make",
        "--family",
        "G",
        "--count",
        "1",
        "--key-file",
        t,
        "--out",
        p,
    ],
    "holdout make --key-file": lambda p, db, t: [
        "holdout",
        "make",
        "--family",
        "G",
        "--count",
        "1",
        "--key-file",
        p,
        "--out",
        t,
    ],
    "engine load --db": lambda p, db, t: ["engine", "load", EMPTY_SEED, "--db", p],
    "mcp token --token-file": lambda p, db, t: ["mcp", "token", "--db", db, "--token-file", p],
}


@pytest.mark.parametrize("option", list(OUTPUT_OPTIONS))
def test_an_output_under_proc_is_refused_before_any_work(
    tmp_path: Path,
    db: str,
    option: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = OUTPUT_OPTIONS[option]("/proc/x.json", db, str(tmp_path / "t"))
    _one_line(args, monkeypatch, capsys, "/proc/x.json")


@pytest.mark.parametrize(
    "option",
    sorted(set(OUTPUT_OPTIONS) - {"bench run --out", "run --out", "bench ablations --out"}),
)
def test_an_output_in_a_missing_folder_is_refused_before_any_work(
    tmp_path: Path,
    db: str,
    option: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    missing = tmp_path / "no-such" / "x.json"
    if option in ("holdout make --out", "holdout make --key-file"):
        # Folders made on demand (0700): a missing parent is fine, a file in the way is not.
        (tmp_path / "no-such").write_text("a file")
    _one_line(OUTPUT_OPTIONS[option](str(missing), db, str(tmp_path / "t")), monkeypatch, capsys)


#: Every count option and a command line with it set to N.
COUNTS: dict[str, Callable[[str, str], list[str]]] = {
    "bench run --count": lambda n, db: ["bench", "run", "--count", n],
    "bench run --trials": lambda n, db: ["bench", "run", "--trials", n],
    "bench run --seed": lambda n, db: ["bench", "run", "--seed", n],
    "bench run --workers": lambda n, db: ["bench", "run", "--workers", n],
    "bench run --concurrency": lambda n, db: ["bench", "run", "--concurrency", n],
    "bench run --max-tokens": lambda n, db: ["bench", "run", "--max-tokens", n],
    "bench run --max-turns": lambda n, db: ["bench", "run", "--max-turns", n],
    "bench run --max-reply-bytes": lambda n, db: ["bench", "run", "--max-reply-bytes", n],
    "bench run --retries": lambda n, db: ["bench", "run", "--retries", n],
    "bench run --timeout": lambda n, db: ["bench", "run", "--timeout", n],
    "bench ablations --count": lambda n, db: ["bench", "ablations", "--count", n],
    "bench ablations --trials": lambda n, db: ["bench", "ablations", "--trials", n],
    "run --workers": lambda n, db: ["run", "--workers", n],
    "run --seed": lambda n, db: ["run", "--seed", n],
    "scenario generate --count": lambda n, db: [
        "scenario",
        "generate",
        "--family",
        "G",
        "--count",
        n,
    ],
    "holdout make --count": lambda n, db: [
        "holdout",
        "make",
        "--family",
        "G",
        "--count",
        n,
        "--key-file",
        "/nonexistent/k",
        "--out",
        "/nonexistent/o",
    ],
    "learn train --count": lambda n, db: ["learn", "train", "--count", n, "--out", "/tmp/x.json"],
    "learn train --rounds": lambda n, db: ["learn", "train", "--rounds", n, "--out", "/tmp/x.json"],
    "learn calibrate --count": lambda n, db: ["learn", "calibrate", "--count", n, "--out", "x"],
    "engine run --cycles": lambda n, db: ["engine", "run", "--db", db, "--cycles", n],
    "engine run --heartbeat-ms": lambda n, db: ["engine", "run", "--db", db, "--heartbeat-ms", n],
    "attention health --window": lambda n, db: ["attention", "health", "--db", db, "--window", n],
    "agent serve-local --ctx": lambda n, db: ["agent", "serve-local", "--ctx", n],
}


@pytest.mark.parametrize("value", ["-1", "99999999999999999999"])
@pytest.mark.parametrize("option", list(COUNTS))
def test_a_count_out_of_its_range_is_refused(
    db: str,
    option: str,
    value: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    flag = option.rsplit(" ", 1)[-1]
    _one_line(COUNTS[option](value, db), monkeypatch, capsys, flag)


# --- the reader and the writer on their own -----------------------------------------------


def test_open_input_refuses_a_pipe_swapped_in_after_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fifo = tmp_path / "swapped"
    os.mkfifo(fifo)
    # The path check passes (as if a regular file were there); the open itself must not block
    # and the descriptor's own kind is refused.
    monkeypatch.setattr("heedful.files.check_input_file", lambda p, option=None: Path(p))
    with pytest.raises(InputError, match="named pipe"):
        open_input(fifo)


def test_check_output_file_leaves_no_file_behind(tmp_path: Path) -> None:
    target = tmp_path / "new.json"
    check_output_file(target)
    assert not target.exists()


def test_check_output_file_accepts_a_file_another_process_created_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two `heedful mcp serve --db new.db` started at once: both see no store, one creates it,
    # and the other's probe (O_EXCL) found it there — refused with "File exists", so one
    # server died at start-up (test_two_servers_writing_one_store_... failed so once).
    target = tmp_path / "new.db"
    real_open = os.open

    def racing(path: object, flags: int, mode: int = 0o777) -> int:
        if flags & os.O_EXCL and not target.exists():
            target.write_bytes(b"the other process's store")  # created since the stat
        return real_open(path, flags, mode)  # type: ignore[arg-type]

    monkeypatch.setattr("heedful.files.os.open", racing)
    assert check_output_file(target) == target
    assert target.read_bytes() == b"the other process's store"  # looked at, never touched


def test_check_output_dir_leaves_nothing_behind(tmp_path: Path) -> None:
    check_output_dir(tmp_path / "a" / "b")
    assert list(tmp_path.iterdir()) == []


def test_write_output_refuses_a_pipe_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    with pytest.raises(InputError):
        write_output(fifo, "{}")


def test_create_private_makes_a_0600_file_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        assert create_private(tmp_path / "secret")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "secret").stat().st_mode) == 0o600
    assert not create_private(tmp_path / "secret")
