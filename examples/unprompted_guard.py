"""The unprompted-guard table of docs/benchmark.md ("Unprompted condition"), from one command.

Runs (or, with ``--results``, reads) ::

    heedful bench run --family B --condition both --count 200 --trials 4 --seed 0 \\
        --policies summary-trusting,voc-guarded,voc-model-guarded,oracle

and prints the markdown table: spontaneous authoritative read on ``B/unprompted`` (with its 95 %
interval), the same split by whether the ``oracle`` policy reads the authoritative source in the
same scenario and trial, claim accuracy, summary substitution, the unprompted score and the
initiation gap (or "n/a — reads no task text").

    .venv/bin/python examples/unprompted_guard.py              # runs into runs/unprompted-guard
    .venv/bin/python examples/unprompted_guard.py --results runs/unprompted-guard/results.json
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from heedful.bench.results import Results, TrialRecord, load_results
from heedful.bench.stats import MeanCI, PairedDiff, Proportion, proportion

ROOT = Path(__file__).resolve().parents[1]
POLICIES = ("summary-trusting", "voc-guarded", "voc-model-guarded", "oracle")
FAMILY, UNPROMPTED = "B", "B/unprompted"


def _pct(p: Proportion) -> str:
    if p.p is None:
        return "—"
    return f"{100 * p.p:.0f} % [{100 * p.lo:.0f}, {100 * p.hi:.0f}]"


def _mean(m: MeanCI | None) -> str:
    return "—" if m is None else f"{m.mean:.1f} [{m.lo:.1f}, {m.hi:.1f}]"


def _diff(d: PairedDiff | None) -> str:
    return "—" if d is None else f"{d.mean:+.1f} [{d.lo:.1f}, {d.hi:.1f}]"


def _split(mine: list[TrialRecord], oracle_reads: dict[tuple[str, int], bool], want: bool) -> str:
    group = [
        t
        for t in mine
        if t.initiation is not None and oracle_reads.get((t.scenario_id, t.trial)) is want
    ]
    k = sum(1 for t in group if t.initiation is not None and t.initiation.authoritative_inspected)
    return _pct(proportion(k, len(group)))


def table(results: Results) -> str:
    """The markdown table of docs/benchmark.md for one results file."""
    unprompted = [
        t
        for t in results.trials
        if t.initiation is not None and t.initiation.scenario_condition == "unprompted"
    ]
    oracle_reads = {
        (t.scenario_id, t.trial): bool(t.initiation and t.initiation.authoritative_inspected)
        for t in unprompted
        if t.policy == "oracle"
    }
    n_yes = sum(oracle_reads.values())
    n_no = len(oracle_reads) - n_yes
    agg = results.aggregates
    init = {(r.family, r.policy): r for r in agg.initiation}
    gaps = {(r.family, r.policy): r for r in agg.initiation_gap}
    scores = {(r.family, r.policy): r for r in agg.inspection_rows()}
    lines = [
        "| policy | spontaneous authoritative read (B/unprompted) "
        f"| … where the oracle reads it ({n_yes} trials) | … where it does not ({n_no}) "
        "| claim accuracy | summary substitution | score unprompted | initiation gap (score) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    policies = [p for p in POLICIES if (UNPROMPTED, p) in init]
    for policy in policies:
        row = init[(UNPROMPTED, policy)]
        mine = [t for t in unprompted if t.policy == policy]
        sub = row.summary_substitution
        gap = gaps.get((FAMILY, policy))
        if gap is None or not gap.reads_task:
            gap_text = "n/a — reads no task text"
        else:
            gap_text = _diff(gap.score)
        score = scores.get((UNPROMPTED, policy))
        lines.append(
            f"| `{policy}` | {_pct(row.authoritative_rate)} "
            f"| {_split(mine, oracle_reads, True)} | {_split(mine, oracle_reads, False)} "
            f"| {_pct(row.claim_accuracy)} | {_pct(sub)} ({sub.k}/{sub.n}) "
            f"| {_mean(score.score if score else None)} | {gap_text} |"
        )
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--results", type=Path, help="read this results.json instead of running")
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--trials", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=ROOT / "runs" / "unprompted-guard")
    args = p.parse_args()
    path = args.results
    if path is None:
        heedful = Path(sys.executable).with_name("heedful")
        cmd = [
            str(heedful),
            "bench",
            "run",
            "--family",
            FAMILY,
            "--condition",
            "both",
            "--count",
            str(args.count),
            "--trials",
            str(args.trials),
            "--seed",
            str(args.seed),
            "--policies",
            ",".join(POLICIES),
            "--out",
            str(args.out),
            "--json",
        ]
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL, check=False)
        if done.returncode != 0:
            return done.returncode
        path = args.out / "results.json"
    print(table(load_results(path)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
