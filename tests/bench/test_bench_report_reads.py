"""report.html reads itself: paired comparisons oriented best-first by family, ticked and
labelled axes, one colour per policy across the page, the empty health funnel explained, the
manifest as tables, and nothing fetched from anywhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from heedful.bench.config import BenchConfig
from heedful.bench.report.charts import nice_ticks, policy_colours
from heedful.bench.report.page import render_html
from heedful.bench.report.paired import key_pairs, oriented_pairs
from heedful.bench.report.table import ranked_rows
from heedful.bench.report.timeline import TIMELINE_FILE, load_timeline
from heedful.bench.results import ALL_FAMILIES, Results, load_results
from heedful.bench.suite import run_to_folder

FAST = BenchConfig(bootstrap_resamples=100)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Results, str]:
    out = tmp_path_factory.mktemp("reads") / "run"
    run_to_folder(
        families="G,B",
        count=2,
        policies="voc,random,oracle,loudness,authority-first",
        trials=2,
        seed=0,
        out=out,
        progress=False,
        config=FAST,
    )
    results = load_results(out / "results.json")
    return results, render_html(results, load_timeline(out / TIMELINE_FILE))


def test_pairs_put_the_better_ranked_policy_first_in_every_family(run) -> None:
    results, _ = run
    for fam in {p.family for p in results.aggregates.inspection_paired()}:
        order = [r.policy for r in ranked_rows(results, fam)]
        rows = oriented_pairs(
            [p for p in results.aggregates.inspection_paired() if p.family == fam], order
        )
        ranks = [(order.index(p.policy_a), order.index(p.policy_b)) for p in rows]
        assert all(a < b for a, b in ranks)
        assert ranks == sorted(ranks)
        for p in rows:  # the better ranked is ahead: its paired difference is not negative
            assert p.score is None or p.score.mean >= -1e-9


def test_orienting_flips_sign_interval_wins_and_optimal_transitions(run) -> None:
    results, _ = run
    pair = next(p for p in results.aggregates.inspection_paired() if p.score is not None)
    (flipped,) = oriented_pairs([pair], [pair.policy_b, pair.policy_a])
    assert (flipped.policy_a, flipped.policy_b) == (pair.policy_b, pair.policy_a)
    assert flipped.score is not None and pair.score is not None
    assert (flipped.score.mean, flipped.score.lo, flipped.score.hi) == (
        -pair.score.mean,
        -pair.score.hi,
        -pair.score.lo,
    )
    assert (flipped.score.a_better, flipped.score.b_better) == (
        pair.score.b_better,
        pair.score.a_better,
    )
    assert (flipped.optimal.only_a, flipped.optimal.only_b) == (
        pair.optimal.only_b,
        pair.optimal.only_a,
    )
    (back,) = oriented_pairs([flipped], [pair.policy_a, pair.policy_b])
    assert back == pair


def test_the_paired_section_is_grouped_by_family(run) -> None:
    results, page = run
    section = page[page.index("Paired comparisons") :]
    for title in ("All families", "Family B", "Family G"):
        assert f"<b>{title}</b>" in section
    best = ranked_rows(results)[0].policy
    first_row = re.search(r"<tr><td class='l'>([^<]+)</td>", section)
    assert first_row is not None and first_row.group(1) == best


def _svgs(page: str) -> list[str]:
    return re.findall(r"<svg.*?</svg>", page, re.S)


def test_the_score_charts_and_reliability_diagrams_have_ticked_labelled_axes(run) -> None:
    _, page = run
    bars = [s for s in _svgs(page) if "aria-label='scores'" in s]
    assert bars
    for svg in bars:
        assert "score (0 = random, 100 = oracle)" in svg
        ticks = re.findall(r"text-anchor='middle'>(-?\d+)</text>", svg)
        assert len(ticks) >= 3 and "0" in ticks and "100" in ticks
    diagrams = [s for s in _svgs(page) if "reliability diagram" in s]
    assert diagrams
    for svg in diagrams:
        assert "predicted net VOC" in svg and "realised ΔV" in svg
        assert len(re.findall(r"text-anchor='end'>-?[\d.]+</text>", svg)) >= 3  # y ticks
        assert len(re.findall(r"text-anchor='middle'>-?[\d.]+</text>", svg)) >= 3  # x ticks
    (lanes,) = [s for s in _svgs(page) if "attention trace timeline" in s]
    assert "position in the trace" in lanes


def test_a_policy_has_one_colour_in_every_chart_of_the_page(run) -> None:
    _, page = run
    seen: dict[str, set[str]] = {}
    for svg in (s for s in _svgs(page) if "aria-label='scores'" in s):
        for colour, policy in re.findall(
            r"fill='(#[0-9a-f]{6})' opacity='0.85'><title>([^:]+):", svg
        ):
            seen.setdefault(policy, set()).add(colour)
    assert len(seen) == 5
    assert all(len(c) == 1 for c in seen.values())
    assert len({next(iter(c)) for c in seen.values()}) == 5  # and no two policies share one


def test_colours_are_handed_out_once_in_order() -> None:
    colours = policy_colours(["b", "a", "b", "c"])
    assert list(colours) == ["b", "a", "c"] and len(set(colours.values())) == 3


def test_nice_ticks_cover_the_range_with_round_steps() -> None:
    assert nice_ticks(0.0, 100.0) == [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
    ticks = nice_ticks(-126.0, 100.0)
    assert ticks[0] <= -126.0 and ticks[-1] >= 100.0 and 0.0 in ticks


def test_an_empty_health_funnel_is_explained(run) -> None:
    _, page = run
    section = page[page.index("Attention health") :]
    assert "—¹" in section
    assert "static condition a policy chooses its whole set before any result" in section


def test_the_manifest_is_tables_not_reprs(run) -> None:
    results, page = run
    section = page[page.index("<h2>Manifest</h2>") :]
    assert "{'name'" not in section and "[{" not in section
    for spec in results.manifest.policies:
        assert f"<td class='l'>{spec.name}</td>" in section
    version = results.manifest.generator_versions["G"]
    assert "Generator versions" in section and f">{version}<" in section


def test_the_page_fetches_nothing(run) -> None:
    _, page = run
    assert not re.search(r"https?://", page)
    assert not re.search(r"<(script|link|img|iframe|object|embed)\b", page)
    assert "@import" not in page and "url(" not in page


def test_every_family_section_comes_with_a_chart(run) -> None:
    results, page = run
    assert page.count("aria-label='scores'") == 1 + len(
        {r.family for r in results.aggregates.inspection_rows()} - {ALL_FAMILIES}
    )


def test_written_report_is_the_rendered_one(tmp_path: Path, run) -> None:
    from heedful.bench.report.page import write_report

    results, _ = run
    path = write_report(results, tmp_path / "report.html")
    assert "Paired comparisons" in path.read_text(encoding="utf-8")


def test_the_page_opens_on_the_ranked_table_then_each_familys_chart(run) -> None:
    _, page = run
    ranked = page.index("<table>", page.index("<h2>All families</h2>"))
    first_chart = page.index("aria-label='scores'")
    family_b = page.index("<h2>Family B</h2>")
    assert ranked < first_chart < family_b < page.index("Paired comparisons")
    # A family's own ranked table is folded under its chart.
    chart_b = page.index("aria-label='scores'", family_b)
    assert chart_b < page.index("<details><summary>ranked table of family B</summary>")


def test_the_shown_pairs_are_neighbours_in_the_ranking_and_the_references(run) -> None:
    results, _ = run
    order = [r.policy for r in ranked_rows(results)]
    all_pairs = oriented_pairs(
        [p for p in results.aggregates.inspection_paired() if p.family == ALL_FAMILIES], order
    )
    shown = {(p.policy_a, p.policy_b) for p in key_pairs(all_pairs, order)}
    expected = {
        (a, b)
        for i, a in enumerate(order)
        for b in order[i + 1 :]
        if order.index(b) == i + 1 or {a, b} & {"oracle", "random"}
    }
    assert shown == expected
    assert len(shown) < len(all_pairs)  # loudness vs authority-first, say, is folded away


def test_every_pair_is_one_click_away(run) -> None:
    results, page = run
    section = page[page.index("Paired comparisons") :]
    n_all = sum(1 for p in results.aggregates.inspection_paired() if p.family == ALL_FAMILIES)
    start = section.index(f"<summary>all {n_all} pairs</summary>")
    folded = section[start : section.index("</details>", start)]
    assert folded.count("<tr><td class='l'>") == n_all
