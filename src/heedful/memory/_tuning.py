"""Let several SQLite connections of one process read at the same time.

Python's :mod:`sqlite3` releases the GIL while SQLite runs a statement, but by default SQLite
counts every allocation under one process-wide mutex (``SQLITE_CONFIG_MEMSTATUS``). The
full-text search allocates constantly, so two threads searching on two connections take
*longer* together than one thread alone (measured: 0.48 s against 0.43 s for the same 1,000
searches). With the counting off (what SQLite's documentation recommends for speed: it only
feeds ``sqlite3_memory_used`` and the heap limits, which nothing here uses) the same two
threads take 0.23 s.

The setting can only change while SQLite is shut down, and shutting it down is allowed only
while no connection is open. :func:`allow_parallel_reads` therefore changes it only when it can
tell that nothing is open: one Python thread running and no SQLite memory allocated (every open
connection holds some). Otherwise, or where the library's functions cannot be reached (an
SQLite linked into Python without exported symbols), it reports False and the store reads
on one connection as before.

The change is process-wide (``sqlite3_memory_used`` then reports 0 for every SQLite user of the
process). An application that wants SQLite left exactly as it is sets ``HEEDFUL_SQLITE_PARALLEL=0``
in the environment: nothing is changed and every store reads on one connection.
"""

from __future__ import annotations

import ctypes
import os
import threading

#: The environment variable that, set to 0, leaves the process's SQLite untouched.
ENV_VAR = "HEEDFUL_SQLITE_PARALLEL"
_SQLITE_OK = 0
_SQLITE_CONFIG_MEMSTATUS = 9

_lock = threading.Lock()
_result: bool | None = None


def allow_parallel_reads() -> bool:
    """True when connections of this process can run statements in parallel (see module doc).

    Decided once per process, at the first call; call it before opening connections.
    """
    global _result
    with _lock:
        if _result is None:
            off = os.environ.get(ENV_VAR, "").strip().lower() in ("0", "false", "no", "off")
            _result = False if off else _memstatus_off()
        return _result


def _memstatus_off() -> bool:
    try:
        import _sqlite3

        # PyDLL keeps the GIL during each call: no other Python thread runs SQLite meanwhile.
        lib = ctypes.PyDLL(_sqlite3.__file__)
        lib.sqlite3_memory_used.restype = ctypes.c_int64
        lib.sqlite3_malloc.restype = ctypes.c_void_p
        lib.sqlite3_malloc.argtypes = [ctypes.c_int]
        lib.sqlite3_free.argtypes = [ctypes.c_void_p]
    except (ImportError, OSError, AttributeError):
        return False
    probe = lib.sqlite3_malloc(64)
    if not probe:
        return False
    counted = lib.sqlite3_memory_used()
    lib.sqlite3_free(probe)
    if counted == 0:
        return True  # counting is already off (a build default, or someone else did it)
    if threading.active_count() != 1 or lib.sqlite3_memory_used() != 0:
        return False  # another thread could be using SQLite, or a connection is open
    if lib.sqlite3_shutdown() != _SQLITE_OK:
        return False
    done = lib.sqlite3_config(_SQLITE_CONFIG_MEMSTATUS, ctypes.c_int(0)) == _SQLITE_OK
    return lib.sqlite3_initialize() == _SQLITE_OK and done
