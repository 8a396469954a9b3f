"""Every CLI command names an unknown flag — one line on stderr, exit 2 — whatever else it needs."""

from __future__ import annotations

from typing import Any

import pytest
import typer

from heedful.cli import app
from heedful.cli._app import main


def _leaves(cmd: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    subs = getattr(cmd, "commands", None)
    if not subs:
        return [path]
    return [leaf for name, sub in sorted(subs.items()) for leaf in _leaves(sub, (*path, name))]


LEAVES = _leaves(typer.main.get_command(app))


def test_the_walk_finds_the_commands() -> None:
    assert ("engine", "load") in LEAVES and ("scenario", "validate") in LEAVES
    assert len(LEAVES) > 20


@pytest.mark.parametrize("path", LEAVES, ids=" ".join)
def test_an_unknown_flag_is_named(
    path: tuple[str, ...], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.argv", ["heedful", *path, "--zz-unknown-flag", "1"])
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: "), err
    assert "--zz-unknown-flag" in err[0]
