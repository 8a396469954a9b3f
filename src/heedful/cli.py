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


@scenario_app.command("validate")
def scenario_validate(
    paths: list[str] = typer.Argument(
        ..., metavar="FILE...", help="Scenario files or directories (*.yaml, *.yml, *.json)."
    ),
) -> None:
    """Validate scenario files; print `ok FILE (N scenarios)` for each."""
    from heedful.model import load_scenarios, scenario_files

    try:
        for path in scenario_files(paths):
            n = len(load_scenarios(path))
            typer.echo(f"ok {path} ({n} scenario{'' if n == 1 else 's'})")
    except HeedfulError as exc:
        raise fail(str(exc)) from None


@scenario_app.command("schema")
def scenario_schema() -> None:
    """Print the JSON Schema of the scenario file format."""
    import json

    from heedful.model import scenario_json_schema

    typer.echo(json.dumps(scenario_json_schema(), indent=2, ensure_ascii=False))


@bench_app.command("oracle")
def bench_oracle(
    paths: list[str] = typer.Argument(
        ..., metavar="FILE...", help="Scenario files or directories."
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per scenario per line."),
    adaptive: bool = typer.Option(
        False, "--adaptive", help="Also compute the optimal adaptive value."
    ),
) -> None:
    """Exact oracle per scenario: V*, optimal sets, U_random, V(empty set), critical sources."""
    import json

    from rich.console import Console
    from rich.table import Table

    from heedful.decision import (
        StaticOracleResult,
        adaptive_oracle,
        compile_problem,
        static_oracle,
    )
    from heedful.model import load_scenario_set

    try:
        rows: list[tuple[str, StaticOracleResult, float | None]] = []
        for sc in load_scenario_set(paths):
            problem = compile_problem(sc.view, sc.truth)
            result = static_oracle(problem, sc.view.budget)
            v_adaptive = adaptive_oracle(problem, sc.view.budget).v_adaptive if adaptive else None
            if as_json:
                record: dict[str, object] = {"id": sc.id, **result.as_dict()}
                if v_adaptive is not None:
                    record["v_adaptive"] = v_adaptive
                typer.echo(json.dumps(record, ensure_ascii=False))
            rows.append((sc.id, result, v_adaptive))
    except HeedfulError as exc:
        raise fail(str(exc)) from None
    if as_json:
        return
    table = Table(title="Exact static oracle (SPEC §3)")
    table.add_column("scenario", overflow="fold")
    for column in ("budget", "V*"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("optimal sets", overflow="fold")
    for column in ("U_random", "V(∅)"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("critical", overflow="fold")
    if adaptive:
        table.add_column("V adaptive", justify="right", no_wrap=True)
    for scenario_id, r, v_ad in rows:
        sets = ["{" + (", ".join(s) or "∅") + "}" for s in r.optimal_sets]
        shown = "\n".join(sets[:3]) + (f"\n(+{len(sets) - 3} more)" if len(sets) > 3 else "")
        cells = [
            scenario_id,
            str(r.budget),
            f"{r.v_star:.4f}",
            shown,
            f"{r.u_random:.4f}",
            f"{r.v_empty:.4f}",
            ", ".join(r.critical) or "none",
        ]
        if v_ad is not None:
            cells.append(f"{v_ad:.4f}")
        table.add_row(*cells)
    Console(width=None if sys.stdout.isatty() else 160).print(table)


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
