"""Attention health: the §5.3 funnel and the §25 signatures, computed from the trace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests_attention_time import NOW

from heedful.attention.config import HealthConfig
from heedful.attention.controller import Controller, Stop
from heedful.attention.health import HealthReport, health, rows_from_store
from heedful.memory import Store


def _ev(event: str, turn: int, cid: str | None = None, **fields: Any) -> dict[str, Any]:
    return {"event": event, "turn_id": f"turn-{turn}", "candidate_id": cid, **fields}


def _sig(report: HealthReport, name: str) -> str:
    return next(s.verdict for s in report.signatures if s.name == name)


def _run(ctl: Controller, turns: int) -> None:
    for _ in range(turns):
        ctl.about_to_claim("x")
        ctl.begin_turn(2)
        while not isinstance(step := ctl.next(), Stop):
            ctl.resolve(step.id, succeeded=True, observations={"x": "2"})


def _controller(store: Store | None = None) -> Controller:
    ctl = Controller(store, clock=lambda: NOW)
    ctl.register_source("a", reports=["x"], authority=0.8, kind="log", cost={"tool_calls": 1})
    ctl.record_belief("x", "1", domain=["1", "2"], age_s=7200, confidence=0.8, volatility="high")
    ctl.record_belief("orphan", "v", domain=["v", "w"], age_s=86400, volatility="high")
    return ctl


def test_the_funnel_counts_an_unserved_opportunity_and_flags_candidate_blindness() -> None:
    ctl = _controller()
    _run(ctl, 3)
    report = health(ctl.trace)
    total = report.funnel[-1]
    assert total.trigger == "all"
    # The orphan claim, stale but reported by no source, is an unserved opportunity every turn.
    assert total.opportunity == total.fired + 3
    assert total.selected == total.succeeded == total.used >= 3  # one read of "a" a turn
    assert total.selected <= total.candidate
    stale = next(r for r in report.funnel if r.trigger == "stale_belief")
    assert stale.opportunity == stale.fired + 3
    assert _sig(report, "candidate_blindness") == "warn"


def test_the_store_trace_gives_the_same_report(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "agent.db")
    try:
        ctl = _controller(store)
        _run(ctl, 2)
        from_store = health(rows_from_store(store.trace()))
    finally:
        store.close()
    assert from_store.funnel == health(ctl.trace).funnel


def test_the_window_keeps_only_the_latest_turns() -> None:
    events = [_ev("candidate_selected", t, f"c{t}", detail={"saturated": True}) for t in range(10)]
    report = health(events, HealthConfig(window_turns=4))
    assert report.turns == 4
    inflation = next(s for s in report.signatures if s.name == "priority_inflation")
    assert inflation.n == 4 and inflation.verdict == "warn"


def test_too_few_events_give_no_verdict() -> None:
    report = health([_ev("candidate_selected", 1, "c1")])
    assert {s.verdict for s in report.signatures} == {"n/a"}


def test_overinspection_needs_useless_reads_and_value_below_cost() -> None:
    def read(t: int, delta: float) -> dict[str, Any]:
        res = {"inspection_succeeded": True, "belief_changed": False, "utility_delta": delta}
        detail = {"kind": "inspect_source", "cost_term": 0.1, "trigger": "stale_belief"}
        return _ev("resolved", t, f"c{t}", resolution=res, detail=detail)

    assert _sig(health([read(t, 0.0) for t in range(5)]), "overinspection") == "warn"
    assert _sig(health([read(t, 1.0) for t in range(5)]), "overinspection") == "ok"


def test_underinspection_counts_stops_that_left_pivotal_candidates() -> None:
    stops = [
        _ev("attention_terminated_negative_voc", t, detail={"max_p_change": p})
        for t, p in enumerate([0.9, 0.8, 0.1, 0.7])
    ]
    assert _sig(health(stops), "underinspection") == "warn"
    calm = [{**s, "detail": {"max_p_change": 0.05}} for s in stops]
    assert _sig(health(calm), "underinspection") == "ok"


def test_thrashing_is_a_high_switch_rate() -> None:
    events = []
    for t in range(4):
        events += [_ev("candidate_selected", t, f"c{t}"), _ev("switch_accepted", t)]
    assert _sig(health(events), "thrashing") == "warn"
    assert _sig(health([e for e in events if e["event"] != "switch_accepted"]), "thrashing") == (
        "ok"
    )


def test_starvation_is_a_candidate_alive_without_service() -> None:
    events = [_ev("candidate_created", 0, "old", reason_code="goal_dependency")]
    events += [_ev("candidate_created", t, f"c{t}", reason_code="stale_belief") for t in (1, 2)]
    events += [_ev("candidate_selected", t, f"c{t}") for t in (1, 2)]
    events += [_ev("attention_budget_exhausted", t) for t in range(3, 12)]
    assert _sig(health(events), "starvation") == "warn"
    served = [*events, _ev("candidate_selected", 11, "old")]
    assert _sig(health(served), "starvation") == "ok"


def test_novelty_addiction_is_exploration_with_low_realised_value() -> None:
    events = []
    for t in range(6):
        explore = t % 2 == 0
        events.append(
            _ev("candidate_selected", t, f"c{t}", reason_code="exploration" if explore else "x")
        )
        res = {"inspection_succeeded": True, "utility_delta": 0.0 if explore else 0.5}
        events.append(_ev("resolved", t, f"c{t}", resolution=res))
    assert _sig(health(events), "novelty_addiction") == "warn"


def test_self_confirmation_is_contradictions_selected_less_than_the_rest() -> None:
    events = []
    for t in range(4):
        for cid, trigger in ((f"k{t}", "contradiction"), (f"o{t}", "stale_belief")):
            target = {"target": f"source-{cid}"}
            events.append(_ev("candidate_created", t, cid, reason_code=trigger, detail=target))
        events.append(_ev("candidate_selected", t, f"o{t}"))
    assert _sig(health(events), "self_confirmation") == "warn"
    events += [_ev("candidate_selected", t, f"k{t}") for t in range(4)]
    assert _sig(health(events), "self_confirmation") == "ok"


def test_the_report_is_json_able_and_prints_one_line_per_signature() -> None:
    ctl = _controller()
    _run(ctl, 1)
    report = health(ctl.trace)
    data = report.to_dict()
    assert [s["name"] for s in data["signatures"]] == [
        "priority_inflation",
        "overinspection",
        "underinspection",
        "thrashing",
        "starvation",
        "novelty_addiction",
        "self_confirmation",
        "candidate_blindness",
    ]
    lines = report.lines()
    assert sum(line.split(" ")[0] in ("ok", "warn", "n/a") for line in lines) == 8


def test_report_lines_fit_the_width_and_keep_every_verdict_and_count() -> None:
    ctl = _controller()
    _run(ctl, 3)
    report = health(ctl.trace)
    for width in (80, 100):
        lines = report.lines(width=width)
        assert max(len(line) for line in lines) <= width
        assert sum(line.split(" ")[0] in ("ok", "warn", "n/a") for line in lines) == 8
        all_row = next(line for line in lines if line.startswith("all "))
        total = next(r for r in report.funnel if r.trigger == "all")
        assert all_row.split()[1:] == [str(total.opportunity), str(total.fired),
                                       str(total.candidate), str(total.selected),
                                       str(total.succeeded), str(total.used)]  # fmt: skip
    text = " ".join(" ".join(report.lines(width=80)).split())
    assert all(" ".join(s.line.split()) in text for s in report.signatures)


def test_two_controllers_on_one_store_are_read_as_two_sessions(tmp_path: Path) -> None:
    # Each controller numbers its turns and candidates from 1 (a restarted server, or two
    # servers on one store): read together they must not merge into one session's turns.
    with Store.open(tmp_path / "agent.db") as store:
        first, second = _controller(store), _controller(store)
        _run(first, 2)
        _run(second, 3)
        report = health(rows_from_store(store.trace()))
        alone = health(second.trace)
    assert report.turns == 5
    total, total_alone = report.funnel[-1], alone.funnel[-1]
    assert total.selected == total_alone.selected + health(first.trace).funnel[-1].selected
