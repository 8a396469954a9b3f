"""The ``heedful`` command. Thin: parses arguments, calls the library, prints.

Errors raised as :class:`heedful.errors.HeedfulError` become one line on stderr and exit code 2.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

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
    from heedful.model import scenario_files
    from heedful.model.kinds_io import load_any_scenarios

    try:
        for path in scenario_files(paths):
            n = len(load_any_scenarios(path))
            typer.echo(f"ok {path} ({n} scenario{'' if n == 1 else 's'})")
    except HeedfulError as exc:
        raise fail(str(exc)) from None


@scenario_app.command("schema")
def scenario_schema() -> None:
    """Print the JSON Schema of the scenario file format (every kind: inspection, switching,
    schedule)."""
    import json

    from heedful.model.kinds_io import all_scenario_json_schema

    typer.echo(json.dumps(all_scenario_json_schema(), indent=2, ensure_ascii=False))


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

_RUNS_HELP = "Output folder (default: a new runs/<timestamp>-<seed>/)."


def _print_run(output: object) -> None:
    from heedful.bench.report import print_tables
    from heedful.bench.suite import RunOutput

    assert isinstance(output, RunOutput)
    if output.results.aggregates.rows or not output.results.kinds:
        print_tables(output.results)
    if output.results.kinds:
        from heedful.bench.kinds.run import print_kind_tables

        print_kind_tables(output.results.kinds)
    typer.echo(f"results: {output.results_path}")
    typer.echo(f"report:  {output.report_path}")


@bench_app.command("run")
def bench_run(
    scenarios: list[str] = typer.Option(
        [], "--scenarios", help="Scenario file or folder (repeatable); default: generate."
    ),
    family: str | None = typer.Option(
        None,
        "--family",
        help="Families to generate or keep, e.g. G,B or C,E,F,I or D,J, or all (default: G,B).",
    ),
    count: int = typer.Option(20, "--count", help="Scenarios generated per family."),
    policies: str = typer.Option("all", "--policies", help="Comma-separated policy names."),
    trials: int = typer.Option(5, "--trials", help="Trials per scenario and policy."),
    seed: int = typer.Option(0, "--seed", help="Root seed of the whole run."),
    out: str | None = typer.Option(None, "--out", help=_RUNS_HELP),
    adaptive: bool = typer.Option(
        False, "--adaptive", help="Reveal each result before the next choice."
    ),
    holdout: str | None = typer.Option(
        None, "--holdout", help="Sealed hold-out directory outside the project: aggregates only."
    ),
    condition: str = typer.Option(
        "announced",
        "--condition",
        help="announced, unprompted (no budget or instruction in the task) or both (gap).",
    ),
) -> None:
    """Run policies on scenarios against the exact oracle; write results.json and report.html."""
    from pathlib import Path

    from heedful.bench.suite import run_to_folder

    _print_run(
        run_to_folder(
            scenario_paths=[Path(p) for p in scenarios] or None,
            families=family,
            count=count,
            policies=policies,
            trials=trials,
            seed=seed,
            adaptive=adaptive,
            holdout=Path(holdout) if holdout else None,
            out=Path(out) if out else None,
            condition=condition,
        )
    )


@bench_app.command("report")
def bench_report(
    results: str = typer.Argument(..., help="A results.json of `heedful bench run`."),
    out: str | None = typer.Option(
        None, "--out", help="HTML file to write (default: report.html beside RESULTS)."
    ),
) -> None:
    """Print the ranked table of a results file and regenerate its report.html."""
    from pathlib import Path

    from heedful.bench.report import print_tables, write_report
    from heedful.bench.results import load_results

    path = Path(results)
    loaded = load_results(path)
    print_tables(loaded)
    typer.echo(
        f"report:  {write_report(loaded, Path(out) if out else path.with_name('report.html'))}"
    )


@app.command("run")
def run_default(
    seed: int = typer.Option(0, "--seed", help="Root seed of the whole run."),
    out: str | None = typer.Option(None, "--out", help=_RUNS_HELP),
) -> None:
    """Run the default suite (families G and B, every policy) and print the ranked table."""
    from pathlib import Path

    from heedful.bench.config import DEFAULT_CONFIG
    from heedful.bench.suite import run_to_folder

    cfg = DEFAULT_CONFIG
    _print_run(
        run_to_folder(
            families=",".join(cfg.suite_families),
            count=cfg.suite_count,
            trials=cfg.suite_trials,
            seed=seed,
            out=Path(out) if out else None,
        )
    )


@scenario_app.command("generate")
def scenario_generate(
    family: str = typer.Option(..., "--family", help="Family code or name, e.g. G or budgeted."),
    count: int = typer.Option(10, "--count", help="How many scenarios."),
    seed: int = typer.Option(0, "--seed", help="Root seed."),
    out: str | None = typer.Option(None, "--out", help="YAML file to write (default: stdout)."),
    holdout: bool = typer.Option(
        False, "--holdout", help="Use the hold-out seed stream instead of the development one."
    ),
    unprompted: bool = typer.Option(
        False, "--unprompted", help="Generate the unprompted twins (SPEC §4.2)."
    ),
) -> None:
    """Generate scenarios of one family as a YAML list."""
    from pathlib import Path

    import yaml

    from heedful.bench.families import generate_family
    from heedful.bench.seeds import Stream
    from heedful.model import Condition, scenario_to_dict

    stream = Stream.HOLDOUT if holdout else Stream.DEV
    cond = Condition.UNPROMPTED if unprompted else Condition.ANNOUNCED
    items = [
        scenario_to_dict(s)
        for s in generate_family(family, count, seed, stream=stream, condition=cond)
    ]
    text = yaml.safe_dump(items, sort_keys=False, allow_unicode=True)
    if out is None:
        typer.echo(text, nl=False)
    else:
        try:
            Path(out).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise fail(f"cannot write {out}: {exc.strerror}") from None
        typer.echo(f"wrote {len(items)} scenarios to {out}")


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


def _engine_for_cli(db: str, config: str | None, triage: str | None):  # type: ignore[no-untyped-def]
    from heedful.engine import open_engine

    engine = open_engine(db, config, must_exist=True)
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
    table: Callable[[dict[str, Any]], Any],
    as_json: bool,
) -> None:
    """Open the engine, make one call, close it, and print the response as JSON or a table."""
    import json

    from rich.console import Console

    engine = _engine_for_cli(db, config, triage)
    try:
        response = call(engine)
    finally:
        engine.close()
    if as_json:
        typer.echo(json.dumps(response, indent=2, ensure_ascii=False))
    else:
        Console(width=None if sys.stdout.isatty() else 160).print(table(response))


_DB = typer.Option(..., "--db", help="The memory store (SQLite file).")
_CONFIG = typer.Option(None, "--config", help="Engine config file (JSON or YAML).")
_JSON = typer.Option(False, "--json", help="Print the JSON response instead of a table.")
_TRIAGE = typer.Option(None, "--triage", help="Triage method: formula (document 002) or voc.")


@engine_app.command("load")
def engine_load(
    file: str = typer.Argument(..., metavar="FILE", help="YAML/JSON with goals, nodes, edges."),
    db: str = _DB,
) -> None:
    """Add goals, knowledge nodes, edges and outcomes from FILE to the store (created if new)."""
    from heedful.engine import open_engine
    from heedful.engine.seed import load_seed_file

    engine = open_engine(db)
    try:
        counts = load_seed_file(engine.graph, file)
    finally:
        engine.close()
    typer.echo(", ".join(f"{n} {what}" for what, n in counts.items()) + f" loaded into {db}")


@engine_app.command("survey")
def engine_survey(
    db: str = _DB,
    include_idle: bool = typer.Option(False, "--include-idle", help="Also list idle items."),
    config: str | None = _CONFIG,
    triage: str | None = _TRIAGE,
    as_json: bool = _JSON,
) -> None:
    """Show the attention map: what needs attention and why (dispatches nothing)."""
    from heedful.engine.report import survey_table

    _engine_once(
        db, config, triage, lambda e: e.survey(include_idle=include_idle), survey_table, as_json
    )


@engine_app.command("cycle")
def engine_cycle(
    db: str = _DB,
    autonomy: str | None = typer.Option(
        None, "--autonomy", help="observe | advise | act for this cycle (capped by governance)."
    ),
    config: str | None = _CONFIG,
    triage: str | None = _TRIAGE,
    as_json: bool = _JSON,
) -> None:
    """Run one attention cycle now: survey, triage, dispatch, reflect."""
    from heedful.engine.report import cycle_table

    _engine_once(
        db, config, triage, lambda e: e.run_cycle(autonomy_override=autonomy), cycle_table, as_json
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
) -> None:
    """Run the heartbeat loop until interrupted (Ctrl-C) or --cycles cycles have run."""
    import asyncio
    import json

    from rich.console import Console

    from heedful.engine.report import cycle_table

    engine = _engine_for_cli(db, config, triage)
    if heartbeat_ms is not None:
        engine.config = engine.config.with_overrides(heartbeat_ms=heartbeat_ms)
    console = Console(width=None if sys.stdout.isatty() else 160)

    def show(event: object) -> None:
        last = engine.last_cycle
        if getattr(event, "name", "") != "cycle_complete" or last is None:
            return
        response = last.to_dict()
        if as_json:
            typer.echo(json.dumps(response, ensure_ascii=False))
        else:
            console.print(cycle_table(response))
        if cycles is not None and engine.cycles_run >= cycles:
            engine.deactivate()

    engine.subscribe(show)
    engine.activate(autonomy)
    try:
        asyncio.run(engine.serve(stop_on_error=True))
    except KeyboardInterrupt:
        pass
    finally:
        engine.close()


# --- mcp commands (owner: MCP work) -------------------------------------------------------------


@mcp_app.command("serve")
def mcp_serve_command(
    db: str = typer.Option(
        ..., "--db", help="The heedful SQLite store to serve (created if missing)."
    ),
    transport: str = typer.Option(
        "stdio", "--transport", help="stdio (for a client that spawns the server) or http."
    ),
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Address to bind with --transport http (loopback by default)."
    ),
    port: int = typer.Option(8765, "--port", help="Port to bind with --transport http."),
    config: str | None = typer.Option(
        None, "--config", help="Engine config file (JSON or YAML): autonomy, governance, budget."
    ),
) -> None:
    """Serve the attention tools over MCP (stdio, or streamable HTTP at /mcp)."""
    if transport not in ("stdio", "http"):
        raise fail(f"--transport must be 'stdio' or 'http', not {transport!r}")
    if not 0 < port < 65536:
        raise fail(f"--port must be between 1 and 65535, not {port}")
    try:
        from heedful.integrations.mcp import open_backend, serve_http, serve_stdio
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] != "mcp":
            raise
        raise fail(
            "the MCP server needs the 'mcp' extra; install it with: pip install 'heedful[mcp]'"
        ) from None
    from heedful.engine import load_engine_config

    engine_config = load_engine_config(config) if config is not None else None
    backend = open_backend(db, engine_config)
    try:
        if transport == "stdio":
            serve_stdio(backend)
        else:
            serve_http(
                backend, host, port, ready=lambda url: typer.echo(f"serving MCP on {url}", err=True)
            )
    except KeyboardInterrupt:
        pass  # Ctrl-C is how an HTTP server is stopped, not an error
    finally:
        backend.close()


def main() -> None:
    """Entry point of the ``heedful`` console script.

    Heedful errors and usage errors (missing or malformed options) become one line on stderr
    and exit code 2, instead of Click's multi-line usage box.
    """
    try:
        code = app(standalone_mode=False)
    except HeedfulError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except typer.Abort:
        typer.echo("Aborted!", err=True)
        sys.exit(1)
    except Exception as exc:
        # Click's ClickException, whether typer vendors Click (≥ 0.20) or depends on it.
        if not any(c.__name__ == "ClickException" for c in type(exc).__mro__):
            raise
        status = int(getattr(exc, "exit_code", 2))
        if type(exc).__name__ == "NoArgsIsHelpError":
            sys.exit(status)  # a bare command group has already printed its help
        ctx = getattr(exc, "ctx", None)
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        typer.echo(f"error: {exc.format_message()}{hint}", err=True)  # type: ignore[attr-defined]
        sys.exit(status)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
