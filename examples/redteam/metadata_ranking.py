"""Red team: does each family measure value of information, or a metadata ranking?

    .venv/bin/python examples/redteam/metadata_ranking.py --count 100 [--markdown]

Runs :func:`heedful.bench.validity.ranking.metadata_ranking` on each inspection family: a ranking
of the sources that report a decision variable by authority, age and number of reports, fitted
on development seed ``seed + 1000`` and scored on seed ``seed`` (static condition) beside
``voc-model``, paired. Prints each family's two scores, the gap with its 95% interval, whether
it separates the two (gap ≥ 15) and what the family says it measures; exits 1 when a family
claims value of information without separating it (``check_measures``).
"""

from __future__ import annotations

import argparse
import sys

from heedful.bench.validity.ranking import SEPARATION, VALUE_OF_INFORMATION, metadata_ranking
from heedful.bench.worlds.families import FAMILIES, get_family
from heedful.errors import HeedfulError


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 1 on a family whose claim fails, 2 on bad arguments."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", default="all")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    try:
        if args.count < 2:
            raise ValueError(f"--count must be at least 2, got {args.count}")
        codes = sorted(FAMILIES) if args.family == "all" else args.family.split(",")
        fams = [get_family(c) for c in codes]
    except (HeedfulError, ValueError) as exc:
        print(f"metadata_ranking: {exc}", file=sys.stderr)
        return 2
    failed = False
    if args.markdown:
        print("| family | voc-model | fitted ranking | gap [95% CI] | separates | measures |")
        print("|---|---:|---:|---:|---|---|")
    for fam in fams:
        r = metadata_ranking(fam.code, count=args.count, seed=args.seed)
        claims = fam.measures.startswith(VALUE_OF_INFORMATION)
        failed |= claims and not r.separates
        what = fam.measures.split(":")[0] if fam.measures else "(not said)"
        gap = f"{r.gap.mean:+.1f} [{r.gap.lo:+.1f}, {r.gap.hi:+.1f}]"
        sep = "yes" if r.separates else "no"
        if args.markdown:
            row = [f"{fam.code} ({fam.version})", f"{r.reference.mean:.1f}"]
            print("| " + " | ".join([*row, f"{r.ranking.mean:.1f}", gap, sep, what]) + " |")
        else:
            print(
                f"{fam.code} ({fam.version}): voc-model {r.reference.mean:.1f}, ranking "
                f"{r.ranking.mean:.1f}, gap {gap}, separates (≥ {SEPARATION:g}): {sep}; "
                f"measures {what}",
                flush=True,
            )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
