"""``heedful mcp``: serve the attention tools over MCP."""

from __future__ import annotations

import typer

from heedful.cli._app import fail
from heedful.extras import extra_hint

mcp_app = typer.Typer(help="The MCP server.", no_args_is_help=True)


def register(root: typer.Typer) -> None:
    """Add the ``mcp`` group to the root app."""
    root.add_typer(mcp_app, name="mcp")


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
    engine: bool = typer.Option(
        False,
        "--engine",
        help="Run the engine's heartbeat in the background (also when the config has "
        "enabled: true). Off by default.",
    ),
    autonomy: str | None = typer.Option(
        None, "--autonomy", help="Heartbeat autonomy: observe | advise | act (default: config)."
    ),
    heartbeat_ms: float | None = typer.Option(
        None, "--heartbeat-ms", help="Heartbeat cadence in ms (default: config, 300000)."
    ),
    governance: str | None = typer.Option(
        None,
        "--governance",
        help="ampersand.json whose governance block (autonomy, budget, escalate_when) applies.",
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
            f"the MCP server needs the 'mcp' extra; install it with: {extra_hint('mcp')}"
        ) from None
    from heedful.engine import EngineConfig, load_engine_config
    from heedful.engine.governance import load_ampersand, parse_level

    if autonomy is not None:
        parse_level(autonomy)
    if heartbeat_ms is not None and not heartbeat_ms > 0:
        raise fail(f"--heartbeat-ms must be a positive number, not {heartbeat_ms:g}")
    engine_config = load_engine_config(config) if config is not None else EngineConfig()
    if governance is not None:
        engine_config = load_ampersand(governance, base=engine_config)
    if heartbeat_ms is not None:
        engine_config = engine_config.with_overrides(heartbeat_ms=heartbeat_ms)
    backend = open_backend(db, engine_config, heartbeat=engine, autonomy=autonomy)
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
