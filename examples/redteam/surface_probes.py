"""Red team: can a policy that reads only the surface pick the critical relevant source?

    .venv/bin/python examples/redteam/surface_probes.py --count 150

For every family, the give-away probes of ``check_family`` (heedful.bench.validity.giveaways) are
fitted on development seed 1000 and scored on seed 0, among the sources that report a decision
variable; beside them, random among those sources and ``voc-model`` (static condition, the same
scenarios). The probes that read the cost are printed twice: on the net value (the trial's
objective) and on the gross decision value (``cost_weight`` 0), the figure ``check_family``
judges them on. The goal (issue 23): every judged probe within 10 points of random among the
relevant sources, and at least 25 points below ``voc-model``. Prints a Markdown table
(docs/benchmark.md).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from heedful.bench import run_benchmark
from heedful.bench.validity.giveaways import COST_PROBES, PROBES, score_probe, solve
from heedful.bench.worlds.families import family_names, generate_family, get_family
from heedful.errors import HeedfulError


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 2 with one line on bad arguments."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", default="all")
    ap.add_argument("--count", type=int, default=60)
    args = ap.parse_args(argv)
    try:
        fams = family_names() if args.family == "all" else args.family.split(",")
        gross_head = [f"{p} (gross)" for p in COST_PROBES]
        head = [
            "family",
            "random (relevant)",
            *PROBES,
            "random (relevant, gross)",
            *gross_head,
            "max judged excess",
            "voc-model",
            "voc − max",
        ]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for code in fams:
            fam = get_family(code)
            train_set = generate_family(fam.code, args.count, 1000)
            scenarios = generate_family(fam.code, args.count, 0)
            train, test = solve(train_set), solve(scenarios)
            rng = np.random.default_rng(0)
            scores = [score_probe(p, train, test, rng) for p in PROBES]
            gtrain, gtest = solve(train_set, gross=True), solve(scenarios, gross=True)
            gross = [score_probe(p, gtrain, gtest, rng) for p in COST_PROBES]
            # What check_family judges: the gross score of a probe that reads the cost.
            judged = [next((g for g in gross if g.probe == s.probe), s) for s in scores]
            voc = run_benchmark(scenarios, ["voc-model"], trials=1, seed=0, progress=False)
            row = voc.aggregates.row("voc-model").score
            voc_mean = row.mean if row is not None else float("nan")
            cells = [
                f"{fam.code} ({fam.version})",
                f"{scores[0].baseline:.1f}",
                *(f"{s.mean:.1f}" for s in scores),
                f"{gross[0].baseline:.1f}",
                *(f"{g.mean:.1f}" for g in gross),
                f"{max(s.excess for s in judged):+.1f}",
                f"{voc_mean:.1f}",
                # voc-model is scored on the net value: beside the best net probe.
                f"{voc_mean - max(s.mean for s in scores):.1f}",
            ]
            print("| " + " | ".join(cells) + " |", flush=True)
    except (HeedfulError, ValueError) as exc:
        print(f"surface_probes: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
