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
        True,
        "--engine/--no-engine",
        help="Run the engine's heartbeat in the background (on by default; it observes unless "
        "the operator raised the ceiling).",
    ),
    autonomy: str | None = typer.Option(
        None,
        "--autonomy",
        help="Heartbeat autonomy: observe | advise | act (default: config); refused above the "
        "ceiling.",
    ),
    max_autonomy: str | None = typer.Option(
        None,
        "--max-autonomy",
        help="The operator's autonomy ceiling: observe (default) | advise | act. Clients can "
        "only ask for this level or less.",
    ),
    token: str | None = typer.Option(
        None,
        "--token",
        envvar="HEEDFUL_MCP_TOKEN",
        show_envvar=True,
        help="With --transport http: the one bearer token clients must send (session "
        "'default'). Default: the token file.",
    ),
    token_file: str | None = typer.Option(
        None,
        "--token-file",
        help="With --transport http: NAME TOKEN lines, mode 600 (default: <db>.mcp-tokens, "
        "created with one token on first start).",
    ),
    shared_store: bool = typer.Option(
        False,
        "--shared-store",
        help="With --transport http: every token's session uses the --db store (each still "
        "has its own turns and candidates). Default: sessions other than 'default' get "
        "their own store beside it.",
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
        # The SDK or any of its own dependencies (anyio is imported first): the extra is missing.
        missing = (exc.name or "").split(".")[0]
        if missing in ("", "heedful"):
            raise
        raise fail(
            f"the MCP server needs the 'mcp' extra ({missing} is not installed); install it "
            f"with: {extra_hint('mcp')}"
        ) from None
    from heedful.engine import EngineConfig, load_engine_config
    from heedful.engine.governance import check_override, load_ampersand, parse_level, with_ceiling
    from heedful.integrations.mcp.auth import (
        DEFAULT_SESSION,
        TokenFile,
        check_token,
        ensure_tokens,
        is_loopback,
        token_file_for,
    )
    from heedful.integrations.mcp.backend import SessionBackends

    if autonomy is not None:
        parse_level(autonomy)
    if max_autonomy is not None:
        parse_level(max_autonomy)
    if heartbeat_ms is not None and not heartbeat_ms > 0:
        raise fail(f"--heartbeat-ms must be a positive number, not {heartbeat_ms:g}")
    engine_config = load_engine_config(config) if config is not None else EngineConfig()
    if governance is not None:
        engine_config = load_ampersand(governance, base=engine_config)
    if max_autonomy is not None:
        engine_config = with_ceiling(engine_config, max_autonomy)
    if heartbeat_ms is not None:
        engine_config = engine_config.with_overrides(heartbeat_ms=heartbeat_ms)
    if autonomy is not None and engine:
        check_override(parse_level(autonomy), engine_config.governance.max_level)
    tokens: dict[str, str] = {}
    followed: TokenFile | None = None
    notes: list[str] = []
    if transport == "http":
        if token is not None:
            tokens = {DEFAULT_SESSION: check_token(token, "--token")}
        else:
            path = token_file or token_file_for(db)
            tokens, created = ensure_tokens(path)
            followed = TokenFile(path)  # read again when it changes: no restart for a new token
            if created:
                notes.append(
                    f"created the access token file {path} (mode 600); clients send "
                    "'Authorization: Bearer <token>' (docs/mcp.md)"
                )
        if not is_loopback(host):
            notes.append(
                f"warning: --host {host} is not a loopback address: clients on the network "
                "send their bearer token in clear text (heedful serves plain HTTP; there is "
                "no --tls) — put a TLS-terminating proxy in front, or bind 127.0.0.1"
            )

    def ready(url: str) -> None:
        for note in notes:
            typer.echo(note, err=True)
        typer.echo(f"serving MCP on {url}", err=True)

    backend = open_backend(db, engine_config, heartbeat=engine, autonomy=autonomy)
    sessions = SessionBackends(
        backend, next(iter(tokens), DEFAULT_SESSION), db, engine_config, shared_store=shared_store
    )
    try:
        if transport == "stdio":
            serve_stdio(backend)
        else:
            serve_http(
                sessions,
                host,
                port,
                ready=ready,
                tokens=followed if followed is not None else tokens,
            )
    except KeyboardInterrupt:
        pass  # Ctrl-C is how an HTTP server is stopped, not an error
    finally:
        sessions.close()


@mcp_app.command("token")
def mcp_token_command(
    db: str = typer.Option(..., "--db", help="The store the HTTP server serves."),
    name: str = typer.Option(
        "default", "--name", help="Session name (a new name gets a new token and session)."
    ),
    token_file: str | None = typer.Option(
        None, "--token-file", help="Token file (default: <db>.mcp-tokens)."
    ),
) -> None:
    """Print the bearer token of a session, creating it (and the mode-600 file) if needed."""
    from heedful.integrations.mcp.auth import add_token, token_file_for

    path = token_file or token_file_for(db)
    token, created = add_token(path, name)
    if created:
        typer.echo(f"added session {name!r} to {path}", err=True)
    typer.echo(token)
