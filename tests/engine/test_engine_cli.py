"""``heedful engine load|survey|cycle|run``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from heedful.cli import app
from heedful.engine.governance import with_ceiling

SEED = """
goals:
  - {id: ship-x, title: "deploy feature", status: active, priority: high}
  - {id: market, title: "market share", status: active, priority: critical}
  - {id: widgets, title: "quantum widgets", status: active}
nodes:
  - {id: d1, content: "deploy pipeline green", confidence: 0.95}
  - {id: d2, content: "deploy feature checklist approved", confidence: 0.95}
  - {id: m1, content: "market share grows with r&d", confidence: 0.9}
  - {id: m2, content: "r&d spend depends on market share revenue", confidence: 0.9}
edges:
  - {source: d1, target: d2, type: supports}
  - {source: m1, target: m2, type: causal}
  - {source: m2, target: m1, type: causal}
"""

runner = CliRunner()
# The commands run in process and read the default clock: pinned, two surveys see the same
# freshness (under load the real clock moved between them: 0.909999 for 0.91).
pytestmark = pytest.mark.usefixtures("fixed_clock")


@pytest.fixture
def db(tmp_path: Path) -> str:
    seed = tmp_path / "seed.yaml"
    seed.write_text(SEED)
    path = str(tmp_path / "mem.db")
    result = runner.invoke(app, ["engine", "load", str(seed), "--db", path])
    assert result.exit_code == 0, result.output
    assert "3 goals, 4 nodes, 3 edges" in result.output
    return path


def test_survey_prints_a_table(db: str) -> None:
    result = runner.invoke(app, ["engine", "survey", "--db", db])
    assert result.exit_code == 0
    assert "Attention map" in result.output
    assert "escalate" in result.output


def test_survey_json_lists_every_active_goal(db: str) -> None:
    result = runner.invoke(app, ["engine", "survey", "--db", db, "--json"])
    data = json.loads(result.output)
    assert {i["goal_id"] for i in data["attention_items"]} == {"ship-x", "market", "widgets"}


def test_cycle_json_in_act_mode_crystallizes_the_cycle(db: str) -> None:
    result = runner.invoke(
        app, ["engine", "cycle", "--db", db, "--autonomy", "act", "--max-autonomy", "act", "--json"]
    )
    data = json.loads(result.output)
    focus = next(d for d in data["dispatches"] if d["goal_id"] == "market")
    assert focus["mode"] == "focus" and focus["kappa_after"] == 0


def test_cycle_default_observe_changes_nothing(db: str) -> None:
    before = runner.invoke(app, ["engine", "survey", "--db", db, "--json"]).output
    result = runner.invoke(app, ["engine", "cycle", "--db", db])
    assert result.exit_code == 0 and "autonomy observe" in result.output
    assert runner.invoke(app, ["engine", "survey", "--db", db, "--json"]).output == before


def test_run_stops_after_requested_cycles(db: str) -> None:
    result = runner.invoke(
        app, ["engine", "run", "--db", db, "--cycles", "2", "--heartbeat-ms", "10", "--json"]
    )
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 2
    # The first cycle runs at start, the next one on the heartbeat.
    assert [line["trigger"] for line in lines] == ["start", "heartbeat"]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "heedful.cli", *args], capture_output=True, text=True, check=False
    )


def test_missing_store_is_one_line_and_exit_two(tmp_path: Path) -> None:
    proc = _cli("engine", "survey", "--db", str(tmp_path / "none.db"))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"error: no memory store at {tmp_path / 'none.db'} (create one with `heedful engine load`)"
    ]


def test_unknown_autonomy_is_one_line_and_exit_two(db: str) -> None:
    proc = _cli("engine", "cycle", "--db", db, "--autonomy", "bogus")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "unknown autonomy level 'bogus'" in proc.stderr


def test_bad_seed_file_names_the_field(tmp_path: Path) -> None:
    seed = tmp_path / "bad.yaml"
    seed.write_text("nodes:\n  - {id: a, confidence: 3}\n")
    proc = _cli("engine", "load", str(seed), "--db", str(tmp_path / "m.db"))
    assert proc.returncode == 2
    assert "nodes.0.confidence" in proc.stderr


def test_cycle_title_counts_results_not_dispatches_in_observe_mode(db: str) -> None:
    result = runner.invoke(app, ["engine", "cycle", "--db", db, "--autonomy", "observe"])
    assert result.exit_code == 0, result.output
    assert "item(s) surveyed, 3 deferred" in result.output
    assert "dispatched" not in result.output


def test_cycle_table_fits_80_columns_with_reasons_under_it(db: str) -> None:
    from rich.console import Console

    from heedful.engine import open_engine
    from heedful.engine.report import cycle_table

    engine = open_engine(db, must_exist=True)
    engine.configure(with_ceiling(engine.config, "act"))  # the operator grants act
    try:
        response = engine.run_cycle(autonomy_override="act")
    finally:
        engine.close()
    reasons = [d["reason"] for d in response["dispatches"] if d["reason"]]
    assert reasons
    for width in (80, 160):
        console = Console(width=width, record=True, color_system=None)
        console.print(cycle_table(response, width))
        text = console.export_text()
        assert max(len(line) for line in text.splitlines()) <= width
        flat = " ".join(text.split())
        if width == 80:
            # Narrow: the reason is one line under the table, not folded a word per row.
            assert all(" ".join(r.split()) in flat for r in reasons)
        else:  # wide: in its column, wrapped at word boundaries
            assert all(word in flat for r in reasons for word in r.split())
        headers = [cell.strip() for cell in text.split("┃")]
        assert ("ms" in headers) == (width == 160)  # narrow: the duration is in the caption


def test_journal_lines_fit_the_console(db: str) -> None:
    runner = CliRunner()
    assert (
        runner.invoke(
            app, ["engine", "cycle", "--db", db, "--autonomy", "act", "--max-autonomy", "act"]
        ).exit_code
        == 0
    )
    result = runner.invoke(app, ["engine", "journal", "--db", db])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines and max(len(line) for line in lines) <= 160  # piped: 160 columns
    assert lines[0].startswith("j-") and "T" not in lines[0].split()[1]


LONG_TITLE = "Migrate every billing account to the v2 ledger before the audit"


def _response_with_long_title(db: str, triage: str | None = None) -> tuple[dict, dict]:  # type: ignore[type-arg]
    from heedful.engine import open_engine

    engine = open_engine(db, must_exist=True)
    engine.configure(with_ceiling(engine.config, "act"))  # the operator grants act
    try:
        if triage is not None:
            engine.config = engine.config.with_overrides(
                triage=engine.config.triage.model_copy(update={"method": triage})
            )
        survey = engine.survey(include_idle=True)
        cycle = engine.run_cycle(autonomy_override="act")
    finally:
        engine.close()
    for item in survey["attention_items"]:
        item["goal_title"] = LONG_TITLE
    for d in cycle["dispatches"]:
        d["goal_title"] = LONG_TITLE
    return survey, cycle


def _words_whole(text: str, phrase: str) -> bool:
    return all(word in text.split() for word in phrase.split())


def test_survey_table_keeps_goal_words_whole_at_80_columns_under_voc_triage(db: str) -> None:
    from rich.console import Console

    from heedful.engine.report import survey_table

    survey, _ = _response_with_long_title(db, triage="voc")
    assert survey["attention_items"]
    console = Console(width=80, record=True, color_system=None)
    console.print(survey_table(survey))
    text = console.export_text()
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 80
    assert _words_whole(text, LONG_TITLE), text  # folded at spaces, not a few letters per line


def test_cycle_reasons_under_the_table_keep_a_long_goal_title_whole(db: str) -> None:
    from rich.console import Console

    from heedful.engine.report import cycle_table

    _, cycle = _response_with_long_title(db)
    assert any(d["reason"] for d in cycle["dispatches"])
    console = Console(width=80, record=True, color_system=None)
    console.print(cycle_table(cycle, 80))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert _words_whole(text, LONG_TITLE + ":"), text  # the title was cut at 30 characters


def test_journal_wraps_long_lines_at_80_columns_instead_of_cutting_them(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rich.console import Console

    import heedful.cli.engine as engine_cli
    from heedful.engine import open_engine

    assert (
        runner.invoke(
            app, ["engine", "cycle", "--db", db, "--autonomy", "act", "--max-autonomy", "act"]
        ).exit_code
        == 0
    )
    engine = open_engine(db, must_exist=True)
    try:
        entries = engine.journal_entries()
    finally:
        engine.close()
    expected = [e.summary for e in entries] + [line for e in entries for line in e.describe()]
    assert any(len(line) > 76 for line in expected), "the check needs a line to wrap"
    monkeypatch.setattr(engine_cli, "console", lambda: Console(width=80))
    result = runner.invoke(app, ["engine", "journal", "--db", db])
    assert result.exit_code == 0, result.output
    # The only "…" are the content cuts describe() marks (and the note saying so), none from
    # the width.
    notes = any(e.cuts_content() for e in entries)
    assert result.output.count("…") == sum(line.count("…") for line in expected) + notes
    assert max(len(line) for line in result.output.splitlines()) <= 80
    flat = " ".join(result.output.split())
    assert all(" ".join(line.split()) in flat for line in expected)


def test_engine_notices_are_wrapped_to_the_terminal() -> None:
    import logging

    from heedful.cli.engine import _WrappedLog

    record = logging.LogRecord("heedful.engine", logging.WARNING, "", 0, "word " * 60, None, None)
    lines = _WrappedLog(80).format(record).splitlines()
    assert len(lines) > 1 and all(len(line) <= 80 for line in lines)
    assert all(line.startswith("  ") for line in lines[1:])


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("survey", "--triage", "magic"), "--triage must be formula or voc, not 'magic'"),
        (
            ("run", "--heartbeat-ms", "-5", "--cycles", "1"),
            "--heartbeat-ms must be at least 1, not -5",
        ),
    ],
)
def test_bad_engine_option_names_the_flag(db: str, args: tuple[str, ...], expected: str) -> None:
    proc = _cli("engine", *args, "--db", db)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [f"error: {proc.stderr.strip()[7:]}"]
    assert expected in proc.stderr and "pattern" not in proc.stderr


def test_seed_file_that_is_not_a_mapping_says_so(tmp_path: Path) -> None:
    seed = tmp_path / "list.yaml"
    seed.write_text("- just\n- a list\n")
    proc = _cli("engine", "load", str(seed), "--db", str(tmp_path / "m.db"))
    assert proc.returncode == 2
    assert "must be a mapping with goals, nodes, edges and outcomes, not list" in proc.stderr
    assert "_SeedFile" not in proc.stderr


def test_journal_marks_cut_content_and_json_keeps_it_whole(db: str) -> None:
    from heedful.engine.journal import CONTENT_PREVIEW_CHARS

    assert (
        runner.invoke(
            app, ["engine", "cycle", "--db", db, "--autonomy", "act", "--max-autonomy", "act"]
        ).exit_code
        == 0
    )
    raw = runner.invoke(app, ["engine", "journal", "--db", db, "--json"])
    assert raw.exit_code == 0, raw.output
    entries = [json.loads(line) for line in raw.output.splitlines()]
    whole = [
        op["node"]["content"]
        for e in entries
        for op in e["ops"]
        if op["op"] == "add_node" and len(op["node"]["content"]) > CONTENT_PREVIEW_CHARS
    ]
    assert whole, "the example writes a node longer than the preview"
    text = runner.invoke(app, ["engine", "journal", "--db", db]).output
    assert all(content not in text for content in whole)  # cut in the summary lines...
    assert any(content[:40] in text for content in whole)  # ...but shown, up to the cut
    assert text.splitlines()[-1] == (
        f"(node content is cut at {CONTENT_PREVIEW_CHARS} characters, marked …; "
        "--json has it whole)"
    )


def test_run_json_stops_when_its_reader_leaves_not_at_the_next_heartbeat(db: str) -> None:
    """`heedful engine run --json | head -1`: the first cycle's line arrives, the reader closes
    the pipe, and the command ends — it used to wait for the next heartbeat's write (10 min
    here, so a regression is the timeout below, never a slow pass)."""
    args = ["engine", "run", "--db", db, "--json", "--heartbeat-ms", "600000"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "heedful.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        assert first["trigger"] == "start"
        proc.stdout.close()  # the reader leaves, as `head -1` does
        assert proc.wait(timeout=120) == 1  # as any heedful command whose output pipe closes
        assert proc.stderr is not None and "Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
