"""``heedful attention``: the attention controller's own health, read from a store's trace."""

from __future__ import annotations

import typer

attention_app = typer.Typer(
    help="The attention controller (document 000): its health from the trace.",
    no_args_is_help=True,
)


def register(root: typer.Typer) -> None:
    """Add the ``attention`` group to the root app."""
    root.add_typer(attention_app, name="attention")


@attention_app.command("health")
def attention_health(
    db: str = typer.Option(..., "--db", help="The memory store (SQLite file) holding the trace."),
    window: int | None = typer.Option(
        None, "--window", help="Most recent turns to read (default: the configured 100)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """The §5.3 funnel and the §25 failure-mode signatures over the trace, one verdict each."""
    import json
    from dataclasses import replace
    from pathlib import Path

    from heedful.attention.config import DEFAULT_CONFIG
    from heedful.attention.health import health, rows_from_store
    from heedful.cli._app import fail
    from heedful.memory import Store

    if window is not None and window < 1:
        raise fail(f"--window must be ≥ 1, got {window}")
    if not Path(db).is_file():
        raise fail(f"--db {db}: no such file")
    config = DEFAULT_CONFIG.health
    if window is not None:
        config = replace(config, window_turns=window)
    store = Store.open(db)
    try:
        report = health(rows_from_store(store.trace()), config)
    finally:
        store.close()
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
        return
    import shutil

    for line in report.lines(width=shutil.get_terminal_size().columns):
        typer.echo(line)
