"""``heedful engine``: the proactive attention engine of document 002 (load, survey, cycle, run)."""

from __future__ import annotations

import logging
import textwrap
from collections.abc import Callable
from typing import Any

import typer

from heedful.cli._app import console
from heedful.wording import count as count_of

engine_app = typer.Typer(
    help="The proactive attention engine (document 002).", no_args_is_help=True
)


def register(root: typer.Typer) -> None:
    """Add the ``engine`` group to the root app."""
    root.add_typer(engine_app, name="engine")


class _WrappedLog(logging.Formatter):
    """The engine's notices (escalations, proposals) wrapped to the terminal, indented under
    their first line, instead of one line of 140 columns."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.width = width

    def format(self, record: logging.LogRecord) -> str:
        return textwrap.fill(
            super().format(record), self.width, subsequent_indent="  ", break_on_hyphens=False
        )


def _show_engine_log() -> None:
    """Send the engine's warnings to stderr, wrapped (unless the host configured logging)."""
    log = logging.getLogger("heedful.engine")
    if log.handlers or logging.getLogger().handlers:
        return
    handler = logging.StreamHandler()
    handler.setLevel(logging.WARNING)
    handler.setFormatter(_WrappedLog(console().width))
    log.addHandler(handler)


def _engine_for_cli(  # type: ignore[no-untyped-def]
    db: str,
    config: str | None,
    triage: str | None,
    governance: str | None = None,
    max_autonomy: str | None = None,
):
    from heedful.engine.config import TRIAGE_METHODS, load_engine_config
    from heedful.engine.governance import load_ampersand, parse_level, with_ceiling
    from heedful.errors import InvalidArgumentError

    if max_autonomy is not None:
        parse_level(max_autonomy)

    if triage is not None and triage not in TRIAGE_METHODS:
        raise InvalidArgumentError(
            f"--triage must be {' or '.join(TRIAGE_METHODS)}, not {triage!r}"
        )
    # Files first: a bad config is refused before the engine and its store are opened.
    engine_config = None if config is None else load_engine_config(config)

    from heedful.engine import open_engine

    _show_engine_log()
    engine = open_engine(db, engine_config, must_exist=True)
    if governance is not None:
        engine.configure(load_ampersand(governance, base=engine.config))
    if max_autonomy is not None:
        engine.configure(with_ceiling(engine.config, max_autonomy))
    if triage is not None:
        engine.config = engine.config.with_overrides(
            triage=engine.config.triage.model_copy(update={"method": triage})
        )
    return engine


def _engine_once(
    db: str,
    config: str | None,
    triage: str | None,
    call: Callable[[Any], dict[str, Any]],
    table: Callable[[dict[str, Any], int], Any],
    as_json: bool,
    governance: str | None = None,
    max_autonomy: str | None = None,
) -> None:
    """Open the engine, make one call, close it, and print the response as JSON or a table."""
    import json

    engine = _engine_for_cli(db, config, triage, governance, max_autonomy)
    try:
        response = call(engine)
    finally:
        engine.close()
    if as_json:
        typer.echo(json.dumps(response, indent=2, ensure_ascii=False))
    else:
        out = console()
        out.print(table(response, out.width))


_DB = typer.Option(..., "--db", help="The memory store (SQLite file).")
_CONFIG = typer.Option(None, "--config", help="Engine config file (JSON or YAML).")
_JSON = typer.Option(False, "--json", help="Print the JSON response instead of a table.")
_TRIAGE = typer.Option(None, "--triage", help="Triage method: formula (document 002) or voc.")
_GOVERNANCE = typer.Option(
    None,
    "--governance",
    help="ampersand.json whose governance block (autonomy, budget, escalate_when) applies; "
    "its governance.autonomy.level is the ceiling.",
)
_MAX_AUTONOMY = typer.Option(
    None,
    "--max-autonomy",
    help="The operator's autonomy ceiling: observe (default) | advise | act. Nothing runs "
    "above it.",
)


@engine_app.command("load")
def engine_load(
    file: str = typer.Argument(..., metavar="FILE", help="YAML/JSON with goals, nodes, edges."),
    db: str = _DB,
) -> None:
    """Add goals, knowledge nodes, edges and outcomes from FILE to the store (created if new)."""
    from heedful.engine.seed import load_seed_file, read_seed_file

    seed = read_seed_file(file)  # a bad file is refused before the store is opened or created

    from heedful.engine import open_engine
    from heedful.engine.store_adapter import StoreGraph

    engine = open_engine(db)
    try:
        counts = load_seed_file(engine.graph, seed)
        if isinstance(engine.graph, StoreGraph):  # one index segment: faster surveys
            engine.graph.store.optimize_search()
    finally:
        engine.close()
    loaded = ", ".join(count_of(n, what.rstrip("s")) for what, n in counts.items())
    typer.echo(f"{loaded} loaded into {db}")


@engine_app.command("survey")
def engine_survey(
    db: str = _DB,
    include_idle: bool = typer.Option(False, "--include-idle", help="Also list idle items."),
    config: str | None = _CONFIG,
    triage: str | None = _TRIAGE,
    as_json: bool = _JSON,
    governance: str | None = _GOVERNANCE,
) -> None:
    """Show the attention map: what needs attention and why (dispatches nothing)."""
    from heedful.engine.report import survey_table

    _engine_once(
        db,
        config,
        triage,
        lambda e: e.survey(include_idle=include_idle),
        lambda response, _width: survey_table(response),
        as_json,
        governance,
    )


@engine_app.command("cycle")
def engine_cycle(
    db: str = _DB,
    autonomy: str | None = typer.Option(
        None,
        "--autonomy",
        help="observe | advise | act for this cycle; refused above the ceiling (--max-autonomy).",
    ),
    config: str | None = _CONFIG,
    triage: str | None = _TRIAGE,
    as_json: bool = _JSON,
    governance: str | None = _GOVERNANCE,
    max_autonomy: str | None = _MAX_AUTONOMY,
) -> None:
    """Run one attention cycle now: survey, triage, dispatch, reflect."""
    from heedful.engine.report import cycle_table

    _engine_once(
        db,
        config,
        triage,
        lambda e: e.run_cycle(autonomy_override=autonomy),
        cycle_table,
        as_json,
        governance,
        max_autonomy,
    )


@engine_app.command("run")
def engine_run(
    db: str = _DB,
    autonomy: str | None = typer.Option(None, "--autonomy", help="observe | advise | act."),
    heartbeat_ms: float | None = typer.Option(None, "--heartbeat-ms", help="Heartbeat cadence."),
    cycles: int | None = typer.Option(None, "--cycles", min=1, help="Stop after N cycles."),
    config: str | None = _CONFIG,
    triage: str | None = _TRIAGE,
    as_json: bool = typer.Option(False, "--json", help="One JSON cycle response per line."),
    governance: str | None = _GOVERNANCE,
    max_autonomy: str | None = _MAX_AUTONOMY,
) -> None:
    """Run the heartbeat loop (first cycle at once) until Ctrl-C or --cycles cycles have run."""
    import asyncio
    import errno
    import json

    from heedful.engine.report import cycle_table

    if heartbeat_ms is not None and not heartbeat_ms > 0:  # also refuses nan
        from heedful.errors import InvalidArgumentError

        raise InvalidArgumentError(
            f"--heartbeat-ms must be a positive number, not {heartbeat_ms:g}"
        )
    engine = _engine_for_cli(db, config, triage, governance, max_autonomy)
    if autonomy is not None:
        from heedful.engine.governance import check_override, parse_level

        # The loop's level is a request like a cycle's: refused above the ceiling, not lowered.
        check_override(parse_level(autonomy), engine.config.governance.max_level)
    if heartbeat_ms is not None:
        engine.config = engine.config.with_overrides(heartbeat_ms=heartbeat_ms)
    out = console()
    closed: list[BrokenPipeError] = []

    def show(event: object) -> None:
        last = engine.last_cycle
        if getattr(event, "name", "") != "cycle_complete" or last is None:
            return
        # Stop first: a print that fails must not keep the loop running past --cycles.
        if cycles is not None and engine.cycles_run >= cycles:
            engine.deactivate()
        response = last.to_dict()
        try:
            if as_json:
                typer.echo(json.dumps(response, ensure_ascii=False))
            else:
                out.print(cycle_table(response, out.width))
        except BrokenPipeError as exc:  # `heedful engine run --json | head -1`: the reader left
            closed.append(exc)
            engine.deactivate()

    engine.subscribe(show)
    engine.activate(autonomy)
    # A reader that leaves (`| head -1`) stops the loop now, not at the next heartbeat's write.
    from heedful.cli._pipe import watch_reader

    def reader_left() -> None:
        closed.append(BrokenPipeError(errno.EPIPE, "the reader of stdout left"))
        engine.deactivate()

    unwatch = watch_reader(reader_left)
    try:
        asyncio.run(engine.serve(stop_on_error=True))
    except KeyboardInterrupt:
        pass
    finally:
        unwatch()
        engine.close()
    if closed:
        raise closed[0]  # main() ends a command whose reader left quietly


@engine_app.command("journal")
def engine_journal(
    db: str = _DB,
    as_json: bool = typer.Option(False, "--json", help="One JSON entry per line."),
) -> None:
    """List what the engine changed, one entry per dispatch (undo with `engine undo ID`)."""
    import json

    from heedful.engine import open_engine
    from heedful.engine.journal import CONTENT_PREVIEW_CHARS

    engine = open_engine(db, must_exist=True)
    try:
        entries = engine.journal_entries()
    finally:
        engine.close()
    if not entries:
        typer.echo(f"the journal of {db} is empty")
    width = console().width

    def fit(line: str) -> str:
        # Wrapped, never cut: continuation lines indent two more than the line they continue.
        indent = " " * (len(line) - len(line.lstrip()) + 2)
        return textwrap.fill(line, width, subsequent_indent=indent, break_on_hyphens=False)

    for entry in entries:
        if as_json:
            typer.echo(json.dumps(entry.to_dict(), ensure_ascii=False))
            continue
        # Minutes are enough to tell cycles apart; --json has the full timestamps.
        when = entry.at[:16].replace("T", " ")
        state = f"  [undone {entry.undone_at[:16].replace('T', ' ')}]" if entry.undone_at else ""
        typer.echo(f"{entry.id}  {when}  {entry.mode}{state}")
        typer.echo(fit(f"  {entry.summary}"))
        for line in entry.describe():
            typer.echo(fit(f"    {line}"))
    if not as_json and any(entry.cuts_content() for entry in entries):
        typer.echo(
            fit(
                f"(node content is cut at {CONTENT_PREVIEW_CHARS} characters, marked …; "
                "--json has it whole)"
            )
        )


@engine_app.command("undo")
def engine_undo(
    entry_id: str = typer.Argument(..., metavar="ENTRY", help="Journal entry id (j-...)."),
    db: str = _DB,
) -> None:
    """Reverse one journal entry (refused if later entries changed the same nodes or goals)."""
    from heedful.engine import open_engine

    engine = open_engine(db, must_exist=True)
    try:
        entry = engine.undo(entry_id)
    finally:
        engine.close()
    typer.echo(
        f"undid {entry.id} ({entry.mode} '{entry.goal_id or '-'}'): {len(entry.ops)} change(s)"
    )


@engine_app.command("proposals")
def engine_proposals(
    db: str = _DB,
    show_all: bool = typer.Option(False, "--all", help="Also list decided proposals."),
    as_json: bool = typer.Option(False, "--json", help="One JSON proposal per line."),
) -> None:
    """List the proposals advise mode queued (approve or reject them by id)."""
    import json

    from heedful.engine import open_engine

    engine = open_engine(db, must_exist=True)
    try:
        found = engine.proposals.all() if show_all else engine.pending_proposals()
    finally:
        engine.close()
    if not found and not as_json:
        typer.echo(f"no {'' if show_all else 'pending '}proposals in {db}")
    for p in found:
        if as_json:
            typer.echo(json.dumps(p.to_dict(), ensure_ascii=False))
            continue
        typer.echo(f"{p.id}  {p.at[:16].replace('T', ' ')}  {p.mode}  [{p.status}]")
        typer.echo(
            textwrap.fill(p.message, console().width, initial_indent="  ", subsequent_indent="    ")
        )
        if p.detail:
            typer.echo(
                textwrap.fill(
                    p.detail, console().width, initial_indent="  ", subsequent_indent="    "
                )
            )


@engine_app.command("approve")
def engine_approve(
    proposal_id: str = typer.Argument(..., metavar="ID", help="Proposal id (p-...)."),
    db: str = _DB,
    config: str | None = _CONFIG,
    as_json: bool = _JSON,
) -> None:
    """Approve a proposal: run its dispatch now, once, at act level (journaled, undoable)."""
    import json

    from heedful.engine.report import cycle_table

    engine = _engine_for_cli(db, config, None)
    try:
        response = engine.approve(proposal_id, by="cli")
    finally:
        engine.close()
    if as_json:
        typer.echo(json.dumps(response, indent=2, ensure_ascii=False))
        return
    typer.echo(f"approved {proposal_id}: {response['proposal']['detail']}")
    out = console()
    out.print(cycle_table(response["cycle"], out.width))


@engine_app.command("reject")
def engine_reject(
    proposal_id: str = typer.Argument(..., metavar="ID", help="Proposal id (p-...)."),
    db: str = _DB,
    reason: str = typer.Option("", "--reason", help="Why, kept in the journal."),
) -> None:
    """Reject a proposal (journaled; nothing runs)."""
    from heedful.engine import open_engine

    engine = open_engine(db, must_exist=True)
    try:
        engine.reject(proposal_id, by="cli", reason=reason)
    finally:
        engine.close()
    typer.echo(f"rejected {proposal_id}")
