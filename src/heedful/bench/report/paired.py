"""The report's paired comparisons: grouped by family, each pair oriented best-first.

The aggregation stores each pair once, in name order, so a raw table's signs flip with the
alphabet (``loudness − oracle −126.0``). Here A is always the policy ranked higher in that
family (by mean score), so a difference reads "how much better the better one is", and the rows
run down the ranking: the best policy against each of the others first.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from heedful.bench.report.layout import SCROLL_CLASS, num_td
from heedful.bench.results import ALL_FAMILIES, PairedRow, Results
from heedful.bench.stats import PairedDiff, Transitions

__all__ = ["REFERENCES", "key_pairs", "oriented_pairs", "paired_html"]


def _flip_diff(d: PairedDiff) -> PairedDiff:
    return PairedDiff(
        n=d.n,
        mean=-d.mean,
        lo=-d.hi,
        hi=-d.lo,
        a_better=d.b_better,
        b_better=d.a_better,
        ties=d.ties,
    )


def _flip(p: PairedRow) -> PairedRow:
    o = p.optimal
    return p.model_copy(
        update={
            "policy_a": p.policy_b,
            "policy_b": p.policy_a,
            "score": _flip_diff(p.score) if p.score is not None else None,
            "regret": _flip_diff(p.regret),
            "optimal": Transitions(
                both=o.both, only_a=o.only_b, only_b=o.only_a, neither=o.neither
            ),
        }
    )


def oriented_pairs(pairs: Sequence[PairedRow], ranking: Sequence[str]) -> list[PairedRow]:
    """``pairs`` with A the better-ranked policy of each, sorted by A's rank then B's.

    Args:
        pairs: Paired rows of one family.
        ranking: Policy names, best first (a name not in it ranks last).
    """
    rank = {name: i for i, name in enumerate(ranking)}
    last = len(rank)
    out = [
        _flip(p) if rank.get(p.policy_a, last) > rank.get(p.policy_b, last) else p for p in pairs
    ]
    return sorted(out, key=lambda p: (rank.get(p.policy_a, last), rank.get(p.policy_b, last)))


def _e(text: object) -> str:
    return html.escape(str(text))


def _table(rows: Sequence[PairedRow]) -> str:
    out = [
        f"<div class='{SCROLL_CLASS}'><table><tr>"
        "<th class='l'>A (better ranked)</th><th class='l'>B</th><th>score A − B [95% CI]</th>"
        "<th>A better</th><th>B better</th><th>ties</th>"
        "<th>optimal: both / only A / only B / neither</th></tr>"
    ]
    for p in rows:
        s = p.score
        diff = f"{s.mean:+.1f} [{s.lo:+.1f}, {s.hi:+.1f}]" if s else "—"
        o = p.optimal
        out.append(
            f"<tr><td class='l'>{_e(p.policy_a)}</td><td class='l'>{_e(p.policy_b)}</td>"
            f"{num_td(diff)}<td>{s.a_better if s else '—'}</td>"
            f"<td>{s.b_better if s else '—'}</td><td>{s.ties if s else '—'}</td>"
            f"<td>{o.both} / {o.only_a} / {o.only_b} / {o.neither}</td></tr>"
        )
    out.append("</table></div>")
    return "".join(out)


#: The reference policies every policy is compared with in the shown rows (when in the run).
REFERENCES = ("oracle", "random")


def key_pairs(rows: Sequence[PairedRow], ranking: Sequence[str]) -> list[PairedRow]:
    """The pairs a reader looks for first: each policy against its neighbour in the ranking, and
    every policy against ``oracle`` and ``random`` — in the order of ``rows``.

    Args:
        rows: Oriented pairs of one family (:func:`oriented_pairs`).
        ranking: Its policies, best first.
    """
    rank = {name: i for i, name in enumerate(ranking)}

    def shown(p: PairedRow) -> bool:
        a, b = rank.get(p.policy_a), rank.get(p.policy_b)
        neighbours = a is not None and b is not None and abs(a - b) == 1
        return neighbours or p.policy_a in REFERENCES or p.policy_b in REFERENCES

    return [p for p in rows if shown(p)]


def paired_html(results: Results, ranking: dict[str, list[str]]) -> str:
    """The section: per family (all families first, open) the neighbours in the ranking and the
    pairs with ``oracle`` and ``random``; every pair one click away.

    Args:
        results: The run's results.
        ranking: Per family, its policies best first (the ranked tables' order).
    """
    paired = results.aggregates.inspection_paired()
    if not paired:
        return ""
    families = [ALL_FAMILIES, *sorted({p.family for p in paired} - {ALL_FAMILIES})]
    out = [
        "<h2>Paired comparisons (matched scenario and trial; wins counted per scenario)</h2>",
        "<p class='note'>In each family, A is the policy ranked higher there (by mean score), "
        "so a difference is how far the better one is ahead; rows follow the ranking — the best "
        "policy against each other first. A difference whose interval excludes 0 separates the "
        "two. Shown: each policy against its neighbour in the ranking and against "
        "oracle and random; every pair is under “all pairs”.</p>",
    ]
    for fam in families:
        rows = oriented_pairs([p for p in paired if p.family == fam], ranking.get(fam, []))
        if not rows:
            continue
        title = "All families" if fam == ALL_FAMILIES else f"Family {fam}"
        opened = " open" if fam == ALL_FAMILIES else ""
        shown = key_pairs(rows, ranking.get(fam, []))
        rest = (
            f"<details><summary>all {len(rows)} pairs</summary>{_table(rows)}</details>"
            if len(shown) < len(rows)
            else ""
        )
        out.append(
            f"<details{opened}><summary><b>{_e(title)}</b> <span class='note'>{len(shown)} of "
            f"{len(rows)} pairs shown</span></summary>{_table(shown)}{rest}</details>"
        )
    return "\n".join(out)
