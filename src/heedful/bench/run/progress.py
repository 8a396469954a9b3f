"""Progress display for long runs: a Rich bar on stderr behind a plain callback.

The runner only calls a :data:`heedful.bench.run.runner.ProgressFn` ``(done, total, label)``; the
command line (or any caller) chooses how to show it. This module is the default display.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

__all__ = ["rich_bar"]


@contextlib.contextmanager
def rich_bar(title: str) -> Iterator[Callable[[int, int, str], None]]:
    """A transient Rich progress bar on stderr; yields the ``(done, total, label)`` callback."""
    with Progress(
        TextColumn(f"[bold]{title}[/bold] {{task.description}}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("", total=None)

        def tick(done: int, total: int, label: str) -> None:
            # The label holds scenario ids from user files: never read as markup.
            bar.update(task, completed=done, total=total, description=escape(label))

        yield tick
