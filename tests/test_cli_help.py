"""Every command's ``--help`` shows each option's help text whole, and fits 80 columns.

Typer renders help with Rich markup, so text such as ``heedful[ray]`` loses its ``[ray]``
unless escaped; this walks every command so no help string can lose a piece silently.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import typer
import typer.rich_utils
from typer.testing import CliRunner

from heedful.cli import app

ROOT = typer.main.get_command(app)


def _commands(cmd: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    out = [(path, cmd)]
    for name, sub in sorted(getattr(cmd, "commands", {}).items()):  # a group's subcommands
        out += _commands(sub, (*path, name))
    return out


COMMANDS = _commands(ROOT)


def _flat(text: str) -> str:
    """Help text without box drawing and line breaks: words separated by single spaces."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())


def _help(path: tuple[str, ...], columns: int, monkeypatch: pytest.MonkeyPatch) -> str:
    # Typer reads TERMINAL_WIDTH once, at import; set the width it derived from it.
    monkeypatch.setattr(typer.rich_utils, "MAX_WIDTH", columns)
    result = CliRunner().invoke(app, [*path, "--help"])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=lambda p: " ".join(p) or "heedful")
def test_help_shows_every_option_help_whole(
    path: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    cmd = dict(COMMANDS)[path]
    shown = _flat(_help(path, 1000, monkeypatch))
    for param in cmd.params:
        text = getattr(param, "help", None)
        if text and not getattr(param, "hidden", False):
            assert _flat(text).replace("\\[", "[") in shown, (param.name, text)
    assert "``" not in shown


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=lambda p: " ".join(p) or "heedful")
def test_help_fits_80_columns(path: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _help(path, 80, monkeypatch).splitlines()
    assert max(len(line) for line in lines) <= 80
