"""What users of a CLI expect: list, --json, --resume, -V, completion, placeholders, widths,
plurals and grammatical task text (issue 28)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from heedful import __version__
from heedful.bench.policy import policy_names
from heedful.bench.worlds.families import family_names
from heedful.cli import app
from heedful.wording import count, indefinite

runner = CliRunner()
EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "scenarios"


def _run(*args: str, env: dict[str, str] | None = None) -> str:
    result = runner.invoke(app, list(args), env=env)
    assert result.exit_code == 0, result.output
    return result.stdout


# -- heedful list ---------------------------------------------------------------------------


PIPE = {"COLUMNS": None}  # no terminal width: one line per row, for scripts


def test_list_policies_has_one_line_per_policy_and_agent() -> None:
    lines = _run("list", "policies", env=PIPE).splitlines()
    names = [line.split()[0] for line in lines]
    assert set(policy_names()) | {"llm", "llm-advised", "urgency-first"} <= set(names)
    assert len(names) == len(set(names))
    assert all(len(line.split(None, 3)) == 4 for line in lines)


def test_list_families_names_every_family_d_and_j_included() -> None:
    lines = _run("list", "families", env=PIPE).splitlines()
    codes = [line.split()[0] for line in lines]
    assert codes == sorted([*family_names(), "D", "J"])


def test_list_kinds_has_the_three_kinds() -> None:
    kinds = [line.split()[0] for line in _run("list", "kinds", env=PIPE).splitlines()]
    assert kinds == ["inspection", "switching", "schedule"]


@pytest.mark.parametrize("what", ["policies", "families", "kinds"])
def test_list_fits_a_terminal_80_columns_wide_wrapping_the_description(what: str) -> None:
    wide = _run("list", what, env=PIPE).splitlines()
    narrow = _run("list", what, env={"COLUMNS": "80"}).splitlines()
    assert max(len(line) for line in narrow) <= 80 < max(len(line) for line in wide)
    # A row still starts at column 0; its description continues on indented lines.
    rows = [line for line in narrow if not line.startswith(" ")]
    assert [r.split()[0] for r in rows] == [w.split()[0] for w in wide]
    assert " ".join(" ".join(narrow).split()) == " ".join(" ".join(wide).split())


# -- -V, completion, placeholders -----------------------------------------------------------


def test_short_version_flag_prints_the_version() -> None:
    assert _run("-V").strip() == __version__


def test_shell_completion_script_and_a_completion() -> None:
    assert "_HEEDFUL_COMPLETE" in _run("--show-completion", "bash")
    result = runner.invoke(
        app,
        [],
        env={"_HEEDFUL_COMPLETE": "complete_bash", "COMP_WORDS": "heedful be", "COMP_CWORD": "1"},
        prog_name="heedful",
    )
    assert "bench" in result.stdout


def _complete(words: str) -> list[str]:
    """What bash completion offers for the last word of ``words``."""
    cword = len(words.split()) - (0 if words.endswith(" ") else 1)
    env = {"_HEEDFUL_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(cword)}
    result = runner.invoke(app, [], env=env, prog_name="heedful")
    return result.stdout.split()


def test_completion_offers_policy_names() -> None:
    offered = _complete("heedful bench run --policies vo")
    assert {n for n in policy_names() if n.startswith("vo")} <= set(offered)
    assert all(n.startswith("vo") for n in offered)


def test_completion_completes_the_last_name_of_a_comma_list_once() -> None:
    assert _complete("heedful bench run --policies voc,ra") == ["voc,random"]
    assert "voc,voc" not in _complete("heedful bench run --policies voc,vo")


def test_completion_offers_family_codes_and_names_and_the_kinds_families() -> None:
    offered = _complete("heedful bench run --family ")
    assert {*family_names(), "D", "J", "budgeted", "schedule", "switching", "all"} <= set(offered)
    assert _complete("heedful scenario generate --family G,bud") == ["G,budgeted"]


def _commands(group: object, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [path]
    for name, sub in getattr(group, "commands", {}).items():
        found += _commands(sub, (*path, name))
    return found


@pytest.mark.parametrize(
    "path", _commands(typer.main.get_command(app)), ids=lambda p: " ".join(p) or "heedful"
)
def test_help_placeholders_say_what_a_value_is(path: tuple[str, ...]) -> None:
    text = _run(*path, "--help", env={"COLUMNS": "200"})
    assert not re.search(r"<(bool|str|int|float|list\[\w+\]|Path)>", text), text


def test_options_get_named_placeholders() -> None:
    text = _run("bench", "run", "--help", env={"COLUMNS": "200"})
    for option, placeholder in (("--out", "PATH"), ("--count", "N"), ("--base-url", "URL")):
        assert re.search(rf"{option}\s+{placeholder}\b", text), option
    assert re.search(r"--adaptive\s+Reveal", text)  # a flag takes no value: no placeholder


# -- widths ---------------------------------------------------------------------------------


def _lines(text: str) -> list[str]:
    return text.splitlines()


def test_oracle_table_fits_columns_and_has_no_padding() -> None:
    out = _run("bench", "oracle", str(EXAMPLES), env={"COLUMNS": "80"})
    assert max(len(line) for line in _lines(out)) <= 80
    piped = _run("bench", "oracle", str(EXAMPLES), env={"COLUMNS": ""})
    assert all(line == line.rstrip() for line in _lines(piped))
    assert max(len(line) for line in _lines(piped)) > 80  # piped without COLUMNS: wide


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("run") / "r"
    _run(
        *("bench", "run", "--family", "G,B", "--count", "2", "--trials", "2"),
        *("--policies", "random,oracle,voc", "--out", str(out), "--workers", "1", "--json"),
    )
    return out


def test_run_tables_fit_columns_and_have_no_padding(small_run: Path) -> None:
    out = _run("bench", "report", str(small_run / "results.json"), env={"COLUMNS": "80"})
    assert max(len(line) for line in _lines(out)) <= 80
    assert all(line == line.rstrip() for line in _lines(out))


@pytest.mark.usefixtures("fixed_clock")
def test_engine_run_wraps_at_columns(tmp_path: Path) -> None:
    seed = tmp_path / "seed.yaml"
    seed.write_text(
        "goals:\n  - {id: g, title: " + "a long goal title " * 8 + ", status: active}\n"
        "nodes:\n  - {id: n, content: deploy pipeline green, confidence: 0.9}\n"
    )
    db = str(tmp_path / "m.db")
    assert "1 goal, 1 node, 0 edges, 0 outcomes loaded" in _run(
        "engine", "load", str(seed), "--db", db
    )
    out = _run("engine", "run", "--db", db, "--cycles", "1", env={"COLUMNS": "70"})
    assert out.strip() and max(len(line) for line in _lines(out)) <= 70


# -- --json ---------------------------------------------------------------------------------


def test_bench_run_json_is_one_summary_object(tmp_path: Path) -> None:
    out = _run(
        *("bench", "run", "--family", "G", "--count", "2", "--trials", "1"),
        *("--policies", "random,oracle", "--out", str(tmp_path / "r"), "--json"),
    )
    summary = json.loads(out)  # nothing but the object on stdout
    assert summary["scenarios"] == 2 and summary["families"] == ["G"]
    assert [p["policy"] for p in summary["policies"]] == ["oracle", "random"]  # best first
    assert summary["policies"][0]["score"]["mean"] == pytest.approx(100.0)
    assert Path(summary["results"]).exists() and Path(summary["report"]).exists()


def test_top_level_run_json(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import heedful.bench.config as config

    small = config.DEFAULT_CONFIG.model_copy(
        update={"suite_families": ("G",), "suite_count": 1, "suite_trials": 1}
    )
    monkeypatch.setattr(config, "DEFAULT_CONFIG", small)
    summary = json.loads(_run("run", "--out", str(tmp_path / "r"), "--json", "--workers", "1"))
    assert summary["scenarios"] == 1 and summary["trials"] == 1
    assert {p["policy"] for p in summary["policies"]} >= {"oracle", "voc", "random"}


# -- --resume -------------------------------------------------------------------------------

RUN = ("bench", "run", "--family", "G,B", "--count", "3", "--trials", "2")
POLICIES = ("--policies", "random,oracle,voc,authority-first")


def _comparable(folder: Path) -> tuple[dict[str, object], bytes]:
    summary = json.loads((folder / "results.json").read_text())
    summary["manifest"].pop("created_utc")
    # The spec records each run's own --out and --workers (which never change the numbers).
    for key in ("out", "workers"):
        summary["manifest"].get("run_spec", {}).pop(key, None)
    return summary, (folder / "results.trials.jsonl.gz").read_bytes()


class _Killed(Exception):
    pass


def _killed_run(monkeypatch: pytest.MonkeyPatch, folder: Path) -> list[str]:
    """Start a run in ``folder`` that dies as it starts its fourth scenario; return the list
    that records every scenario played from then on (the patch stays for the test)."""
    import heedful.bench.run.runner as runner_module

    real = runner_module._run_scenario
    calls: list[str] = []

    def dies_at_the_fourth(scenario, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(scenario.id)
        if len(calls) == 4:
            raise _Killed
        return real(scenario, *args, **kwargs)

    monkeypatch.setattr(runner_module, "_run_scenario", dies_at_the_fourth)
    result = runner.invoke(app, [*RUN, *POLICIES, "--out", str(folder), "--workers", "1"])
    assert isinstance(result.exception, _Killed)
    assert not (folder / "results.json").exists()
    assert len(list((folder / ".partial").glob("scenario-*.json"))) == 3
    calls.clear()
    return calls


def test_resume_finishes_a_killed_run_with_the_uninterrupted_results(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    whole = tmp_path / "whole"
    _run(*RUN, *POLICIES, "--out", str(whole), "--workers", "1")
    killed = tmp_path / "killed"
    calls = _killed_run(monkeypatch, killed)
    _run("bench", "run", "--resume", str(killed), "--workers", "1")
    assert len(calls) == 3  # only the three scenarios the killed run had not finished
    assert _comparable(killed) == _comparable(whole)
    assert not (killed / ".partial").exists()


def test_resume_on_worker_processes_gives_the_same_results(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    whole = tmp_path / "whole"
    _run(*RUN, *POLICIES, "--out", str(whole), "--workers", "1")
    killed = tmp_path / "killed"
    _killed_run(monkeypatch, killed)
    monkeypatch.undo()
    _run("bench", "run", "--resume", str(killed), "--workers", "2")
    assert _comparable(killed) == _comparable(whole)


def _summary(folder: Path) -> dict[str, object]:
    """``results.json`` without what differs between two runs of the same spec (D/J trials are
    in it: a D/J-only run writes no trial records file)."""
    summary = json.loads((folder / "results.json").read_text())
    summary["manifest"].pop("created_utc")
    for key in ("out", "workers"):
        summary["manifest"].get("run_spec", {}).pop(key, None)
    return summary


def _killed_at(
    monkeypatch: pytest.MonkeyPatch, folder: Path, args: tuple[str, ...], nth: int
) -> tuple[list[str], list[str]]:
    """Start ``args`` in ``folder``, dying as it starts its ``nth`` D/J scenario; return the
    lists that record every inspection and every D/J scenario played from then on."""
    import heedful.bench.run.kinds as kinds_module
    import heedful.bench.run.runner as runner_module

    real_kind, real_inspection = kinds_module.play_scenario, runner_module._run_scenario
    kind_calls: list[str] = []
    inspection_calls: list[str] = []

    def kind_dies(kind, scenario, *args, **kwargs):  # type: ignore[no-untyped-def]
        kind_calls.append(scenario.id)
        if len(kind_calls) == nth:
            raise _Killed
        return real_kind(kind, scenario, *args, **kwargs)

    def inspection(scenario, *args, **kwargs):  # type: ignore[no-untyped-def]
        inspection_calls.append(scenario.id)
        return real_inspection(scenario, *args, **kwargs)

    monkeypatch.setattr(kinds_module, "play_scenario", kind_dies)
    monkeypatch.setattr(runner_module, "_run_scenario", inspection)
    result = runner.invoke(app, [*args, "--out", str(folder), "--workers", "1"])
    assert isinstance(result.exception, _Killed)
    assert not (folder / "results.json").exists()
    assert len(list((folder / ".partial").glob("kind-*.json"))) == nth - 1
    kind_calls.clear()
    inspection_calls.clear()
    return inspection_calls, kind_calls


def test_resume_finishes_a_killed_d_j_run_with_the_uninterrupted_results(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    run = ("bench", "run", "--family", "D,J", "--count", "3", "--trials", "2")
    whole = tmp_path / "whole"
    _run(*run, "--out", str(whole), "--workers", "1")
    killed = tmp_path / "killed"
    _, kind_calls = _killed_at(monkeypatch, killed, run, 4)
    _run("bench", "run", "--resume", str(killed), "--workers", "1")
    assert len(kind_calls) == 3  # only the three D/J scenarios the killed run had not finished
    assert _summary(killed) == _summary(whole)
    assert not (killed / ".partial").exists()


def test_resume_of_a_mixed_run_killed_in_its_d_j_scenarios_replays_neither_finished_part(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    run = ("bench", "run", "--family", "G,D", "--count", "2", "--trials", "2", *POLICIES)
    whole = tmp_path / "whole"
    _run(*run, "--out", str(whole), "--workers", "1")
    killed = tmp_path / "killed"
    inspection_calls, kind_calls = _killed_at(monkeypatch, killed, run, 2)
    _run("bench", "run", "--resume", str(killed), "--workers", "1")
    assert inspection_calls == []  # the G scenarios were finished before the kill
    assert len(kind_calls) == 1
    assert _summary(killed) == _summary(whole)
    whole_trials = (whole / "results.trials.jsonl.gz").read_bytes()
    assert (killed / "results.trials.jsonl.gz").read_bytes() == whole_trials


def test_resume_refuses_other_options_and_finished_or_foreign_folders(tmp_path: Path) -> None:
    result = runner.invoke(app, ["bench", "run", "--resume", str(tmp_path), "--trials", "3"])
    assert result.exit_code == 2 and "do not give --trials" in result.output
    result = runner.invoke(app, ["bench", "run", "--resume", str(tmp_path)])
    assert result.exit_code == 2 and "not an unfinished run folder" in result.output
    (tmp_path / "results.json").write_text("{}")
    result = runner.invoke(app, ["bench", "run", "--resume", str(tmp_path)])
    assert result.exit_code == 2 and "finished run" in result.output


# -- plurals and task text ------------------------------------------------------------------


def test_counts_and_articles() -> None:
    assert (count(1, "scenario"), count(3, "scenario")) == ("1 scenario", "3 scenarios")
    assert count(1, "family") == "1 family" and count(2, "family") == "2 families"
    assert indefinite("indexer change") == "an indexer change"
    assert indefinite("billing change") == "a billing change"
    assert indefinite("user store") == "a user store"


def test_generate_one_scenario_says_one_scenario(tmp_path: Path) -> None:
    out = _run(
        "scenario", "generate", "--family", "G", "--count", "1", "--out", str(tmp_path / "x")
    )
    assert out.strip().startswith("wrote 1 scenario to ")


def test_generated_task_text_has_no_a_before_a_vowel() -> None:
    from heedful.bench.kinds import generate_kind_family

    tasks = [s.view.task for s in generate_kind_family("D", 40, 0)]
    assert any(" an " in t for t in tasks)  # some systems start with a vowel (indexer, auth)
    assert not [t for t in tasks if re.search(r"\ba [aeiou]", t)]


def test_unknown_family_lists_d_and_j() -> None:
    result = runner.invoke(app, ["scenario", "generate", "--family", "Q"])
    assert result.exit_code == 2
    assert "D (switching)" in result.output and "J (schedule)" in result.output
