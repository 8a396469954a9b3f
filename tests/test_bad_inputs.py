"""Regression suite of hostile and broken inputs: each is one line naming the file and what is
wrong (a limit also names how to raise it), exit code 2 — never a hang, a traceback or a
silent acceptance. Every input is generated here; nothing large is checked in.

The commands run in process through the console entry point (``main``), which is what a user
gets; how long each takes is measured by hand (docs/scenario-format.md "Input limits"), never
asserted here.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from heedful.cli._app import main
from heedful.memory import Store

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "examples" / "scenarios" / "deploy_a_or_b.yaml"


def _run(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, list[str]]:
    monkeypatch.setattr("sys.argv", ["heedful", *args])
    with pytest.raises(SystemExit) as info:
        main()
    code = info.value.code
    return (code if isinstance(code, int) else 0), capsys.readouterr().err.strip().splitlines()


def _one_line(
    args: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *expected: str,
) -> str:
    code, err = _run(args, monkeypatch, capsys)
    assert code == 2, err
    assert len(err) == 1 and err[0].startswith("error: "), err
    for text in expected:
        assert text in err[0], err[0]
    return err[0]


# --- files no command should work hard on -------------------------------------------------


def billion_laughs(path: Path) -> Path:
    """Nine levels of nine aliases each: 600 bytes that expand to 9^9 = 387 million strings."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    path.write_text("\n".join(lines) + "\n")
    assert len(path.read_bytes()) < 700
    return path


def huge_goal(path: Path) -> Path:
    """A seed file whose one goal has a 50 MB description."""
    with path.open("w") as fh:
        fh.write("goals:\n  - id: g\n    title: t\n    description: '")
        chunk = "x" * (1 << 20)
        for _ in range(50):
            fh.write(chunk)
        fh.write("'\n")
    return path


def long_string(path: Path) -> Path:
    path.write_text("goals:\n  - {id: g, title: '" + "t" * 1_000_001 + "'}\n")
    return path


def deep(path: Path) -> Path:
    path.write_text("a: " + "[" * 150 + "]" * 150 + "\n")
    return path


def recursive_alias(path: Path) -> Path:
    path.write_text("a: &a [1, *a]\n")
    return path


def invalid_utf8(path: Path) -> Path:
    path.write_bytes(b"goals:\n  - {id: g, title: caf\xe9}\n")
    return path


def huge_int(path: Path) -> Path:
    path.write_text("budget: " + "9" * 5000 + "\n")
    return path


BOMBS: dict[str, tuple[Callable[[Path], Path], tuple[str, ...]]] = {
    "billion-laughs": (billion_laughs, ("1,000,000 nodes", "HEEDFUL_MAX_INPUT_NODES")),
    "50-MB-goal": (huge_goal, ("bytes", "HEEDFUL_MAX_INPUT_BYTES")),
    "long-string": (long_string, ("characters in one string", "HEEDFUL_MAX_INPUT_STRING")),
    "deep": (deep, ("levels of nesting", "HEEDFUL_MAX_INPUT_DEPTH")),
    "recursive-alias": (recursive_alias, ("refers to itself",)),
    "invalid-utf8": (invalid_utf8, ("not UTF-8 text (byte 29",)),
    "huge-int": (huge_int, ("too many digits",)),
}


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = tmp_path / "m.db"
    Store.open(path, clock=lambda: 1.7e9).close()
    return str(path)


COMMANDS: dict[str, Callable[[str, str], list[str]]] = {
    "scenario validate": lambda f, db: ["scenario", "validate", f],
    "bench oracle": lambda f, db: ["bench", "oracle", f],
    "engine load": lambda f, db: ["engine", "load", f, "--db", db],
    "engine cycle --config": lambda f, db: ["engine", "cycle", "--db", db, "--config", f],
}


@pytest.mark.parametrize("bomb", list(BOMBS))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_hostile_file_is_one_line_naming_the_file_and_the_limit(
    tmp_path: Path,
    db: str,
    command: str,
    bomb: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    make, expected = BOMBS[bomb]
    path = make(tmp_path / "in.yaml")
    _one_line(COMMANDS[command](str(path), db), monkeypatch, capsys, str(path), *expected)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_dev_zero_is_refused_as_a_device_before_it_is_read(
    db: str, command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _one_line(
        COMMANDS[command]("/dev/zero", db),
        monkeypatch,
        capsys,
        "/dev/zero",
        "is a character device, not a regular file",
    )


def test_a_limit_is_raised_by_its_environment_variable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    validate = ["scenario", "validate", str(SCENARIO)]
    monkeypatch.setenv("HEEDFUL_MAX_INPUT_DEPTH", "3")
    _one_line(validate, monkeypatch, capsys, "more than 3 levels", "HEEDFUL_MAX_INPUT_DEPTH")
    monkeypatch.setenv("HEEDFUL_MAX_INPUT_DEPTH", "many")
    _one_line(validate, monkeypatch, capsys, "HEEDFUL_MAX_INPUT_DEPTH must be a positive")
    monkeypatch.setenv("HEEDFUL_MAX_INPUT_DEPTH", "1000")
    assert _run(validate, monkeypatch, capsys)[0] == 0


def test_results_and_history_files_go_through_the_same_loader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results.json"
    results.write_text("[" * 200 + "]" * 200)
    _one_line(["bench", "report", str(results)], monkeypatch, capsys, "levels of nesting")
    history = invalid_utf8(tmp_path / "history.json")
    _one_line(["salience", "hello", "--history", str(history)], monkeypatch, capsys, "byte 29")


def test_invalid_utf8_on_stdin_is_refused_with_its_offset(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b'["fine", "caf\xe9"]'), encoding="utf-8")
    monkeypatch.setattr("sys.stdin", stdin)
    _one_line(
        ["salience", "hello", "--history", "-"], monkeypatch, capsys, "stdin", "byte 13", "0xe9"
    )


# --- nonsense that used to be accepted ----------------------------------------------------


def _scenario_with(tmp_path: Path, **changes: Any) -> Path:
    raw = yaml.safe_load(SCENARIO.read_text())
    raw.update(changes)
    path = tmp_path / "changed.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return path


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"budget": True}, "budget: Input should be a valid integer"),
        ({"budget": "3"}, "budget: Input should be a valid integer"),
        ({"cost_weight": False}, "cost_weight: Input should be a valid number"),
        ({"cost_weight": float("inf")}, "not a finite number"),
        ({"id": "case\u200b1"}, "U+200B"),
        ({"id": "case\u202e1"}, "U+202E"),
        ({"id": "case\n1"}, "U+000A"),
        ({"id": "\ufeffcase"}, "U+FEFF"),
        ({"id": "case\x001"}, "U+0000"),
        ({"id": "c" * 100_000}, "at most 200 characters"),
        ({"bogus_field": 1}, "bogus_field"),
    ],
    ids=lambda v: repr(v)[:30],
)
def test_scenario_values_follow_the_one_input_policy(
    tmp_path: Path,
    changes: dict[str, Any],
    expected: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _scenario_with(tmp_path, **changes)
    _one_line(["scenario", "validate", str(path)], monkeypatch, capsys, str(path), expected)


@pytest.mark.parametrize(
    ("seed", "expected"),
    [
        ({"nodes": [{"id": "n\u200b"}]}, "nodes.0.id: Value error, ids must not contain"),
        ({"nodes": [{"id": "n", "confidence": True}]}, "nodes.0.confidence"),
        ({"nodes": [{"id": "n", "confidence": "0.5"}]}, "nodes.0.confidence"),
        ({"edges": [{"source": "a\nb", "target": "c"}]}, "U+000A"),
        ({"goals": [{"id": "g", "title": "t", "due_at": "2026-04-01T00:00:00"}]}, "timezone"),
        ({"goals": [{"id": "g", "title": "t", "description": "d" * 10_001}]}, "10000"),
        (
            {"goals": [{"id": "g", "title": "t", "linked_node_ids": ["ghost"]}]},
            "goals.0.linked_node_ids.0: unknown node 'ghost'",
        ),
        (
            {
                "goals": [
                    {"id": "g", "title": "t", "linked_node_ids": [f"n{i}" for i in range(200_000)]}
                ]
            },
            "at most 1000 nodes",
        ),
        ({"goals": [{"id": "g", "title": "t", "extra": 1}]}, "goals.0.extra"),
    ],
    ids=lambda v: repr(v)[:30],
)
def test_seed_values_follow_the_one_input_policy(
    tmp_path: Path,
    db: str,
    seed: dict[str, Any],
    expected: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "seed.json"
    path.write_text(json.dumps(seed))
    _one_line(["engine", "load", str(path), "--db", db], monkeypatch, capsys, expected)
    with Store.open(db, clock=lambda: 1.7e9) as store:
        assert store.list_goals() == []  # nothing of a refused file is written


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("heartbeat_ms: .inf\n", ".inf is not a finite number"),
        ("heartbeat_ms: 1.0e+999\n", "not a finite number"),
        ('{"heartbeat_ms": NaN}', "NaN is not a finite number"),
        ("heartbeat_ms: true\n", "heartbeat_ms"),
        ('heartbeat_ms: "500"\n', "heartbeat_ms"),
    ],
)
def test_engine_config_numbers_are_finite_and_strict(
    tmp_path: Path,
    db: str,
    text: str,
    expected: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / ("config.json" if text.startswith("{") else "config.yaml")
    path.write_text(text)
    _one_line(["engine", "cycle", "--db", db, "--config", str(path)], monkeypatch, capsys, expected)


@pytest.mark.parametrize(
    ("autonomy", "expected"),
    [
        ({"level": "advise", "budget": {"max_actions_per_hour": "3"}}, "max_actions_per_hour"),
        ({"level": "advise", "budget": {"max_actions_per_hour": True}}, "max_actions_per_hour"),
        ({"level": "advise", "heartbeat_seconds": 1e308}, "heartbeat_seconds"),
        ({"level": "advise", "heartbeat_seconds": "60"}, "heartbeat_seconds"),
        ({"level": "loud"}, "governance.autonomy.level"),
    ],
)
def test_governance_files_are_strict(
    tmp_path: Path,
    db: str,
    autonomy: dict[str, Any],
    expected: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "ampersand.json"
    path.write_text(json.dumps({"governance": {"autonomy": autonomy}}))
    _one_line(
        ["engine", "survey", "--db", db, "--governance", str(path)],
        monkeypatch,
        capsys,
        str(path),
        expected,
    )


def test_escalate_when_is_strict(
    tmp_path: Path, db: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ampersand.json"
    block = {"autonomy": {"level": "advise"}, "escalate_when": {"confidence_below": "0.5"}}
    path.write_text(json.dumps({"governance": block}))
    _one_line(
        ["engine", "survey", "--db", db, "--governance", str(path)],
        monkeypatch,
        capsys,
        "governance.escalate_when.confidence_below",
    )


def test_a_bad_seed_file_creates_no_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = tmp_path / "seed.yaml"
    seed.write_text("nodes:\n  - {id: x1, confidence: 7}\n")
    store = tmp_path / "new.db"
    _one_line(["engine", "load", str(seed), "--db", str(store)], monkeypatch, capsys, "nodes.0")
    assert not store.exists()


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b"[" * 5000 + b"]" * 5000, ":1: not a JSON line"),
        (b'{"kind": "entry", "x": NaN}', ":1: not a JSON line"),
        (b"[1, 2]", ":1: not a JSON object"),
        (b'{"kind": "entry", "id": "e1", "surprise": 1}', ":1: not a journal entry"),
        (b'{"kind": "entry", "note": "\xff"}', "not UTF-8 text (byte 27"),
    ],
)
def test_a_broken_journal_file_is_one_line_naming_it(
    db: str,
    line: bytes,
    expected: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    Path(db + ".journal.jsonl").write_bytes(line + b"\n")
    _one_line(["engine", "journal", "--db", db], monkeypatch, capsys, "journal", expected)


def test_a_journal_file_is_bounded_in_bytes(
    db: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    Path(db + ".journal.jsonl").write_bytes(b'{"kind": "undo", "entry_id": "x"}\n' * 100)
    monkeypatch.setenv("HEEDFUL_MAX_INPUT_BYTES", "1000")
    _one_line(
        ["engine", "journal", "--db", db],
        monkeypatch,
        capsys,
        "more than 1,000 bytes",
        "HEEDFUL_MAX_INPUT_BYTES",
    )
