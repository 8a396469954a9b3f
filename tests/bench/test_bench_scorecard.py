"""``heedful bench scorecard``: document 000 §29's eight metrics, baseline | new | Δ, paired."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from heedful.bench import run_benchmark
from heedful.bench.report.scorecard import scorecard_markdown, scorecard_text
from heedful.bench.results import Results, write_results
from heedful.bench.score.scorecard import (
    METRICS,
    REGRET,
    RESCUE,
    SPONTANEOUS,
    UTILITY,
    pick_policy,
    scorecard,
)
from heedful.bench.worlds.families import generate_family, generate_suite
from heedful.cli import app
from heedful.errors import InvalidArgumentError
from heedful.model import Condition


@pytest.fixture(scope="module")
def announced() -> Results:
    scenarios = generate_suite(["G", "B"], 4, 0)
    return run_benchmark(scenarios, ["voc", "random"], trials=2, seed=0, progress=False)


@pytest.fixture(scope="module")
def unprompted() -> Results:
    scenarios = generate_family("B", 4, 0, condition=Condition.UNPROMPTED)
    return run_benchmark(scenarios, ["voc", "random"], trials=2, seed=0, progress=False)


def _line(card, metric):  # type: ignore[no-untyped-def]
    return next(line for line in card.lines if line.metric is metric)


def test_the_scorecard_has_the_eight_metrics_of_section_29_in_order(announced: Results) -> None:
    card = scorecard(announced, announced, base_policy="voc")
    assert [line.metric.name for line in card.lines] == [
        "Attention regret",
        "Spontaneous authoritative inspection",
        "Critical-signal recall",
        "Candidate recall",
        "Evidence-utilization rate",
        "Time to critical inspection",
        "Decision utility / compute",
        "Validator rescue rate",
    ]
    assert len(METRICS) == 8


def test_a_run_against_itself_is_paired_on_every_trial_with_zero_delta(announced: Results) -> None:
    card = scorecard(announced, announced, base_policy="voc")
    regret = _line(card, REGRET)
    assert card.shared == 8
    assert regret.pairs == 16 and regret.delta == 0.0 and regret.lo == regret.hi == 0.0


def test_delta_is_the_paired_difference_new_minus_baseline(announced: Results) -> None:
    card = scorecard(announced, announced, base_policy="random", new_policy="voc")
    regret = _line(card, REGRET)
    mean = {
        p: sum(t.regret for t in announced.trials if t.policy == p) / 16 for p in ("voc", "random")
    }
    assert regret.delta == pytest.approx(mean["voc"] - mean["random"])
    assert (
        regret.lo is not None and regret.hi is not None and regret.lo <= regret.delta <= regret.hi
    )
    assert regret.delta < 0  # the controller's regret is below random's


def test_utility_per_compute_is_a_ratio_of_sums(announced: Results) -> None:
    card = scorecard(announced, announced, base_policy="voc")
    trials = [t for t in announced.trials if t.policy == "voc"]
    want = sum(t.utility for t in trials) / sum(t.inspection_compute or 0.0 for t in trials)
    assert _line(card, UTILITY).base.value == pytest.approx(want)


def test_a_metric_no_run_measures_is_na_with_the_reason(announced: Results) -> None:
    card = scorecard(announced, announced, base_policy="voc")
    spont = _line(card, SPONTANEOUS)
    assert spont.base.value is None and spont.delta is None
    assert "no unprompted trials" in spont.note
    assert "n/a" in scorecard_text(card)


def test_spontaneous_inspection_comes_from_unprompted_trials(unprompted: Results) -> None:
    card = scorecard(unprompted, unprompted, base_policy="random", new_policy="voc")
    spont = _line(card, SPONTANEOUS)
    want = [t.initiation.authoritative_inspected for t in unprompted.trials if t.policy == "voc"]
    assert spont.new.value == pytest.approx(sum(want) / len(want))


def test_runs_without_shared_scenarios_give_an_unpaired_delta(
    announced: Results, unprompted: Results
) -> None:
    card = scorecard(announced, unprompted, base_policy="voc")
    regret = _line(card, REGRET)
    assert card.shared == 0 and regret.pairs == 0 and regret.lo is None
    assert regret.delta == pytest.approx(regret.new.value - regret.base.value)  # type: ignore[operator]
    assert "unpaired" in regret.note


def test_rescue_rate_counts_production_right_where_attention_was_wrong(announced: Results) -> None:
    trials = [t for t in announced.trials if t.policy == "voc"]
    wrong = [t.model_copy(update={"action_correct": False}) for t in trials]
    right = [t.model_copy(update={"mode": "production", "action_correct": True}) for t in trials]
    both = announced.model_copy(update={"trials": wrong + right})
    line = _line(scorecard(both, both, base_policy="voc"), RESCUE)
    assert line.base.value == 1.0 and line.base.n == len(trials)


def test_a_sealed_run_reads_its_aggregates_and_is_unpaired(announced: Results) -> None:
    sealed = announced.model_copy(update={"trials": [], "scenarios": [], "sealed": True})
    card = scorecard(sealed, announced, base_policy="voc")
    regret = _line(card, REGRET)
    row = next(
        r for r in announced.aggregates.inspection_rows() if r.family == "all" and r.policy == "voc"
    )
    assert regret.base.value == pytest.approx(row.regret.mean)
    assert regret.pairs == 0 and "sealed" in regret.note


def test_an_unknown_policy_names_the_policies_of_the_run(announced: Results) -> None:
    with pytest.raises(InvalidArgumentError, match="random, voc"):
        scorecard(announced, announced, base_policy="voc-model")


def test_the_default_policy_is_the_one_both_runs_share(announced: Results) -> None:
    only_voc = announced.model_copy(
        update={"trials": [t for t in announced.trials if t.policy == "voc"]}
    )
    other = only_voc.model_copy(
        update={"aggregates": only_voc.aggregates.model_copy(update={"rows": []})}
    )
    assert pick_policy(other, other) == "voc"
    with pytest.raises(InvalidArgumentError, match="name the policy"):
        pick_policy(announced, announced)


def test_markdown_has_one_row_per_metric(announced: Results) -> None:
    text = scorecard_markdown(scorecard(announced, announced, base_policy="voc"))
    rows = [line for line in text.splitlines() if line.startswith("| ") and "Metric" not in line]
    assert len(rows) == 8


def test_the_command_prints_the_scorecard_of_two_results_files(
    announced: Results, unprompted: Results, tmp_path: Path
) -> None:
    a = write_results(announced, tmp_path / "a.json")
    b = write_results(unprompted, tmp_path / "b.json")
    result = CliRunner().invoke(
        app, ["bench", "scorecard", str(a), str(b), "--policy", "voc", "--markdown"]
    )
    assert result.exit_code == 0, result.output
    assert result.output.count("\n| ") == 9  # header and eight metrics


def test_the_command_refuses_a_policy_not_in_the_run_in_one_line(
    announced: Results, tmp_path: Path
) -> None:
    a = write_results(announced, tmp_path / "a.json")
    result = CliRunner().invoke(app, ["bench", "scorecard", str(a), str(a), "--policy", "nope"])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1 and "nope" in result.output
