"""The root ``heedful`` app, ``main()`` and the error handling shared by every command group."""

from __future__ import annotations

import sys
from typing import Any

import typer
from rich.console import Console
from typer.core import TyperGroup

from heedful import __version__
from heedful.errors import HeedfulError
from heedful.extras import extra_hint


class _HeedfulGroup(TyperGroup):
    """Root group: a :class:`HeedfulError` from any command becomes one line and exit 2.

    Handling it here (not only in :func:`main`) keeps the behaviour the same when the app is
    invoked directly, as Typer's test runner does.
    """

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except HeedfulError as exc:
            raise fail(str(exc)) from None


app = typer.Typer(
    name="heedful",
    cls=_HeedfulGroup,
    help="Attention for persistent LLM agents, and a benchmark against an exact oracle.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def fail(message: str) -> typer.Exit:
    """Print one clear error line and return the exit to raise (code 2)."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)


def console() -> Console:
    """A console for tables: the terminal's width, or 160 columns when piped.

    Markup is off: tables hold user text (goal titles, scenario ids, family labels) that Rich
    would otherwise read as tags — ``[/x]`` in a title was a traceback.
    """
    return Console(width=None if sys.stdout.isatty() else 160, markup=False)


@app.command()
def version() -> None:
    """Print the heedful version."""
    typer.echo(__version__)


def _version_flag(value: bool) -> None:
    if value:
        typer.echo(__version__)
        raise typer.Exit()


def _start_tracing(ctx: typer.Context) -> None:
    """``HEEDFUL_OTEL=1``: spans for this command, flushed when it ends (docs/observability.md)."""
    from heedful import tracing

    if not tracing.requested():
        return
    try:
        from heedful.integrations.otel import instrument_from_env
    except ImportError:
        raise fail(
            f"{tracing.ENV_VAR} is set but the 'otel' extra is not installed; "
            f"install it with: {extra_hint('otel')}"
        ) from None
    stop = instrument_from_env()
    if stop is not None:
        ctx.call_on_close(stop)


@app.callback()
def _root(
    ctx: typer.Context,
    show_version: bool = typer.Option(
        False,
        "--version",
        callback=_version_flag,
        is_eager=True,
        help="Print the heedful version and exit.",
    ),
) -> None:
    """Attention for persistent LLM agents, and a benchmark against an exact oracle.

    Set HEEDFUL_OTEL=1 to record OpenTelemetry spans (the 'otel' extra; docs/observability.md).
    """
    _start_tracing(ctx)


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
