"""Run independent jobs across worker processes, results in input order.

The runner plays scenarios in parallel with it (``heedful bench run --workers N``). Each job's
result must depend on its input alone, so the output is the same for any number of workers.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from heedful.errors import InvalidArgumentError

__all__ = ["available_cores", "few_collections", "map_in_processes", "resolve_workers"]

T = TypeVar("T")
R = TypeVar("R")


def available_cores() -> int:
    """CPU cores this process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def resolve_workers(workers: int | None) -> int:
    """The worker count to use: ``None`` means one per available core.

    Raises:
        InvalidArgumentError: ``workers`` below 1.
    """
    if workers is None:
        return available_cores()
    if workers < 1:
        raise InvalidArgumentError(f"workers must be at least 1, got {workers}")
    return workers


def map_in_processes(
    fn: Callable[[T], R],
    items: Sequence[T],
    workers: int,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
) -> Iterator[R]:
    """Yield ``fn(item)`` for each item, in order, computed by ``workers`` processes.

    ``fn`` and ``initializer`` must be module-level functions and the items picklable. Each
    worker runs ``initializer(*initargs)`` once before its first job. An exception in a job is
    raised here, and the remaining jobs are cancelled.

    The workers never outlive this process: each exits within :data:`PARENT_POLL_S` of its
    parent's death (a ``kill -9`` of the run included), and Ctrl-C (``KeyboardInterrupt`` here,
    or the generator closed early) ends them at once instead of waiting for the jobs they are
    playing. Workers ignore SIGINT themselves: a Ctrl-C at a terminal reaches the whole process
    group, and this process answers it for them (no traceback per worker).
    """
    with _ctrl_c_after():  # not inside the fork: Python would drop it there ("ignored")
        pool = ProcessPoolExecutor(
            max_workers=workers,
            initializer=_worker_start,
            initargs=(os.getpid(), initializer, initargs),
        )
        futures = [pool.submit(fn, item) for item in items]
    finished = False
    try:
        _raise_held_interrupt()
        for future in futures:
            yield future.result()
        finished = True
    finally:
        for future in futures:
            future.cancel()
        if not finished:
            _end_workers(pool)
        pool.shutdown(wait=True, cancel_futures=True)


_HELD: list[int] = []


@contextlib.contextmanager
def _ctrl_c_after() -> Iterator[None]:
    """Hold a SIGINT that arrives in the block (workers are forked there: a KeyboardInterrupt
    raised in a fork handler is printed as "Exception ignored" and lost, and the run goes on);
    :func:`_raise_held_interrupt` raises it after. Only the main thread handles signals."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.getsignal(signal.SIGINT)
    if before is not signal.default_int_handler:
        yield  # someone else's handler (or SIGINT ignored): leave it alone
        return
    signal.signal(signal.SIGINT, lambda signum, frame: _HELD.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def _raise_held_interrupt() -> None:
    if _HELD:
        _HELD.clear()
        raise KeyboardInterrupt


#: How often a worker checks that the process that started it is alive (seconds).
PARENT_POLL_S = 0.25


def _worker_start(
    parent: int, initializer: Callable[..., None] | None, initargs: tuple[Any, ...]
) -> None:
    """Start a worker: ignore SIGINT (the parent answers Ctrl-C), exit when the parent dies,
    then run the caller's ``initializer``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(
        target=_exit_with_parent, args=(parent, os.getppid()), daemon=True, name="parent-watch"
    ).start()
    if initializer is not None:
        initializer(*initargs)


def _exit_with_parent(parent: int, ppid: int) -> None:
    """Exit this process once its parent is gone (it is re-parented, or ``parent`` is dead)."""
    while True:
        time.sleep(PARENT_POLL_S)
        if os.getppid() != ppid or not _alive(parent):
            os._exit(1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - a pid reused by another user's process
        return True
    return True


def _end_workers(pool: ProcessPoolExecutor) -> None:
    """Stop a pool's workers now (jobs in flight are dropped): Ctrl-C or an early close."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(timeout=5)


@contextlib.contextmanager
def few_collections(gen0: int = 50_000) -> Iterator[None]:
    """Run the cyclic garbage collector less often inside the block (usable as a decorator).

    A run allocates millions of short-lived objects (candidates, trace events, records) that
    reference counting frees at once; at the default threshold (700 allocations) the collector
    would walk the growing heap of kept records some two thousand times. Nothing a run computes
    depends on when garbage is collected; the previous thresholds are restored afterwards.
    """
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], gen0), max(old[1], 20), max(old[2], 100))
    try:
        yield
    finally:
        gc.set_threshold(*old)
