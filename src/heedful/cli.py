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
