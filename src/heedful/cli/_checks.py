"""The checks every command's options pass before the command starts: number ranges and paths.

One table each, applied to every command by option name (:func:`check_options`, called once per
command when the app starts): a count, a cycle number or a size outside its range, a file
option naming a pipe, a device or a directory, and an output place that cannot be written are
one line and exit 2 *before* the command imports the library or does any work — never a hang, a
traceback, or a failure after minutes of work.

Reading and writing themselves go through :mod:`heedful.files` (the one bounded reader, the one
writer); these checks only make the refusal come first.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from heedful.errors import InputError, InvalidArgumentError
from heedful.files import check_input_file, check_output_dir, check_output_file, not_regular

__all__ = ["PATHS", "RANGES", "check_commands", "check_options", "check_path", "check_range"]

#: The largest count a command accepts for scenarios per family (a run that large is days).
MAX_COUNT = 100_000
_SEED_MAX = 2**63 - 1

#: Each number option and its range (least, most), inclusive; the same for every command that
#: has it. Floats must also be finite.
RANGES: dict[str, tuple[float, float]] = {
    "--count": (1, MAX_COUNT),
    "--trials": (1, 10_000),
    "--seed": (0, _SEED_MAX),
    "--workers": (1, 1024),
    "--concurrency": (1, 1024),
    "--rounds": (1, 100),
    "--cycles": (1, 10**9),
    "--window": (1, 10**7),
    "--max-tokens": (1, 10**7),
    "--max-reply-bytes": (1, 2**31),
    "--max-turns": (1, 10_000),
    "--retries": (0, 100),
    "--ctx": (256, 2**20),
    "--heartbeat-ms": (1, 7 * 24 * 3600 * 1000),
    "--latency-ms": (0, 600_000),
    "--timeout": (0.001, 86_400),
    "--trial-timeout": (0.001, 7 * 86_400),
    "--temperature": (0, 2),
}

#: What each path option must name, by command path and option (or argument) name:
#:
#: * ``file`` — an existing regular file (not a pipe, a device, a directory);
#: * ``files`` — existing regular files or folders (scenario files and folders of them);
#: * ``folder`` — an existing folder;
#: * ``history`` — ``-`` (stdin) or a ``file``;
#: * ``out-file`` — a place a file can be written (an existing regular file, or a new one in an
#:   existing folder that can be written);
#: * ``out-folder`` — a folder that exists or can be made, and can be written;
#: * ``store`` — an existing regular file, or nothing yet (the command names a missing store);
#: * ``new-store`` — an existing regular file, or a place a new store can be created;
#: * ``made`` — like ``store``, and a missing file's folder may be created (key files, caches).
PATHS: dict[str, dict[str, str]] = {
    "heedful scenario validate": {"paths": "files"},
    "heedful scenario generate": {"out": "out-file"},
    "heedful bench oracle": {"paths": "files"},
    "heedful bench run": {
        "scenarios": "files",
        "holdout": "folder",
        "model_file": "file",
        "cache": "made",
        "resume": "folder",
        "out": "out-folder",
    },
    "heedful run": {"out": "out-folder"},
    "heedful bench report": {"results": "file", "out": "out-file"},
    "heedful bench ablations": {"out": "out-folder"},
    "heedful bench plan": {"results": "file"},
    "heedful holdout make": {"key_file": "made", "out": "out-folder"},
    "heedful engine load": {"file": "file", "db": "new-store"},
    "heedful engine survey": {"db": "store", "config": "file", "governance": "file"},
    "heedful engine cycle": {"db": "store", "config": "file", "governance": "file"},
    "heedful engine run": {"db": "store", "config": "file", "governance": "file"},
    "heedful engine journal": {"db": "store"},
    "heedful engine undo": {"db": "store"},
    "heedful engine proposals": {"db": "store"},
    "heedful engine approve": {"db": "store", "config": "file"},
    "heedful engine reject": {"db": "store"},
    "heedful mcp serve": {
        "db": "new-store",
        "config": "file",
        "governance": "file",
        "token_file": "made",
    },
    "heedful mcp token": {"db": "store", "token_file": "made"},
    "heedful attention health": {"db": "store"},
    "heedful learn train": {"out": "out-file"},
    "heedful learn calibrate": {"out": "out-file"},
    "heedful salience": {"history": "history"},
}


def check_range(option: str, value: Any) -> None:
    """Refuse a number outside its option's range (:data:`RANGES`); ``None`` passes.

    Raises:
        InvalidArgumentError: The value is out of range or not finite, naming the range.
    """
    bounds = RANGES.get(option)
    if bounds is None or value is None or isinstance(value, bool):
        return
    low, high = bounds
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidArgumentError(f"{option} must be a finite number, not {value}")
    if value < low:
        raise InvalidArgumentError(
            f"{option} must be at least {_number(low)}, not {_number(value)}"
        )
    if value > high:
        raise InvalidArgumentError(
            f"{option} must be at most {_number(high)}, not {_number(value)}"
        )


def _number(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def check_path(kind: str, value: str, option: str) -> None:
    """Refuse a path option that cannot be what ``kind`` says (see :data:`PATHS`).

    Raises:
        InputError: One line naming the option, the path and what is wrong.
    """
    if kind == "history" and value == "-":
        return
    if kind in ("file", "history"):
        check_input_file(value, option=option)
    elif kind == "files":
        if os.path.isdir(value) or not os.path.exists(value):
            return  # a folder, or a missing file the loader names
        check_input_file(value, option=option)
    elif kind == "folder":
        p = Path(value)
        if p.exists() and not p.is_dir():
            what = not_regular(p.stat().st_mode) or "a file"
            raise InputError(f"is {what}, not a folder", file=f"{option} {value}".strip())
    elif kind == "out-file":
        check_output_file(value, option=option)
    elif kind == "out-folder":
        check_output_dir(value, option=option)
    elif kind == "new-store":
        if os.path.exists(value):
            check_input_file(value, option=option)
        elif value != ":memory:":
            check_output_file(value, option=option)
    elif kind in ("store", "made"):
        if os.path.exists(value):
            check_input_file(value, option=option)
        elif kind == "made" and value.strip():
            try:
                check_output_dir(Path(value).parent, what="its folder")
            except InputError as exc:
                raise InputError(exc.detail, file=f"{option} {value}".strip()) from None


def _option_name(param: Any) -> str:
    """``--count`` for an option; nothing for an argument (its value is named alone)."""
    if getattr(param, "param_type_name", "") == "argument":
        return ""
    return str(max(param.opts, key=len))


def check_options(command: Any, path: str) -> None:
    """Make ``command`` check its numbers and paths (:data:`RANGES`, :data:`PATHS`) before
    its body runs. Idempotent; ``path`` is the command's path (``heedful bench run``)."""
    callback: Callable[..., Any] | None = getattr(command, "callback", None)
    if callback is None or getattr(callback, "_heedful_checked", False):
        return
    numbers: dict[str, str] = {}
    for param in getattr(command, "params", []):
        name = _option_name(param)
        if name in RANGES and param.name:
            numbers[param.name] = name
            low, high = RANGES[name]
            param.help = f"{param.help or ''} Range: {_number(low)} to {_number(high)}.".strip()
    paths = {
        name: (kind, next((_option_name(p) for p in command.params if p.name == name), name))
        for name, kind in PATHS.get(path, {}).items()
    }
    if not numbers and not paths:
        return

    @functools.wraps(callback)
    def checked(*args: Any, **kwargs: Any) -> Any:
        for name, option in numbers.items():
            check_range(option, kwargs.get(name))
        for name, (kind, option) in paths.items():
            value = kwargs.get(name)
            for one in value if isinstance(value, list | tuple) else [value]:
                if isinstance(one, str):
                    check_path(kind, one, option)
        return callback(*args, **kwargs)

    checked._heedful_checked = True  # type: ignore[attr-defined]
    command.callback = checked


def check_commands(group: Any, path: str = "heedful") -> None:
    """:func:`check_options` for every command below ``group`` (its path starting ``path``)."""
    for name, command in getattr(group, "commands", {}).items():
        check_commands(command, f"{path} {name}")
    check_options(group, path)
