"""The ``heedful`` command (Typer), thin: parses arguments, calls the library, prints.

One module per command group; :mod:`heedful.cli._app` holds the root app, ``main()`` and the
error handling shared by all of them. Errors raised as :class:`heedful.errors.HeedfulError`
anywhere in a command become one line on stderr and exit code 2 — commands do not catch them.

Adding a command group:

1. Create ``heedful/cli/<group>.py`` with a module-level ``typer.Typer`` for the group, its
   commands (import the library lazily inside each command, so ``heedful --help`` stays fast),
   and a ``register(root: typer.Typer) -> None`` that adds the group to ``root`` (and any
   top-level commands it owns, as :mod:`heedful.cli.bench` does for ``heedful run``).
2. Add the module to ``GROUPS`` below. That is the only place groups are registered.
"""

from __future__ import annotations

from heedful.cli import (
    agent,
    attention,
    bench,
    engine,
    holdout,
    interface,
    learn,
    listing,
    mcp,
    salience,
    scenario,
)
from heedful.cli._app import app, fail, main

GROUPS = (
    bench,
    scenario,
    holdout,
    interface,
    engine,
    mcp,
    salience,
    attention,
    learn,
    agent,
    listing,
)
"""Command-group modules, in the order their commands are registered."""

for _group in GROUPS:
    _group.register(app)

__all__ = ["GROUPS", "app", "fail", "main"]
