"""``heedful salience``: the five-subsystem pipeline of document 003 over a conversation."""

from __future__ import annotations

import sys
from typing import Any

import typer

from heedful.cli._app import fail
from heedful.errors import HeedfulError


def register(root: typer.Typer) -> None:
    """Add the top-level ``salience`` command to the root app."""
    root.command("salience")(salience_command)


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
    history: str | None = typer.Option(
        None,
        "--history",
        help="JSON file ('-': stdin) with the earlier turns: a list of strings or chat messages.",
    ),
) -> None:
    """Run the salience pipeline of document 003 over TEXTs as consecutive turns."""
    import json

    from heedful.salience import AttentionSystem, selective_filter, urgency_counts

    system = AttentionSystem()
    if history is not None:
        system.observe(_read_history(history))
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


def _read_history(path: str) -> Any:
    """The parsed JSON of a ``--history`` file; one clear line (exit 2) when unreadable."""
    from pathlib import Path

    from heedful.model.documents import (
        DEFAULT_LIMITS,
        parse_document,
        read_document,
        read_stream,
    )
    from heedful.salience import history_texts

    name = "stdin" if path == "-" else path
    try:
        if path == "-":
            limits = DEFAULT_LIMITS.from_env()
            text = read_stream(sys.stdin.buffer, name, limits)
            data = parse_document(text, name, json=True, limits=limits)
        else:
            data = read_document(Path(path), json_only=True)
        history_texts(data, where=f"{name}")
    except HeedfulError as exc:
        raise fail(f"--history {exc}") from None
    return data
