"""The one way heedful opens a file someone names, and checks a place it is told to write.

Every file option of the ``heedful`` command, and every file the library reads on a caller's
behalf (scenarios, seeds, configs, governance, results, models, token and key files), is opened
by :func:`open_input`: what is not a regular file — a named pipe (FIFO), a device such as
``/dev/zero``, a directory, a socket — is refused *before* it is opened, so nothing blocks on a
pipe no one writes to or reads a device without end. The check is made again on the open
descriptor (opened non-blocking), so a file swapped for a pipe in between is refused too.

Every output place is checked by :func:`check_output_file` or :func:`check_output_dir` before
any work starts (a place that cannot be written — ``/proc/x.json``, a missing folder, a
read-only file system — is one line, not a traceback after minutes of work), and written by
:func:`write_output`, which refuses a non-regular target as well.

Files that hold what others must not read (stores, the engine journal, hold-out keys, token
files) are created readable by their owner only (:func:`create_private`, mode 0600), and an
existing one that group or others can read is refused (:func:`check_private`).

Every refusal is an :class:`~heedful.errors.InputError`: one line naming the file (and the
option, when the caller gives it) and what is wrong.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
from pathlib import Path
from typing import BinaryIO

from heedful.errors import InputError

__all__ = [
    "PRIVATE_MODE",
    "append_private",
    "check_input_file",
    "check_output_dir",
    "check_output_file",
    "check_private",
    "create_private",
    "not_regular",
    "open_input",
    "read_input",
    "write_output",
]

#: Mode of a file only its owner may read or write.
PRIVATE_MODE = 0o600


def not_regular(mode: int) -> str | None:
    """What a file of ``mode`` is when it is not a regular file (``None`` for a regular one)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _name(path: str | os.PathLike[str], option: str | None) -> str:
    return f"{option} {os.fspath(path)}" if option else os.fspath(path)


def _refuse_kind(path: str | os.PathLike[str], kind: str, option: str | None) -> InputError:
    return InputError(f"is {kind}, not a regular file; give a file", file=_name(path, option))


def check_input_file(path: str | os.PathLike[str], *, option: str | None = None) -> Path:
    """``path`` as a :class:`~pathlib.Path`, once it names an existing regular file.

    Nothing is opened: a named pipe, a device, a directory or a socket is refused by its kind.

    Raises:
        InputError: The file is missing, cannot be looked at, or is not a regular file.
    """
    p = Path(path)
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        raise InputError("cannot read: No such file or directory", file=_name(p, option)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=_name(p, option)) from None
    kind = not_regular(mode)
    if kind is not None:
        raise _refuse_kind(p, kind, option)
    return p


def open_input(path: str | os.PathLike[str], *, option: str | None = None) -> BinaryIO:
    """Open a regular file for reading (binary); anything else is refused before it is opened.

    The descriptor is opened non-blocking (a pipe swapped in after the check cannot block the
    open) and checked again; blocking mode is restored for the read.

    Raises:
        InputError: See :func:`check_input_file`; also a file that cannot be opened.
    """
    p = check_input_file(path, option=option)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(p, flags)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=_name(p, option)) from None
    try:
        kind = not_regular(os.fstat(fd).st_mode)
        if kind is not None:
            raise _refuse_kind(p, kind, option)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_input(path: str | os.PathLike[str], max_bytes: int, *, option: str | None = None) -> bytes:
    """At most ``max_bytes + 1`` bytes of a regular file (the caller refuses a longer one).

    Raises:
        InputError: See :func:`open_input`.
    """
    with open_input(path, option=option) as fh:
        try:
            return fh.read(max_bytes + 1)
        except OSError as exc:
            raise InputError(
                f"cannot read: {exc.strerror or exc}", file=_name(path, option)
            ) from None


def check_output_file(path: str | os.PathLike[str], *, option: str | None = None) -> Path:
    """``path`` as a :class:`~pathlib.Path`, once a file can be written there.

    An existing file must be a regular file this process may write (it is opened for
    appending, never truncated, to find out); a new one must be creatable in an existing folder
    (it is created and removed again). Made before any work, so a bad place costs nothing.

    Raises:
        InputError: A missing folder, a directory, a pipe or device, or a place that cannot be
            written (``/proc/x.json``, a read-only file system, no permission).
    """
    p = Path(path)
    where = _name(p, option)
    if not os.fspath(p).strip():
        raise InputError("an empty path was given; name a file", file=option)
    for _ in range(3):
        try:
            return _probe_output(p, where)
        except FileExistsError:
            continue  # another process created it since the stat: check it as it is now
    raise InputError("cannot write there: it keeps appearing and vanishing", file=where)


def _probe_output(p: Path, where: str) -> Path:
    """One try of :func:`check_output_file` (FileExistsError: the file appeared meanwhile)."""
    try:
        mode: int | None = p.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise InputError(f"cannot write there: {exc.strerror or exc}", file=where) from None
    if mode is not None:
        kind = not_regular(mode)
        if kind is not None:
            raise InputError(f"is {kind}; give a file path", file=where)
        flags = os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK
    else:
        parent = p.parent
        if not parent.is_dir():
            raise InputError(
                f"folder {parent} does not exist; give a file path in an existing folder",
                file=where,
            )
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NONBLOCK
    try:
        fd = os.open(p, flags, PRIVATE_MODE)
    except OSError as exc:
        if isinstance(exc, FileExistsError) and mode is None:
            raise  # another process created it since the stat (the caller looks again)
        raise InputError(f"cannot write there: {exc.strerror or exc}", file=where) from None
    os.close(fd)
    if mode is None:
        with contextlib.suppress(OSError):
            p.unlink()
    return p


def check_output_dir(
    path: str | os.PathLike[str], *, option: str | None = None, what: str = "the output folder"
) -> Path:
    """``path`` as a :class:`~pathlib.Path`, once it is (or can be made) a writable folder.

    An existing path must be a directory in which a file can be created; a missing one must have
    an existing ancestor folder in which a folder can be created (one is made and removed).

    Raises:
        InputError: Not a directory, or no folder can be made or written there.
    """
    p = Path(path)
    where = _name(p, option)
    if not os.fspath(p).strip():
        raise InputError("an empty path was given; name a folder", file=option)
    probe_in = p
    while True:
        try:
            mode = probe_in.stat().st_mode
            break
        except (FileNotFoundError, NotADirectoryError):
            if probe_in.parent == probe_in:
                raise InputError("no existing folder above it", file=where) from None
            probe_in = probe_in.parent
        except OSError as exc:
            raise InputError(f"cannot write there: {exc.strerror or exc}", file=where) from None
    if not stat.S_ISDIR(mode):
        kind = not_regular(mode) or "a file"
        raise InputError(f"cannot use it as {what}: {probe_in} is {kind}", file=where)
    import tempfile  # here: a refusal elsewhere need not import it

    try:
        made = tempfile.mkdtemp(prefix=".heedful-probe-", dir=probe_in)
    except OSError as exc:
        raise InputError(
            f"cannot use it as {what}: cannot write there ({exc.strerror or exc})", file=where
        ) from None
    with contextlib.suppress(OSError):
        os.rmdir(made)
    return p


def write_output(
    path: str | os.PathLike[str],
    data: str | bytes,
    *,
    option: str | None = None,
    private: bool = False,
) -> Path:
    """Write ``data`` (text is UTF-8) to ``path``, replacing a regular file there.

    The file is opened non-blocking and checked on its descriptor: a pipe or a device is
    refused, never written to. ``private`` makes it mode 0600 whatever the umask.

    Raises:
        InputError: The place cannot be written (see :func:`check_output_file`).
    """
    p = Path(path)
    where = _name(p, option)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    mode = PRIVATE_MODE if private else 0o666
    try:
        fd = os.open(
            p, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), mode
        )
    except IsADirectoryError:
        raise InputError("is a directory; give a file path", file=where) from None
    except OSError as exc:
        raise InputError(f"cannot write there: {exc.strerror or exc}", file=where) from None
    try:
        kind = not_regular(os.fstat(fd).st_mode)
        if kind is not None:
            raise InputError(f"is {kind}; give a file path", file=where)
        if private:
            os.fchmod(fd, PRIVATE_MODE)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        os.ftruncate(fd, 0)
        view = memoryview(raw)
        while view:
            view = view[os.write(fd, view) :]
    except OSError as exc:
        raise InputError(f"cannot write there: {exc.strerror or exc}", file=where) from None
    finally:
        os.close(fd)
    return p


def append_private(path: str | os.PathLike[str], text: str) -> None:
    """Append ``text`` (UTF-8) to ``path``, creating it with mode 0600 if it is new.

    A pipe or a device at ``path`` is refused, never written to (opened non-blocking, checked on
    its descriptor).

    Raises:
        OSError: The file cannot be opened or written (the caller names the place); a
            non-regular file is an ``OSError`` too, with the kind as its message.
    """
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, PRIVATE_MODE)
    try:
        kind = not_regular(os.fstat(fd).st_mode)
        if kind is not None:
            raise OSError(f"{os.fspath(path)} is {kind}, not a regular file")
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        view = memoryview(text.encode("utf-8"))
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def create_private(path: str | os.PathLike[str]) -> bool:
    """Create ``path`` empty with mode 0600 unless it exists; return whether it was created.

    SQLite gives a store's ``-wal`` and ``-shm`` files the mode of the store, so a store made
    here stays private with them.

    Raises:
        OSError: The file cannot be created (the caller names the place).
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NONBLOCK, PRIVATE_MODE)
    except FileExistsError:
        return False
    try:
        os.fchmod(fd, PRIVATE_MODE)  # whatever the umask
    finally:
        os.close(fd)
    return True


def check_private(path: str | os.PathLike[str], what: str, *, option: str | None = None) -> None:
    """Refuse an existing secret file that group or others may read or write.

    Raises:
        InputError: The mode grants group or others any access (the fix, ``chmod 600``, is named).
    """
    if os.name != "posix":  # pragma: no cover - modes mean nothing there
        return
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # the reader names a missing or unreadable file
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise InputError(
            f"{what} can be read by others (mode {stat.S_IMODE(mode):o}); run: chmod 600 {path}",
            file=_name(path, option),
        )
