from __future__ import annotations

import json

from typer.testing import CliRunner

from heedful.cli import app


def test_json_prints_one_object_per_turn() -> None:
    result = CliRunner().invoke(
        app, ["salience", "--json", "The server is down! Fix it immediately!", "about the server"]
    )
    assert result.exit_code == 0
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [r["turn"] for r in lines] == [1, 2]
    assert lines[0]["urgency"] == 2 / 7
    assert lines[1]["focus_duration"] == 2


def test_text_output_names_every_field() -> None:
    result = CliRunner().invoke(app, ["salience", "The server is down! Fix it immediately!"])
    assert result.exit_code == 0
    for name in ("urgency", "topics", "focus_duration", "priority_tools", "context_filter"):
        assert name in result.output
    assert "0.286 (2/7 words)" in result.output


def test_fragments_are_filtered_per_turn() -> None:
    result = CliRunner().invoke(
        app, ["salience", "--json", "-f", "Docker ports", "-f", "Python venv", "about Docker"]
    )
    assert json.loads(result.output)["fragments"] == ["Docker ports"]


def test_missing_text_exits_2() -> None:
    assert CliRunner().invoke(app, ["salience"]).exit_code == 2
