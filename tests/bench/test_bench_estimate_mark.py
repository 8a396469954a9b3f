"""No estimated row without its mark (issue 36, item 2): in the adaptive condition a randomised
policy's value comes from the trajectory each trial sampled (``value_kind: estimate``); every
table marks its score ``~`` and says what the mark means, beside the interval it always has."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from rich.console import Console

from heedful.bench import run_benchmark
from heedful.bench.policy import Observation, Policy, register_policy
from heedful.bench.report.page import render_html
from heedful.bench.report.table import (
    ESTIMATE_NOTE,
    estimated,
    markdown_scores,
    print_tables,
)
from heedful.bench.results import Results
from heedful.bench.worlds.families import generate_suite
from heedful.model import TaskView


@register_policy("test-coin-reader")
class _CoinReader(Policy):
    """Reads a random source, then a second one only if the first reported something: random
    and observation-dependent, so its adaptive value is an estimate."""

    deterministic = False
    in_default_suite = False

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        self._order = [str(x) for x in rng.permutation(list(view.source_ids))]
        self._budget = view.budget

    def next(self, history: Sequence[Observation]) -> str | None:
        if len(history) >= min(2, self._budget):
            return None
        if history and not history[-1].values:
            return None
        return self._order[len(history)]


@pytest.fixture(scope="module")
def adaptive() -> Results:
    scenarios = generate_suite(["G", "B"], 2, 0)
    policies = ["test-coin-reader", "voc-model", "oracle"]
    return run_benchmark(scenarios, policies, trials=2, seed=0, adaptive=True, progress=False)


def test_a_randomised_reader_in_the_adaptive_condition_is_an_estimate(adaptive: Results) -> None:
    kinds = {t.policy: t.value_kind for t in adaptive.trials}
    assert kinds["test-coin-reader"] == "estimate" and kinds["voc-model"] == "exact"
    assert estimated(adaptive) == {"test-coin-reader"}


def test_the_ranked_table_marks_the_estimate_and_says_what_it_is(adaptive: Results) -> None:
    console = Console(width=120, record=True, color_system=None)
    print_tables(adaptive, console)
    text = console.export_text()
    row = next(ln for ln in text.splitlines() if "test-coin-reader" in ln and "[" in ln)
    assert "~" in row and "[" in row  # the mark and the interval
    exact = next(ln for ln in text.splitlines() if " oracle " in f" {ln} " and "[" in ln)
    assert "~" not in exact
    assert ESTIMATE_NOTE in " ".join(text.split())


def test_the_markdown_table_and_the_report_mark_it_too(adaptive: Results) -> None:
    md = markdown_scores(adaptive)
    assert ESTIMATE_NOTE in md
    assert any(line.startswith("| `test-coin-reader`") and "~" in line for line in md.splitlines())
    assert "an estimate, not an exact value" in render_html(adaptive)


def test_an_exact_run_has_no_mark(adaptive: Results) -> None:
    exact = adaptive.model_copy(
        update={"trials": [t for t in adaptive.trials if t.policy != "test-coin-reader"]}
    )
    assert estimated(exact) == set() and ESTIMATE_NOTE not in markdown_scores(exact)


def test_an_estimate_is_never_folded_into_an_exact_row_of_the_same_reads(
    adaptive: Results,
) -> None:
    from heedful.bench.report.table import twins

    folded = {p for others in twins(adaptive).values() for p in others} | set(twins(adaptive))
    assert "test-coin-reader" not in folded
