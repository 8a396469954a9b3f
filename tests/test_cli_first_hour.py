"""A new user's first hour: what broke when every documented command was tried (QA, round 2).

Each test failed before its fix: a loop that outlived its reader, a table that ignored
``COLUMNS``, flag values that were accepted though meaningless, and a misleading message.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from heedful.cli import app

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
URL = "http://127.0.0.1:9/v1"  # nothing listens there
# The commands run in process and read the default clock: pinned.
pytestmark = pytest.mark.usefixtures("fixed_clock")


def _store(tmp_path: Path) -> str:
    db = str(tmp_path / "agent.db")
    seed = str(ROOT / "examples/engine/seed.yaml")
    result = runner.invoke(app, ["engine", "load", seed, "--db", db])
    assert result.exit_code == 0, result.output
    return db


def test_engine_run_stops_when_its_reader_leaves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`heedful engine run --cycles 2 --json | head -c 300` ran forever (every 10 ms), logging a
    BrokenPipeError traceback per cycle: the failed print skipped the --cycles check."""
    import typer

    import heedful.cli.engine as engine_cli

    db = _store(tmp_path)
    calls: list[str] = []

    def closed_pipe(message: object = None, *args: object, **kwargs: object) -> None:
        calls.append(str(message))
        if len(calls) > 5:  # the old loop: end the test instead of running forever
            raise KeyboardInterrupt
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(engine_cli.typer, "echo", closed_pipe)
    assert engine_cli.typer is typer
    result = runner.invoke(
        app, ["engine", "run", "--db", db, "--cycles", "2", "--heartbeat-ms", "10", "--json"]
    )
    monkeypatch.undo()
    assert len(calls) == 1  # the reader left after the first cycle: no second one
    assert result.exit_code == 1  # as any heedful command whose reader leaves (Click's EPIPE)
    assert "Traceback" not in result.output


def test_bench_ablations_table_takes_columns(tmp_path: Path) -> None:
    """At COLUMNS=80 the ablation table was 160 columns wide (its own console ignored COLUMNS,
    which README's "Command line" promises every table honours)."""
    out = str(tmp_path / "abl")
    result = runner.invoke(
        app,
        ["bench", "ablations", "--family", "A", "--count", "1", "--trials", "1", "--out", out],
        env={"COLUMNS": "80"},
    )
    assert result.exit_code == 0, result.output
    # The table; the last two lines name the results and report files (paths do not wrap).
    lines = result.output.splitlines()[:-2]
    assert "Ablations" in lines[0] and result.output.splitlines()[-2].startswith("results: ")
    assert max(len(line) for line in lines) <= 80
    assert not [line for line in lines if line != line.rstrip()]  # piped: no trailing padding


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # Accepted and ignored without an agent endpoint: a typo ran the whole suite.
        (["bench", "run", "--mode", "nope", "--count", "1"], "--mode must be one of"),
        # nan failed pydantic's `≤ 2` check: "Input should be less than or equal to 2".
        (
            [
                "bench",
                "run",
                "--policies",
                "llm",
                "--model",
                "m",
                "--temperature",
                "nan",
                "--base-url",
                URL,
            ],
            "--temperature must be a finite number, not nan",
        ),
        # Served, every answer delayed by nan seconds.
        (["agent", "serve-scripted", "--latency-ms", "nan"], "--latency-ms must be a finite"),
        (["agent", "serve-scripted", "--latency-ms", "inf"], "--latency-ms must be a finite"),
    ],
)
def test_meaningless_flag_values_are_one_line_and_exit_two(
    args: list[str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import heedful.integrations.llm as llm

    def never_served(*args: object, **kwargs: object) -> None:
        raise AssertionError("the scripted endpoint started")  # (it would serve forever)

    monkeypatch.setattr(llm, "ScriptedServer", never_served)
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_bench_plan_of_a_switching_run_says_what_is_missing(tmp_path: Path) -> None:
    """A D/J pilot was refused with "a sealed hold-out has none": it is not a hold-out."""
    out = tmp_path / "dj"
    ran = runner.invoke(
        app, ["bench", "run", "--family", "D", "--count", "2", "--trials", "1", "--out", str(out)]
    )
    assert ran.exit_code == 0, ran.output
    result = runner.invoke(app, ["bench", "plan", str(out / "results.json"), "--min-diff", "3"])
    assert result.exit_code == 2
    assert "hold-out" not in result.output
    assert "inspection trials" in result.output and "this run has none" in result.output


def _example(*args: str, cwd: Path, block_gymnasium: bool = False) -> subprocess.CompletedProcess:
    script = ROOT / "examples" / args[0]
    code = (
        "import runpy, sys\n"
        + (
            "sys.modules['gymnasium'] = None  # as in a venv without the gym extra\n"
            * block_gymnasium
        )
        + f"sys.argv = {[str(script), *args[1:]]!r}\n"
        + f"runpy.run_path({str(script)!r}, run_name='__main__')\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_gym_example_without_the_extra_names_it_and_exits_two(tmp_path: Path) -> None:
    """docs/learn.md's `examples/gym/linear_policy.py` was a ModuleNotFoundError traceback."""
    proc = _example("gym/linear_policy.py", cwd=tmp_path, block_gymnasium=True)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "error: this example needs the `gym` extra: "
        ".venv/bin/pip install -e '.[gym]' (from the checkout's root)"
    ]


def test_real_models_example_passes_on_a_refusal_of_bad_input(tmp_path: Path) -> None:
    """When its `heedful bench run` refused bad input (exit 2, one line: in a core-only venv the
    missing `local` extra), the example added a second error line and exited 1."""
    proc = _example(
        "real_models.py", "--rounds", "1", "--max-tokens", "0", "--out", str(tmp_path / "rm"),
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert errors == ["error: --max-tokens must be at least 1, not 0"]


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        (["mcp", "serve"], "--max-autonomy LEVEL"),  # was MAX_AUTONOMY
        (["engine", "cycle"], "--max-autonomy LEVEL"),
        (["mcp", "token"], "--token-file FILE"),  # was TOKEN_FILE
        (["salience"], "--history FILE"),  # a JSON file, shown as TEXT
    ],
)
def test_help_placeholders_say_what_the_value_is(command: list[str], shown: str) -> None:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert shown in " ".join(result.output.split())


def test_every_command_summary_is_one_line() -> None:
    """`serve-local`'s summary held a line break: in `heedful agent --help` it broke off
    mid-sentence ("as an OpenAI-compatible" / "endpoint on loopback.") instead of wrapping."""
    import typer

    def walk(cmd: object, path: str) -> list[tuple[str, str]]:
        subs = getattr(cmd, "commands", {})
        summary = (getattr(cmd, "help", None) or "").strip().split("\n\n")[0]
        return [(path, summary)] + [walk_one for n, c in subs.items() for walk_one in walk(c, n)]

    broken = [p for p, s in walk(typer.main.get_command(app), "heedful") if "\n" in s]
    assert broken == []
