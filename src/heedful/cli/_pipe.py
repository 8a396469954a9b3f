"""Notice that the reader of stdout has gone, without writing to it.

``heedful engine run --json | head -1``: ``head`` exits after the first cycle's line, but a
writer learns that only when it writes again (a broken pipe) — at the next heartbeat, 300 s
later by default. When stdout is a pipe, :func:`watch_reader` polls its write end for the error
the system raises once the read end is closed, and calls back at once.
"""

from __future__ import annotations

import os
import select
import stat
import sys
import threading
from collections.abc import Callable

__all__ = ["watch_reader"]

#: How often the watcher looks (seconds): the longest a left pipeline waits for the command.
POLL_S = 0.2


def _stdout_pipe() -> int | None:
    try:
        fd = sys.stdout.fileno()
        return fd if stat.S_ISFIFO(os.fstat(fd).st_mode) else None
    except (AttributeError, OSError, ValueError):  # no real stdout (a test runner's buffer)
        return None


def watch_reader(gone: Callable[[], None]) -> Callable[[], None]:
    """Call ``gone`` (from a daemon thread) once the reader of a piped stdout has closed it.

    Returns:
        A function that stops the watch. Without a pipe on stdout (a terminal, a file) or
        without ``select.poll`` (Windows), nothing is watched.
    """
    fd = _stdout_pipe()
    if fd is None or not hasattr(select, "poll"):
        return lambda: None
    done = threading.Event()
    poller = select.poll()
    poller.register(fd, 0)  # no events asked: POLLERR and POLLHUP are always reported

    def watch() -> None:
        while not done.is_set():
            if any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(POLL_S * 1000)):
                gone()
                return

    threading.Thread(target=watch, name="heedful-stdout-reader", daemon=True).start()
    return done.set
