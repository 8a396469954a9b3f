"""One trial's attention trace as a timeline in report.html (document 000 §12)."""

from __future__ import annotations

import json
from pathlib import Path

from heedful.bench.report.page import render_html
from heedful.bench.report.timeline import TIMELINE_FILE, build_timeline, timeline_html
from heedful.bench.results import load_results
from heedful.bench.suite import run_to_folder


def _run(tmp_path: Path, policies: str, adaptive: bool = False) -> Path:
    out = tmp_path / "run"
    run_to_folder(
        families="E",
        count=2,
        policies=policies,
        trials=2,
        seed=3,
        adaptive=adaptive,
        out=out,
        progress=False,
    )
    return out


def test_a_controller_run_writes_the_replayed_trial_and_the_report_shows_it(
    tmp_path: Path,
) -> None:
    out = _run(tmp_path, "voc,random", adaptive=True)
    data = json.loads((out / TIMELINE_FILE).read_text())
    results = load_results(out / "results.json")
    worst = max(
        (t for t in results.trials if t.policy == "voc" and not t.uninformative),
        key=lambda t: t.regret,
    )
    assert (data["policy"], data["scenario_id"], data["trial"]) == (
        "voc",
        worst.scenario_id,
        worst.trial,
    )
    assert data["replayed_exactly"] is True and data["inspected"] == worst.inspected
    kinds = [e["event"] for e in data["events"]]
    assert "candidate_created" in kinds and "candidate_selected" in kinds
    if data["inspected"]:
        assert "resolved" in kinds  # adaptive: results arrive, so resolutions are traced
    health = data["health"]["voc"]
    assert health["replays"] == 2 * 2  # adaptive: every trial of both scenarios
    assert health["funnel"][-1]["selected"] == sum(
        len(t.inspected) for t in results.trials if t.policy == "voc"
    )
    page = (out / "report.html").read_text()
    assert "Attention trace of one trial" in page
    assert "Attention health of the controller policies" in page
    assert page.count("<tr class='ev-") == len(data["events"])


def test_no_controller_policy_means_no_timeline(tmp_path: Path) -> None:
    out = _run(tmp_path, "random")
    assert not (out / TIMELINE_FILE).exists()
    assert "Attention trace of one trial" not in (out / "report.html").read_text()


def test_a_sealed_run_gets_no_timeline(tmp_path: Path) -> None:
    out = _run(tmp_path, "voc")
    results = load_results(out / "results.json")
    sealed = results.model_copy(update={"sealed": True, "trials": [], "scenarios": []})
    assert build_timeline(sealed, []) is None


def test_event_text_is_escaped() -> None:
    data = {
        "policy": "voc",
        "scenario_id": "<script>x</script>",
        "family": "G",
        "trial": 0,
        "condition": "static",
        "value": 0.1,
        "v_star": 0.2,
        "regret": 0.1,
        "inspected": [],
        "events": [
            {
                "seq": 0,
                "turn_id": "turn-1",
                "event": "candidate_created",
                "candidate_id": "attn-1",
                "reason_code": "<b>",
                "detail": {"target": "<img src=x>"},
            }
        ],
    }
    page = timeline_html(data)
    assert "<script>" not in page and "<img" not in page and "&lt;img src=x&gt;" in page


def test_without_a_timeline_the_report_has_no_trace_section(tmp_path: Path) -> None:
    out = _run(tmp_path, "voc")
    results = load_results(out / "results.json")
    assert "Attention trace of one trial" not in render_html(results)
