"""Terminal tables of a run read whole at 80 columns: no line wider, nothing cut with "…"."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from heedful.bench.config import BenchConfig
from heedful.bench.report.initiation import initiation_tables
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
        count=10,
        policies="summary-trusting,voc-guarded",
        trials=2,
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
        age = row.evidence_age_s
        assert age is not None and f"{age.mean:.0f}" in text  # the last column is not cropped
    for gap in agg.initiation_gap:
        assert gap.score is not None and f"[{gap.score.lo:+.1f}, {gap.score.hi:+.1f}]" in text
        assert gap.claim_accuracy is not None
        assert f"[{gap.claim_accuracy.lo:+.2f}, {gap.claim_accuracy.hi:+.2f}]" in text
    assert "summary-trusting" in text and "unprompted" in text
    assert "20 trials per row" in text and "20 pairs per row" in text


def _oracle_rows() -> list[tuple[str, object, float | None]]:
    from heedful.decision import adaptive_oracle, compile_problem, static_oracle
    from heedful.model import load_scenario_set

    root = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
    rows: list[tuple[str, object, float | None]] = []
    for sc in load_scenario_set([str(root)]):
        problem = compile_problem(sc.view, sc.truth)
        result = static_oracle(problem, sc.view.budget)
        rows.append((sc.id, result, adaptive_oracle(problem, sc.view.budget).v_adaptive))
    return rows


@pytest.mark.parametrize("width", [80, 200])
def test_oracle_answers_keep_every_id_whole(width: int) -> None:
    from heedful.bench.report.page import print_oracle

    rows = _oracle_rows()
    console = Console(width=width, record=True, color_system=None)
    print_oracle(rows, console, adaptive=True)  # type: ignore[arg-type]
    text = console.export_text()
    _assert_whole(text, width)
    words = text.replace(",", " ").replace("{", " ").replace("}", " ").split()
    for scenario_id, result, _ in rows:
        assert scenario_id in words, text  # not folded a few letters per line
        assert all(s in words for s in result.critical)  # type: ignore[attr-defined]
        assert f"{result.v_star:.4f}" in text  # type: ignore[attr-defined]
    assert ("┃" in text) == (width == 200)  # the table when it fits whole, else blocks


def test_switching_and_schedule_tables_fit_80_columns_whole(tmp_path: Path) -> None:
    from heedful.bench.report.kinds import print_kind_tables

    out = tmp_path / "run"
    run_to_folder(families="D,J", count=2, trials=1, seed=0, out=out, progress=False, config=FAST)
    rows = load_results(out / "results.json").aggregates.kind_rows()
    assert rows
    console = Console(width=80, record=True, color_system=None)
    print_kind_tables(rows, console)
    text = console.export_text()
    _assert_whole(text)
    for row in rows:
        assert row.policy in text.split()  # never folded nor cut
        assert row.score is not None and f"[{row.score.lo:.1f}, {row.score.hi:.1f}]" in text
    assert "voc-no-switch-cost" in text and "compl." in text and "missed" in text


def test_adaptive_ranked_table_keeps_policy_names_whole_at_80_columns(tmp_path: Path) -> None:
    from heedful.bench.report.table import print_tables

    out = tmp_path / "run"
    names = ["voc-no-switch-cost", "voc-no-staleness", "random", "oracle"]
    run_to_folder(
        families="G",
        count=2,
        policies=",".join(names),
        trials=1,
        seed=0,
        out=out,
        progress=False,
        adaptive=True,
        config=FAST,
    )
    console = Console(width=80, record=True, color_system=None)
    print_tables(load_results(out / "results.json"), console)
    text = console.export_text()
    _assert_whole(text)
    assert all(name in text.split() for name in names), text  # not folded mid-name
    assert "ad.regret" not in text
    assert "regret is the exact adaptive regret" in " ".join(text.split())
