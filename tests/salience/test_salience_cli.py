from __future__ import annotations

import json
from pathlib import Path

import pytest
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


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "history.json"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_history_file_of_chat_messages_sets_focus(tmp_path: Path) -> None:
    history = [
        {"role": "user", "content": "Tell me about Docker"},
        {"role": "assistant", "content": "Docker is a container runtime."},
        {"role": "user", "content": [{"type": "text", "text": "more about Docker"}]},
    ]
    path = _write(tmp_path, json.dumps(history))
    result = CliRunner().invoke(app, ["salience", "--json", "--history", path, "about Docker"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert record["turn"] == 1
    assert record["focus_duration"] == 3


def test_history_from_stdin() -> None:
    result = CliRunner().invoke(
        app, ["salience", "--json", "--history", "-", "about Docker"], input='["about Docker"]'
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["focus_duration"] == 2


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "invalid JSON at line 1"),
        ('{"role": "user", "content": "x"}', "must be a list"),
        ('["ok", {"role": "robot", "content": "x"}]', "[1].role: unknown role 'robot'"),
        ('[{"role": "user", "content": 3}]', "[0].content: must be a string"),
    ],
)
def test_bad_history_file_is_one_line_exit_2(tmp_path: Path, content: str, message: str) -> None:
    path = _write(tmp_path, content)
    result = CliRunner().invoke(app, ["salience", "--history", path, "hello"])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_missing_history_file_exit_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["salience", "--history", str(tmp_path / "no.json"), "hi"])
    assert result.exit_code == 2
    assert "cannot read" in result.output
