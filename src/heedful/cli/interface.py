"""``heedful interface``: the interface-only distribution an agent may hold (document 000
Appendix C)."""

from __future__ import annotations

import typer

interface_app = typer.Typer(
    help="The interface an agent under test may hold: schema and client, nothing private.",
    no_args_is_help=True,
)


def register(root: typer.Typer) -> None:
    """Add the ``interface`` group to the root app."""
    root.add_typer(interface_app, name="interface")


@interface_app.command("build")
def interface_build(
    out: str = typer.Option(..., "--out", help="A new or empty folder to write it into."),
) -> None:
    """Write scenario_interface.schema.json, benchmark_client.py and INTERFACE.md into --out."""
    from heedful.bench.agents.interface import build_interface

    for path in build_interface(out):
        typer.echo(str(path))


@interface_app.command("schema")
def interface_schema_command() -> None:
    """Print the interface's JSON Schema (what an agent is shown)."""
    import json

    from heedful.bench.agents.interface import interface_schema

    typer.echo(json.dumps(interface_schema(), indent=1))
