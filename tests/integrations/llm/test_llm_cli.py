"""`heedful bench run --policies llm …` and `heedful agent serve-scripted`, offline."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from heedful.bench.results import load_results
from heedful.cli import main


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    old = sys.argv
    sys.argv = ["heedful", *args]
    try:
        main()
    except SystemExit as exc:
        code = int(exc.code or 0)
    finally:
        sys.argv = old
    out = capsys.readouterr()
    return code, out.out, out.err


def test_bench_run_scores_a_model_endpoint_offline(
    scripted: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    monkeypatch.setenv("HEEDFUL_CLI_KEY", "sk-cli-secret-999")
    server = scripted("careful")
    code, out, err = _cli(
        ["bench", "run", "--family", "B", "--count", "2", "--trials", "1",
         "--policies", "llm,llm-advised,voc", "--model", "scripted",
         "--base-url", server.base_url, "--api-key-env", "HEEDFUL_CLI_KEY",
         "--mode", "both", "--concurrency", "4", "--cache", str(tmp_path / "c.sqlite"),
         "--out", str(tmp_path / "run")],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert "llm-advised@production" in out
    text = (tmp_path / "run" / "results.json").read_text()
    assert "sk-cli-secret" not in text
    assert b"sk-cli-secret" not in (tmp_path / "c.sqlite").read_bytes()
    data = json.loads(text)
    agent = data["manifest"]["agent"]
    assert agent["mode"] == "both"
    llm = agent["agents"]["llm"]
    assert llm["model"] == "scripted" and llm["endpoint_host"] == f"127.0.0.1:{server.port}"
    assert len(llm["prompt_template_hash"]) == 64 and len(llm["tool_schema_hash"]) == 64
    assert {r["mode"] for r in data["aggregates"]["agents"]["modes"]} == {"attention", "production"}
    trials = load_results(tmp_path / "run" / "results.json").trials  # records file beside it
    modes = {(r.policy, r.mode) for r in trials if r.policy.startswith("llm@")}
    assert modes == {("llm@production", "production")}
    assert (tmp_path / "run" / "report.html").exists()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--policies", "llm"], "--model and --base-url"),
        (["--policies", "llm", "--model", "m"], "--model and --base-url"),
        (["--policies", "llm", "--model", "m", "--base-url", "localhost:1"], "--base-url"),
        (["--policies", "llm", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
          "--api-key-env", "HEEDFUL_SURELY_UNSET"], "HEEDFUL_SURELY_UNSET is not set"),
        (["--policies", "llm", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
          "--mode", "sideways"], "--mode"),
        (["--policies", "llm", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
          "--concurrency", "0"], "--concurrency"),
        (["--policies", "llm,llm", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"],
         "twice"),
        (["--policies", "llm", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
          "--moves", "some"], "--moves must be auto, legal or all"),
        (["--policies", "voc", "--moves", "some"], "--moves must be auto, legal or all"),
    ],
)  # fmt: skip
def test_bad_agent_options_are_one_line_and_exit_2(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = _cli(["bench", "run", "--count", "1", "--out", str(tmp_path), *args], capsys)
    assert code == 2
    assert needle in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_serve_scripted_refuses_an_unknown_behaviour(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _cli(["agent", "serve-scripted", "--behaviour", "psychic"], capsys)
    assert code == 2 and "unknown behaviour 'psychic'" in err


def test_serve_scripted_answers_over_http(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "heedful.cli", "agent", "serve-scripted", "--port", "0"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert "scripted agent 'careful' on http://127.0.0.1:" in line
        url = line.split(" on ", 1)[1].strip()
        import urllib.request

        with urllib.request.urlopen(url + "/models", timeout=5) as resp:
            assert json.loads(resp.read())["data"][0]["id"] == "scripted"
    finally:
        proc.terminate()
        proc.wait(5)
        if proc.stderr is not None:
            proc.stderr.close()


@pytest.mark.parametrize("width", [80, 60])
def test_agent_progress_line_fits_the_terminal_so_carriage_return_rewrites_it(
    width: int,
) -> None:
    import io

    from rich.console import Console

    from heedful.bench.agents.contract import CallStats
    from heedful.bench.agents.runner import AgentProgress
    from heedful.cli.agent import _progress_printer, progress_line

    out = io.StringIO()
    show = _progress_printer(Console(file=out, width=width, color_system=None))
    usage = CallStats(
        calls=30_000,
        cached_calls=2_500,
        prompt_tokens=123_456_789,
        completion_tokens=1_234_567,
        errors=12,
    )
    for done in (1, 9_999, 10_000):
        show(AgentProgress(total=10_000, done=done, flagged=3, usage=usage))
    lines = [line for line in out.getvalue().replace("\r", "\n").splitlines() if line]
    assert len(lines) == 3 and all(len(line) < width for line in lines), lines
    small = AgentProgress(total=80, done=4, usage=CallStats(calls=8, prompt_tokens=23_250))
    assert progress_line(small).startswith(
        "agents 4/80 trials · 8 calls (0 cached) · 23.2k+0 tokens"
    )
    if width == 80:  # every figure still shown
        assert "10000/10000" in lines[-1] and "123.5M+1.2M" in lines[-1], lines
        assert "(2500 cached)" in lines[-1] and "12 err" in lines[-1] and "3 flagged" in lines[-1]


def test_a_holdout_run_with_an_agent_writes_no_prompt_into_the_project(
    scripted: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    """Red team: the response cache holds every request (the draw names the hold-out id, the
    messages hold its task, sources and tool results). Its default, `runs/llm-cache.sqlite`,
    lies in the working directory — often the project the agent can read next time."""
    from heedful.bench.worlds.holdout import make_holdout

    heldout = tmp_path / "private" / "heldout"
    made = make_holdout(["B"], 2, tmp_path / "private" / "key", heldout, cwd=tmp_path / "x")
    ids = [f.stem for f in made.files]
    project = tmp_path / "project"
    project.mkdir()
    # "The project" is a git checkout (a plain working directory is not one).
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    monkeypatch.chdir(project)
    server = scripted("careful")
    run = ["bench", "run", "--holdout", str(heldout), "--trials", "1", "--policies", "llm",
           "--model", "scripted", "--base-url", server.base_url]  # fmt: skip
    code, _, err = _cli(run, capsys)
    assert code == 0, err
    written = [p for p in project.rglob("*") if p.is_file()]
    assert written and not any(p.name.endswith(".sqlite") for p in written)
    for p in written:
        assert not any(i.encode() in p.read_bytes() for i in ids), p
    code, _, err = _cli([*run, "--cache", str(project / "c.sqlite")], capsys)
    assert code == 2 and "--no-cache" in err
    assert not (project / "c.sqlite").exists()
    code, _, err = _cli([*run, "--cache", str(tmp_path / "private" / "c.sqlite")], capsys)
    assert code == 0, err


def test_progress_to_a_file_is_whole_lines_about_every_five_percent() -> None:
    from heedful.bench.agents.contract import CallStats
    from heedful.bench.agents.runner import AgentProgress
    from heedful.cli.agent import _progress_lines

    lines: list[str] = []
    show = _progress_lines(lines.append)
    p = AgentProgress(total=100, usage=CallStats(calls=3))
    for done in range(1, 101):
        p.done = done
        show(p)
    assert len(lines) == 20 and lines[-1].startswith("agents 100/100 trials")
    assert all("\r" not in line for line in lines)


def test_every_agent_table_shows_decided_and_protocol_errors_beside_the_score(
    scripted: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "broken" answers no chat completion: its agent never decides, and its rows say so — in
    # the ranked table (marked !), the agents table, --json and report.html — never a silent
    # score; the careful endpoint decides every trial.
    careful, broken = scripted("careful"), scripted("broken")
    runs = {}
    for name, server in (("careful", careful), ("broken", broken)):
        code, out, err = _cli(
            ["bench", "run", "--family", "G", "--count", "2", "--trials", "1",
             "--policies", "llm,voc", "--model", "scripted", "--base-url", server.base_url,
             "--retries", "0", "--no-cache", "--out", str(tmp_path / name)],
            capsys,
        )  # fmt: skip
        assert code == 0, err
        runs[name] = out
    ranked = [
        line for line in runs["careful"].splitlines() if line.startswith(" 1 ") or " llm " in line
    ]
    assert "decided" in runs["careful"] and "p.err" in runs["careful"]
    assert any("2/2" in line and line.rstrip().endswith("0") for line in ranked), ranked
    row = next(line for line in runs["broken"].splitlines() if " llm " in line and "/2" in line)
    assert "0/2!" in row
    assert "fewer than half of its trials" in runs["broken"]
    code, out, _ = _cli(["bench", "report", str(tmp_path / "broken" / "results.json")], capsys)
    html = (tmp_path / "broken" / "report.html").read_text()
    assert "<th>decided</th>" in html and "0/2!" in html and "<th>protocol errors</th>" in html
    code, out, err = _cli(
        ["bench", "run", "--family", "G", "--count", "2", "--trials", "1", "--policies",
         "llm,voc", "--model", "scripted", "--base-url", broken.base_url, "--retries", "0",
         "--no-cache", "--out", str(tmp_path / "json"), "--json"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    rows = {r["policy"]: r for r in json.loads(out)["policies"]}
    assert rows["llm"]["decided"] == 0 and rows["llm"]["agent_trials"] == 2
    assert rows["llm"]["protocol_errors"] == 2 and rows["llm"]["rarely_decided"] is True
    assert "decided" not in rows["voc"]  # the runner decides for a programmatic policy
