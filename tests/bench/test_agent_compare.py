"""The real-model table (heedful.bench.agents.compare): pairing, lift, cross-model verdict."""

from __future__ import annotations

from collections.abc import Sequence

from heedful.bench.agents.compare import compare_models, markdown_tables
from heedful.bench.results import AgentUsage, InitiationMetrics, Stage, TrialRecord


def _t(
    sid: str,
    policy: str,
    score: float,
    *,
    correct: bool = True,
    unprompted: bool = False,
    read_authority: bool = False,
    error: str | None = None,
    world: str = "w",
    stage: Stage | None = None,
) -> TrialRecord:
    return TrialRecord(
        scenario_id=sid,
        family="G/unprompted" if unprompted else "G",
        policy=policy,
        trial=0,
        condition="static",
        world={"x": world},
        inspected=[],
        failed_inspections=[],
        violation=None,
        value=0.0,
        v_star=1.0,
        u_random=0.0,
        regret=0.0,
        score=score,
        uninformative=False,
        optimal=False,
        action="a",
        utility=0.0,
        inspection_cost=0.0,
        net_utility=0.0,
        action_correct=correct,
        decided_by="agent",
        protocol_error=error,
        critical_recall=None,
        missing_critical=[],
        precision=None,
        first_critical_at=None,
        distractor_inspections=0,
        failure=None,
        stage=stage,
        initiation=InitiationMetrics(
            scenario_condition="unprompted" if unprompted else "announced",
            state_variables=["x"],
            authoritative=["s"],
            authoritative_inspected=read_authority,
            inspections_before_authoritative=None,
            cost_before_authoritative=None,
            claimed={},
            claim_correct=correct,
            summary_contradicted=False,
            summary_substituted=False,
            evidence_age_s=None,
        ),
        usage=AgentUsage(calls=2, prompt_tokens=4000, completion_tokens=40, latency_s=30.0),
    )


SIDS = [f"s{i}" for i in range(6)]


def _model(base: Sequence[float], advised: Sequence[float], **kw: object) -> list[TrialRecord]:
    return [_t(s, "llm", b, **kw) for s, b in zip(SIDS, base, strict=True)] + [  # type: ignore[arg-type]
        _t(s, "llm-advised", a, **kw)  # type: ignore[arg-type]
        for s, a in zip(SIDS, advised, strict=True)
    ]


def test_lift_is_paired_by_scenario_and_the_cross_verdict_follows_the_interval() -> None:
    base, advised = [-20, -10, -30, 0, -15, -25], [60, 70, 80, 55, 65, 75]
    small = _model(base, advised)
    large = _model([10, 20, 5, 15, 0, 10], [20, 30, 15, 25, 10, 20])
    result = compare_models({"s": small, "l": large}, small="s", large="l")
    lift = {r.model: r.lift for r in result.lifts}
    assert lift["s"].n_pairs == 6 and lift["s"].score is not None
    assert abs(lift["s"].score.mean - (sum(advised) - sum(base)) / 6) < 1e-9
    assert lift["s"].score.lo > 0
    assert result.cross is not None
    small_name, large_name, cross = result.cross
    assert (small_name, large_name, cross.n_pairs) == ("s", "l", 6)
    assert cross.score is not None and cross.score.lo > 0  # 67.5 − 10 on average, > 0 on each
    text = markdown_tables(result, names={"s": "Small", "l": "Large"}, full=True)
    # The small model's score alone is not above random: it is called too weak, with why, and
    # the question is then not answered, only recorded.
    assert "Small is too weak" in text and "Large is too weak" not in text
    assert (
        "**Does Small with heedful beat Large without it?** Not answerable on these models: "
        "Small is too weak" in text
    )
    assert "Score: above 0 (Small `llm-advised` − Large `llm` = +57.5" in text
    strong = compare_models(
        {"s": _model([60, 70, 80, 55, 65, 75], base), "l": large}, small="s", large="l"
    )
    text = markdown_tables(strong, names={"s": "Small", "l": "Large"}, full=False)
    assert "without it?** Score: no — it does worse" in text and "too weak" not in text


def test_pairs_need_the_same_world_and_unmatched_trials_are_left_out() -> None:
    a = [_t("s0", "llm", 0.0), _t("s1", "llm", 0.0), _t("s2", "llm", 0.0)]
    b = [_t("s0", "llm-advised", 50.0), _t("s1", "llm-advised", 50.0, world="other")]
    result = compare_models({"m": a + b})
    assert result.lifts[0].lift.n_pairs == 1


def test_authoritative_reads_count_unprompted_trials_only_and_errors_are_tallied() -> None:
    records = [
        _t("s0", "llm", 0.0, unprompted=True, read_authority=True),
        _t("s1", "llm", 0.0, unprompted=True, error="turn_limit"),
        _t("s2", "llm", 0.0, read_authority=True, error="repeated_plan: twice"),
        _t("s3", "llm", 0.0, stage=Stage.INITIATION, correct=False),
    ]
    records[1] = records[1].model_copy(update={"action": None})  # the turn limit: no action
    (row,) = compare_models({"m": records}).rows
    assert row.decided == 3
    assert row.authoritative is not None and (row.authoritative.k, row.authoritative.n) == (1, 2)
    assert row.protocol_errors == 2 and row.error_codes == {"turn_limit": 1, "repeated_plan": 1}
    assert row.split["initiation"] == 1 and row.split["pass"] == 3
    assert row.accuracy.k == 3 and row.prompt_tokens == 4000 and row.model_s == 30.0
    short = markdown_tables(compare_models({"m": records}), names={}, full=False)
    assert "| m | `llm` |" in short and "2/4" in short


def test_no_cross_comparison_without_both_models() -> None:
    result = compare_models({"s": _model([0] * 6, [1] * 6)}, small="s", large="l")
    assert result.cross is None
    assert "beat" not in markdown_tables(result, names={}, full=True)


def test_a_model_that_rarely_decides_is_called_too_weak() -> None:
    records = [t.model_copy(update={"action": None}) for t in _model([60] * 6, [70] * 6)]
    for t in records[:6]:
        t.score = 50.0 + float(SIDS.index(t.scenario_id))
    result = compare_models({"m": records})
    assert "chose an action (an accepted decide) in 0 of its 6 trials" in result.weak["m"]


def _swap_model(
    base: Sequence[float], prompted: Sequence[float], advised: Sequence[float],
    revert: Sequence[float],
) -> list[TrialRecord]:  # fmt: skip
    out = []
    for policy, scores in (
        ("llm", base), ("llm-prompted", prompted), ("llm-advised", advised),
        ("llm-revert", revert),
    ):  # fmt: skip
        out += [_t(s, policy, v) for s, v in zip(SIDS, scores, strict=True)]
    return out


def test_the_prompted_agent_gets_its_own_paired_lift_over_llm() -> None:
    records = _swap_model([10.0] * 6, [30.0] * 6, [60.0] * 6, [10.0] * 6)
    result = compare_models({"m": records})
    lifts = {r.agent: r.lift for r in result.lifts}
    assert set(lifts) == {"llm-prompted", "llm-advised"}
    assert lifts["llm-prompted"].score is not None and lifts["llm-prompted"].score.mean == 20.0
    assert lifts["llm-advised"].score is not None and lifts["llm-advised"].score.mean == 50.0
    text = markdown_tables(result, names={"m": "M"}, full=True)
    assert "**M, the prompt alone (`llm-prompted` − `llm`):** score above 0" in text


def test_swap_and_revert_steps_are_paired_and_a_revert_to_the_start_reverses() -> None:
    records = _swap_model([10.0] * 6, [30.0] * 6, [60.0] * 6, [10.0] * 6)
    result = compare_models({"m": records})
    steps = {(s.before, s.after): s.change.score for s in result.swaps}
    assert {k: v.mean for k, v in steps.items() if v is not None} == {
        ("llm", "llm-prompted"): 20.0,
        ("llm-prompted", "llm-advised"): 30.0,
        ("llm-advised", "llm-revert"): -50.0,
        ("llm", "llm-revert"): 0.0,
    }
    text = markdown_tables(result, names={"m": "M"}, full=True)
    assert "| M | none → prompt | 6 | +20.0" in text
    assert "**M, [§26](design.md#d000-26):** the movement reverses" in text


def test_a_revert_that_stays_moved_does_not_reverse() -> None:
    records = _swap_model([10.0] * 6, [30.0] * 6, [60.0] * 6, [55.0, 60, 58, 57, 59, 61])
    text = markdown_tables(compare_models({"m": records}), names={"m": "M"}, full=True)
    assert "**M, [§26](design.md#d000-26):** the movement does not reverse" in text


def test_no_movement_is_said_to_leave_nothing_to_reverse() -> None:
    records = _swap_model([10.0] * 6, [10.0] * 6, [10.0] * 6, [10.0] * 6)
    text = markdown_tables(compare_models({"m": records}), names={"m": "M"}, full=True)
    assert "no movement to reverse" in text


def test_a_revert_on_fewer_scenarios_is_not_judged() -> None:
    records = _swap_model([10.0] * 6, [30.0] * 6, [60.0] * 6, [10.0] * 6)
    records = [r for r in records if not (r.policy == "llm-revert" and r.scenario_id == "s5")]
    text = markdown_tables(compare_models({"m": records}), names={"m": "M"}, full=True)
    verdict = "not judged: the revert run covers 5 of the 6 pairs"
    assert f"**M, [§26](design.md#d000-26):** {verdict}" in text
