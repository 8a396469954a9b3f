"""Red team: ``check_family`` on every family, with each give-away probe's interval.

    .venv/bin/python examples/redteam/check_families.py --count 150

Runs :func:`heedful.bench.validity.checks.check_family` (training seed 1000, test seed 0) and
prints, per family, PASS or the failures, then every probe's paired excess over random among the
relevant sources with its 95% interval: net for every probe, and gross (``cost_weight`` 0) for the
probes that read the cost — the figure the check judges them on (docs/benchmark.md, "Checks").
"""

from __future__ import annotations

import argparse
import sys

from heedful.bench.validity.checks import CheckError, FamilyReport, check_family
from heedful.bench.worlds.families import family_names, get_family
from heedful.errors import HeedfulError


def _lines(report: FamilyReport) -> list[str]:
    return [
        f"  {p.probe:<12} {'gross' if p.gross else 'net':<5} {p.mean:6.1f} "
        f"(random among relevant {p.baseline:.1f}) excess {p.excess:+.1f} "
        f"[{p.excess_low:+.1f}, {p.excess_high:+.1f}], {p.n} informative"
        for p in (*report.probes, *report.gross)
    ]


def main(argv: list[str] | None = None) -> int:
    """Print every family's verdict; exit 1 if one fails, 2 with one line on bad arguments."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", default="all")
    ap.add_argument("--count", type=int, default=24)
    args = ap.parse_args(argv)
    failed = False
    try:
        if args.count < 2:
            raise ValueError(f"--count must be at least 2, got {args.count}")
        codes = family_names() if args.family == "all" else args.family.split(",")
        for code in codes:
            fam = get_family(code)
            try:
                report = check_family(fam.code, count=args.count)
            except CheckError as exc:
                failed = True
                print(f"{fam.code} ({fam.version}): FAIL — {exc}", flush=True)
                continue
            print(f"{fam.code} ({fam.version}): PASS", flush=True)
            print("\n".join(_lines(report)), flush=True)
    except (HeedfulError, ValueError) as exc:
        print(f"check_families: {exc}", file=sys.stderr)
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
