"""The ``heedful`` command (Typer), thin: parses arguments, calls the library, prints.

One module per command group; :mod:`heedful.cli._app` holds the root app, ``main()`` and the
error handling shared by all of them. Errors raised as :class:`heedful.errors.HeedfulError`
anywhere in a command become one line on stderr and exit code 2 — commands do not catch them.

Adding a command group:

1. Create ``heedful/cli/<group>.py`` with a module-level ``typer.Typer`` for the group, its
   commands (import the library lazily inside each command, so ``heedful --help`` stays fast),
   and a ``register(root: typer.Typer) -> None`` that adds the group to ``root`` (and any
   top-level commands it owns, as :mod:`heedful.cli.bench` does for ``heedful run``).
2. Add the module's name to ``GROUP_MODULES`` below. That is the only place groups are
   registered.

Nothing is imported until it is needed: ``heedful -V`` prints the version without loading Typer
or a command group, and ``app``, ``fail`` and ``GROUPS`` load on first use (PEP 562).
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from heedful.cli._app import app, fail

    GROUPS: tuple[ModuleType, ...]

#: Command-group modules (of this package), in the order their commands are registered.
GROUP_MODULES = (
    "bench",
    "scenario",
    "holdout",
    "interface",
    "engine",
    "mcp",
    "salience",
    "attention",
    "learn",
    "agent",
    "listing",
)

_GROUPS: list[ModuleType] = []


def registered() -> Any:
    """The root app with every command group registered (once)."""
    from heedful.cli._app import app

    if not _GROUPS:
        modules = [importlib.import_module(f"{__name__}.{name}") for name in GROUP_MODULES]
        for module in modules:
            module.register(app)
        _GROUPS.extend(modules)
    return app


def main() -> None:
    """Entry point of the ``heedful`` console script (see :func:`heedful.cli._app.main`)."""
    if sys.argv[1:] in (["-V"], ["--version"]):
        from heedful import __version__

        sys.stdout.write(__version__ + "\n")
        sys.exit(0)
    from heedful.cli._app import main as run

    run()


def __getattr__(name: str) -> Any:
    if name == "app":
        return registered()
    if name == "GROUPS":
        registered()
        return tuple(_GROUPS)
    if name == "fail":
        from heedful.cli._app import fail

        return fail
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["GROUPS", "GROUP_MODULES", "app", "fail", "main", "registered"]
