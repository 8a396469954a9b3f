"""The root ``heedful`` app, ``main()`` and the error handling shared by every command group."""

from __future__ import annotations

import os
import sys
from typing import IO, TYPE_CHECKING, Any

import typer
from typer.core import TyperGroup

from heedful import __version__
from heedful.cli._checks import check_commands
from heedful.errors import HeedfulError
from heedful.extras import extra_hint

if TYPE_CHECKING:
    from rich.console import Console


class _HeedfulGroup(TyperGroup):
    """Root group: a :class:`HeedfulError` from any command becomes one line and exit 2.

    Handling it here (not only in :func:`main`) keeps the behaviour the same when the app is
    invoked directly, as Typer's test runner does.
    """

    def main(self, *args: Any, **kwargs: Any) -> Any:
        # Every subcommand is attached by now (Typer adds them after building this group).
        name_placeholders(self)
        check_commands(self)  # ranges and paths refused before a command's body runs
        from heedful.cli._complete import complete_names

        complete_names(self)
        return super().main(*args, **kwargs)

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
    # `heedful --install-completion` / `--show-completion` (bash, zsh, fish, PowerShell).
    add_completion=True,
)

#: Placeholders of option values in help: what the value *is* (Typer would print the Python
#: type, ``<str>``, ``<int>``); options not listed get one from their type (``N``, ``NUMBER``)
#: or their name.
PLACEHOLDERS: dict[str, str] = {
    "--scenarios": "PATH",
    "--family": "CODES",
    "--count": "N",
    "--policies": "NAMES",
    "--policy": "NAME",
    "--trials": "N",
    "--seed": "N",
    "--out": "PATH",
    "--holdout": "DIR",
    "--condition": "NAME",
    "--model": "NAME",
    "--base-url": "URL",
    "--api-key-env": "VAR",
    "--concurrency": "N",
    "--mode": "NAME",
    "--temperature": "T",
    "--max-tokens": "N",
    "--timeout": "SECONDS",
    "--retries": "N",
    "--cache": "FILE",
    "--model-file": "FILE",
    "--shift": "DISTANCE",
    "--workers": "N",
    "--backend": "NAME",
    "--address": "ADDRESS",
    "--db": "FILE",
    "--resume": "RUN_DIR",
    "--key-file": "FILE",
    "--metric": "NAME",
    "--min-diff": "DIFF",
    "--power": "POWER",
    "--config": "FILE",
    "--triage": "METHOD",
    "--governance": "NAME",
    "--autonomy": "LEVEL",
    "--max-autonomy": "LEVEL",
    "--token-file": "FILE",
    "--transport": "NAME",
    "--fragment": "TEXT",
    "--history": "FILE",
    "--heartbeat-ms": "MS",
    "--latency-ms": "MS",
    "--behaviour": "NAME",
}
_BY_TYPE = {"int": "N", "float": "NUMBER", "Path": "PATH"}


def _no_type(ctx: Any) -> None:
    return None


def _flag_help(command: Any) -> None:
    """``--help`` is made per invocation (Click's ``get_help_option``): a flag, no placeholder."""
    make = command.get_help_option
    if getattr(make, "_heedful", False):
        return

    def get_help_option(ctx: Any) -> Any:
        option = make(ctx)
        if option is not None:
            option.metavar = ""
        return option

    get_help_option._heedful = True  # type: ignore[attr-defined]
    command.get_help_option = get_help_option


def name_placeholders(group: Any) -> None:
    """Give every option of ``group`` and its subcommands a placeholder that says what its value
    is (see :data:`PLACEHOLDERS`); a flag gets none (it takes no value)."""
    for command in getattr(group, "commands", {}).values():
        name_placeholders(command)
    _flag_help(group)
    for param in getattr(group, "params", []):
        if getattr(param, "param_type_name", "") == "argument":
            # Its name (FILE..., RESULTS) already says what it is: no Python type beside it.
            param.display_type_rich = _no_type
            if param.metavar is None and param.name:
                param.metavar = param.name.upper() + ("..." if param.nargs != 1 else "")
            continue
        # Duck-typed: Typer ≥ 0.20 vendors its own Click, whose classes are not click's.
        if getattr(param, "param_type_name", "") != "option" or param.metavar is not None:
            continue
        if param.is_flag or param.count:
            param.metavar = ""
            continue
        long = max(param.opts, key=len)
        kind = param.bare_type() if hasattr(param, "bare_type") else ""
        param.metavar = PLACEHOLDERS.get(long) or _BY_TYPE.get(
            kind, long.lstrip("-").upper().replace("-", "_")
        )


def fail(message: str) -> typer.Exit:
    """Print one clear error line and return the exit to raise (code 2)."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)


#: Width of tables written to a pipe or file when ``COLUMNS`` does not say.
PIPED_WIDTH = 160


class _TrimmedLines:
    """A text stream that drops the spaces Rich pads lines with (a centred title, a table cell
    at the end of a line): piped output carries no trailing blanks."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.pending = ""

    def write(self, text: str) -> int:
        self.pending += text
        *lines, self.pending = self.pending.split("\n")
        for line in lines:
            self.out.write(line.rstrip(" ") + "\n")
        return len(text)

    def flush(self) -> None:
        if self.pending:
            self.out.write(self.pending.rstrip(" "))
            self.pending = ""
        self.out.flush()

    def isatty(self) -> bool:
        return False


def output_width(stream: IO[str] | None = None) -> int | None:
    """Columns for terminal output: ``COLUMNS`` when set, else the terminal's (``None``: ask
    it), else :data:`PIPED_WIDTH` for a pipe or a file."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    stream = stream or sys.stdout
    return None if stream.isatty() else PIPED_WIDTH


def console(*, stderr: bool = False) -> Console:
    """A console for tables: ``COLUMNS`` wide when set, else the terminal's width, else
    :data:`PIPED_WIDTH` columns — and, piped, without trailing padding.

    Markup is off: tables hold user text (goal titles, scenario ids, family labels) that Rich
    would otherwise read as tags — ``[/x]`` in a title was a traceback.
    """
    from rich.console import Console  # on first use: `heedful -V` and refusals need no Rich

    stream = sys.stderr if stderr else sys.stdout
    file: Any = stream if stream.isatty() else _TrimmedLines(stream)
    return Console(width=output_width(stream), markup=False, file=file)


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
        "-V",
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
    from heedful.cli import registered

    registered()  # every command group, once
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
