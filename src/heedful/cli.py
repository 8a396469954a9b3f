"""The ``heedful`` command. Thin: parses arguments, calls the library, prints.

Errors raised as :class:`heedful.errors.HeedfulError` become one line on stderr and exit code 2.
"""

from __future__ import annotations

import sys

import typer

from heedful import __version__
from heedful.errors import HeedfulError

app = typer.Typer(
    name="heedful",
    help="Attention for persistent LLM agents, and a benchmark against an exact oracle.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
bench_app = typer.Typer(
    help="Run the benchmark, the exact oracle and reports.", no_args_is_help=True
)
scenario_app = typer.Typer(
    help="Validate, generate and describe scenario files.", no_args_is_help=True
)
engine_app = typer.Typer(
    help="The proactive attention engine (document 002).", no_args_is_help=True
)
mcp_app = typer.Typer(help="The MCP server.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")
app.add_typer(scenario_app, name="scenario")
app.add_typer(engine_app, name="engine")
app.add_typer(mcp_app, name="mcp")


def fail(message: str) -> typer.Exit:
    """Print one clear error line and return the exit to raise (code 2)."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)


@app.command()
def version() -> None:
    """Print the heedful version."""
    typer.echo(__version__)


# --- scenario commands (owner: scenario/model work) -------------------------------------------


# --- bench commands (owner: bench work; includes `heedful run`) ---------------------------------


# --- salience commands (owner: salience work) ---------------------------------------------------


@app.command("salience")
def salience_command(
    texts: list[str] = typer.Argument(
        ..., metavar="TEXT", help="The turns of one conversation, in order."
    ),
    fragment: list[str] = typer.Option(
        [],
        "--fragment",
        "-f",
        help="A memory fragment to filter by each turn's topics (repeatable).",
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per turn per line."),
) -> None:
    """Run the salience pipeline of document 003 over TEXTs as consecutive turns."""
    import json

    from heedful.salience import AttentionSystem, selective_filter, urgency_counts

    system = AttentionSystem()
    for turn, text in enumerate(texts, start=1):
        state = system.process(text)
        kept = selective_filter(fragment, state.context_filter) if fragment else None
        if as_json:
            record: dict[str, object] = {"turn": turn, "text": text, **state.to_dict()}
            if kept is not None:
                record["fragments"] = kept
            typer.echo(json.dumps(record, ensure_ascii=False))
            continue
        matches, words = urgency_counts(text)
        if turn > 1:
            typer.echo("")
        typer.echo(f"turn {turn}: {text!r}")
        rows = [
            ("urgency", f"{state.urgency:.3f} ({matches}/{words} words)"),
            ("topics", ", ".join(state.topics) or "(none)"),
            ("focus_duration", str(state.focus_duration)),
            ("priority_tools", ", ".join(state.priority_tools) or "(none)"),
            ("context_filter", ", ".join(state.context_filter) or "(none)"),
        ]
        if kept is not None:
            rows.append(("fragments", f"{len(kept)} of {len(fragment)} kept"))
        for name, value in rows:
            typer.echo(f"  {name:<15} {value}")
        for item in kept or []:
            typer.echo(f"    - {item}")


# --- engine commands (owner: engine work) -------------------------------------------------------


# --- mcp commands (owner: MCP work) -------------------------------------------------------------


def main() -> None:
    """Entry point of the ``heedful`` console script."""
    try:
        app()
    except HeedfulError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
