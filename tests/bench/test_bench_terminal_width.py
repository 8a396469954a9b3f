"""Terminal tables of a run read whole at 80 columns: no line wider, nothing cut with "…"."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from heedful.bench.config import BenchConfig
from heedful.bench.initiation_report import initiation_tables
from heedful.bench.results import Results, load_results
from heedful.bench.suite import run_to_folder

FAST = BenchConfig(bootstrap_resamples=100)


def _text(*renderables: object, width: int = 80) -> str:
    console = Console(width=width, record=True, color_system=None)
    for r in renderables:
        console.print(r)
    return console.export_text()


def _assert_whole(text: str, width: int = 80) -> None:
    assert "…" not in text, text
    assert max(len(line) for line in text.splitlines()) <= width, text


@pytest.fixture(scope="module")
def unprompted(tmp_path_factory: pytest.TempPathFactory) -> Results:
    """Both conditions with the unprompted condition's own (long-named) policies."""
    out: Path = tmp_path_factory.mktemp("width") / "run"
    run_to_folder(
        families="B,G",
        count=2,
        policies="summary-trusting,voc-guarded",
        trials=1,
        seed=0,
        out=out,
        progress=False,
        condition="both",
        config=FAST,
    )
    return load_results(out / "results.json")


def test_unprompted_tables_fit_80_columns_with_every_value_whole(unprompted: Results) -> None:
    tables = initiation_tables(unprompted)
    assert len(tables) == 2
    text = _text(*tables)
    _assert_whole(text)
    agg = unprompted.aggregates
    for row in agg.initiation:
        p = row.authoritative_rate
        assert p.p is not None and f"[{100 * p.lo:.0f}, {100 * p.hi:.0f}]" in text
    for gap in agg.initiation_gap:
        assert gap.score is not None and f"[{gap.score.lo:+.1f}, {gap.score.hi:+.1f}]" in text
    assert "summary-trusting" in text and "unprompted" in text
