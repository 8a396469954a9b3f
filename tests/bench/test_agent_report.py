"""The agents section of the reports: present with agents, absent without."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from heedful.bench.agents.aggregate import agent_aggregates, stage_of
from heedful.bench.config import BenchConfig
from heedful.bench.report.agents import agent_html, agent_tables
from heedful.bench.report.page import render_html
from heedful.bench.results import Results
from heedful.bench.results.agents import STAGES
from heedful.bench.run.benchmark import run_benchmark
from heedful.model import Scenario

FAST = BenchConfig(bootstrap_resamples=100)


def _results(tiny: Scenario) -> Results:
    return run_benchmark([tiny], ["voc", "random"], trials=2, seed=0, config=FAST, progress=False)


def test_a_run_without_agents_has_no_agent_section(tiny: Scenario) -> None:
    res = _results(tiny)
    assert res.aggregates.agents is None
    assert agent_tables(res) == [] and agent_html(res) == ""


def test_agent_rows_render_a_stacked_split_and_the_mode_tables(tiny: Scenario) -> None:
    res = _results(tiny)
    # Programmatic records stand in for an agent's: the section renders what the rows hold.
    recs = [t.model_copy(update={"policy": "llm"}) for t in res.trials if t.policy == "random"]
    prod = [t.model_copy(update={"mode": "production"}) for t in recs]
    agents = agent_aggregates(recs + prod, ["llm"], FAST, 0)
    modes = [r for r in agents.modes if r.family == "all"]
    assert {r.mode for r in modes} == {"attention", "production"}
    assert all(sum(r.split.values()) == r.n_trials for r in modes)
    assert all(set(r.split) == set(STAGES) for r in modes)
    attention = next(r for r in modes if r.mode == "attention")
    expected = Counter(stage_of(t) for t in recs)
    assert {k: v for k, v in attention.split.items() if v} == dict(expected)
    res = res.model_copy(
        update={"aggregates": res.aggregates.model_copy(update={"agents": agents})}
    )
    page = render_html(res)
    assert "Agents under test — failure split" in page and "<svg width='520'" in page
    assert "Validator rescue rate" in page
    titles = [t.title for t in agent_tables(res)]
    assert any("failure split" in str(t) for t in titles)


def test_agent_tables_fit_80_columns_with_whole_names_and_every_interval(
    tiny: Scenario, with_agent_rows: Callable[[Results, BenchConfig], Results]
) -> None:
    from rich.console import Console

    res = _results(tiny)
    res = with_agent_rows(res, FAST)
    console = Console(width=80, record=True, color_system=None)
    for table in agent_tables(res):
        console.print(table)
    text = console.export_text()
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 80
    assert "llm-advised" in text and "production" in text
    assert res.aggregates.agents is not None
    modes = [r for r in res.aggregates.agents.modes if r.family == "all"]
    for r in modes:  # every score and its interval is printed whole
        assert r.score is not None
        assert f"{r.score.mean:.1f}" in text and f"[{r.score.lo:.1f}, {r.score.hi:.1f}]" in text
