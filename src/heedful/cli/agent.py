"""``heedful agent``: the scripted endpoint; and the agent options of ``heedful bench run``
(docs/llm.md). Thin: parses, builds settings, shows progress."""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import typer

from heedful.errors import InvalidArgumentError
from heedful.extras import extra_hint

if TYPE_CHECKING:
    from rich.console import Console

    from heedful.bench.agents.runner import AgentProgress
    from heedful.bench.agents.suite import AgentRun

agent_app = typer.Typer(help="LLM agents under test: the scripted endpoint.", no_args_is_help=True)


def register(root: typer.Typer) -> None:
    """Add the ``agent`` group to the root app."""
    root.add_typer(agent_app, name="agent")


#: Default response cache of ``bench run`` with an agent.
DEFAULT_CACHE = "runs/llm-cache.sqlite"


def build_agent_run(
    *,
    model: str | None,
    base_url: str | None,
    api_key_env: str | None,
    concurrency: int,
    mode: str,
    temperature: float,
    max_tokens: int,
    timeout: float,
    retries: int,
    cache: str | None,
    progress: bool | None,
    trial_timeout: float | None = None,
    max_reply_bytes: int = 2_000_000,
    max_turns: int = 16,
    protocol: str = "tools",
    moves: str = "auto",
) -> AgentRun | None:
    """The :class:`AgentRun` of the options, or ``None`` when no endpoint is given.

    Raises:
        InvalidArgumentError: one line naming the bad option.
    """
    from pydantic import ValidationError

    from heedful.bench.agents.contract import AgentConfig, AgentSettings
    from heedful.bench.agents.runner import MODES
    from heedful.bench.agents.suite import AgentRun

    # A bad --mode is refused even without an endpoint: a typo must not pass silently.
    if mode not in MODES:
        raise InvalidArgumentError(f"--mode must be one of {', '.join(MODES)}, not {mode!r}")
    if moves not in ("auto", "legal", "all"):
        raise InvalidArgumentError(f"--moves must be auto, legal or all, not {moves!r}")
    if model is None and base_url is None:
        return None
    if model is None or base_url is None:
        raise InvalidArgumentError("an agent endpoint needs both --model and --base-url")
    for flag, value in (("--temperature", temperature), ("--timeout", timeout)):
        if not math.isfinite(value):
            raise InvalidArgumentError(f"{flag} must be a finite number, not {value}")
    if concurrency < 1:
        raise InvalidArgumentError(f"--concurrency must be at least 1, not {concurrency}")
    if max_turns < 1:
        raise InvalidArgumentError(f"--max-turns must be at least 1, not {max_turns}")
    if protocol not in ("tools", "json"):
        raise InvalidArgumentError(f"--protocol must be tools or json, not {protocol!r}")
    try:
        settings = AgentSettings(
            model=model,
            base_url=base_url,
            api_key_env=api_key_env,
            temperature=temperature,
            max_tokens=max_tokens,
            timeout_s=timeout,
            trial_timeout_s=trial_timeout,
            max_reply_bytes=max_reply_bytes,
            protocol=protocol,  # type: ignore[arg-type]  # checked above
            moves=moves,  # type: ignore[arg-type]  # checked above
            retries=retries,
            cache=cache,
        )
    except ValidationError as exc:
        err = exc.errors()[0]
        option = {
            "base_url": "--base-url",
            "timeout_s": "--timeout",
            "trial_timeout_s": "--trial-timeout",
            "max_tokens": "--max-tokens",
            "max_reply_bytes": "--max-reply-bytes",
        }
        name = str(err["loc"][0]) if err["loc"] else "settings"
        raise InvalidArgumentError(f"{option.get(name, '--' + name)}: {err['msg']}") from None
    settings.check_key()
    tty = sys.stderr.isatty()
    show = tty if progress is None else progress
    return AgentRun(
        settings=settings,
        mode=mode,
        concurrency=concurrency,
        config=AgentConfig(max_turns=max_turns),
        # Output to a file or a pipe gets plain lines (at most about 20), not a redrawn bar.
        on_progress=(
            _progress_printer() if show else None if progress is False else _progress_lines()
        ),
        on_notice=_notice(tty and show),
    )


def _notice(tty: bool) -> Callable[[str], None]:
    """A line for stderr, on its own line even under a redrawn progress bar."""

    def say(line: str) -> None:
        print(("\n" if tty else "") + line, file=sys.stderr, flush=True)

    return say


@contextlib.contextmanager
def local_endpoint(model: str | None, base_url: str | None) -> Iterator[str | None]:
    """For ``--model local:…``: serve the model on loopback for the ``with`` block and yield
    its URL; otherwise yield ``None``.

    Raises:
        InvalidArgumentError: a local model with --base-url, or the `local` extra missing.
    """
    if model is None or not model.startswith("local:"):
        yield None
        return
    if base_url is not None:
        raise InvalidArgumentError(
            f"--base-url: --model {model} runs in process; it takes no endpoint"
        )
    try:
        from heedful.integrations.llm.local_server import serve_local
    except ImportError as exc:
        raise InvalidArgumentError(
            f"--model {model} needs the `local` extra ({exc.name} is not installed): "
            f"{extra_hint('local')}"
        ) from None
    with serve_local(model) as server:
        yield server.base_url


def _tokens(n: int) -> str:
    """A token count in at most five characters (``812``, ``92.2k``, ``1.3M``)."""
    if n < 1000:
        return str(n)
    if n < 999_950:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.1f}M"


def progress_line(p: AgentProgress, width: int = 80) -> str:
    """The agents' progress line, in the longest wording that fits ``width`` columns."""
    u = p.usage
    assert u is not None
    tok = f"{_tokens(u.prompt_tokens)}+{_tokens(u.completion_tokens)}"
    calls = f"{u.calls} calls ({u.cached_calls} cached)"
    lines = [
        f"agents {p.done}/{p.total} trials · {calls} · {tok} tokens · "
        f"{u.errors} errors · {p.flagged} flagged",
        f"{p.done}/{p.total} trials · {calls} · {tok} tok · {u.errors} err · {p.flagged} flagged",
        f"{p.done}/{p.total} · {calls} · {tok} tok · {u.errors} err · {p.flagged} flagged",
    ]
    return next((line for line in lines if len(line) < width), lines[-1][: width - 1])


def _progress_lines(write: Callable[[str], None] | None = None) -> Callable[[AgentProgress], None]:
    """Progress as whole lines on stderr, for output that is not a terminal: one about every
    5% of the trials, and the last."""
    out = write or (lambda line: print(line, file=sys.stderr, flush=True))

    def show(p: AgentProgress) -> None:
        step = max(1, p.total // 20)
        if p.done == p.total or p.done % step == 0:
            out(progress_line(p, 200))

    return show


def _progress_printer(console: Console | None = None) -> Callable[[AgentProgress], None]:
    from rich.console import Console as RichConsole

    console = console or RichConsole(stderr=True)

    def show(p: AgentProgress) -> None:
        # A line wider than the terminal wraps, and "\r" then rewrites only its last part: the
        # screen fills with stale copies. So the line always fits the terminal.
        line = progress_line(p, console.width)
        console.print(line, end="\r", highlight=False, markup=False)
        if p.done == p.total:
            console.print()

    return show


@agent_app.command("serve-local")
def serve_local_command(
    model: str = typer.Option(
        "local:smollm2-135m",
        "--model",
        help="local:smollm2-135m, local:gemma3-270m or local:PATH.gguf.",
    ),
    port: int = typer.Option(8098, "--port", help="Port to bind on loopback (0: any free)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Loopback address to bind."),
    n_ctx: int = typer.Option(8192, "--ctx", help="Context window in tokens."),
) -> None:
    """Serve a local model (no server, no download) as an OpenAI-compatible endpoint."""
    if not 0 <= port < 65536:
        raise InvalidArgumentError(
            f"--port must be between 0 (any free port) and 65535, not {port}"
        )
    if n_ctx < 256:
        raise InvalidArgumentError(f"--ctx must be at least 256 tokens, not {n_ctx}")
    if not model.startswith("local:"):
        raise InvalidArgumentError(f"--model must start with local:, not {model!r}")
    try:
        from heedful.integrations.llm.local_server import LocalServer
    except ImportError as exc:
        raise InvalidArgumentError(
            f"serve-local needs the `local` extra ({exc.name} is not installed): "
            f"{extra_hint('local')}"
        ) from None
    try:
        server = LocalServer(model, host=host, port=port, n_ctx=n_ctx)
    except OSError as exc:
        raise InvalidArgumentError(f"--port: cannot bind {host}:{port}: {exc.strerror}") from None
    typer.echo(f"{model} on {server.base_url}", err=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    server.close()


@agent_app.command("serve-scripted")
def serve_scripted(
    behaviour: str = typer.Option("careful", "--behaviour", help="The scripted agent to play."),
    port: int = typer.Option(8099, "--port", help="Port to bind on loopback (0: any free)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Loopback address to bind."),
    latency_ms: float = typer.Option(0.0, "--latency-ms", help="Delay added to every answer."),
) -> None:
    """Serve a scripted agent as an OpenAI-compatible endpoint (no model needed)."""
    import asyncio

    if not 0 <= port < 65536:
        raise InvalidArgumentError(
            f"--port must be between 0 (any free port) and 65535, not {port}"
        )
    if not 0 <= latency_ms < math.inf:  # also refuses nan (it served, every answer delayed nan)
        raise InvalidArgumentError(f"--latency-ms must be a finite number ≥ 0, not {latency_ms}")
    try:
        from heedful.integrations.llm import ScriptedServer
    except ImportError as exc:
        raise InvalidArgumentError(
            f"the scripted endpoint needs the `llm` extra ({exc.name} is not installed): "
            f"{extra_hint('llm')}"
        ) from None
    server = ScriptedServer(behaviour, host=host, port=port, latency_s=latency_ms / 1000.0)

    async def run() -> None:
        await server.start()
        typer.echo(f"scripted agent {behaviour!r} on {server.base_url}", err=True)
        await asyncio.Event().wait()

    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C is how a server stops, not an error
        try:
            asyncio.run(run())
        except OSError as exc:
            raise InvalidArgumentError(
                f"--port: cannot bind {host}:{port}: {exc.strerror}"
            ) from None
