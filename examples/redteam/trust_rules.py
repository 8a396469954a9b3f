"""Red team: family K's trust give-away checks (document 000 §24), with their intervals.

    .venv/bin/python examples/redteam/trust_rules.py --count 60 --seed 0

Runs :func:`heedful.bench.validity.trust.check_trust`: ``voc-model`` (each source registered as
the view marks it, the controller's trust rule applied), the trust-everything rule
(``voc-trust-all``) and the trust-nothing rule (``voc-trust-none``), static condition, on the
same scenarios; prints each rule's mean score and its paired gap below ``voc-model`` with 95%
bootstrap intervals, then PASS (each gap at least 25 points) or FAIL.
"""

from __future__ import annotations

import argparse
import sys

from heedful.bench.validity.trust import REFERENCE, TrustReport, measure_trust
from heedful.errors import HeedfulError


def _lines(report: TrustReport) -> list[str]:
    ref = report.reference
    out = [
        f"family {report.family}: {report.informative} informative scenarios; {REFERENCE} "
        f"{ref.mean:.1f} [{ref.lo:.1f}, {ref.hi:.1f}]"
    ]
    for g in report.gaps:
        out.append(
            f"  {g.rule:<16} ({g.policy}) {g.score.mean:6.1f} [{g.score.lo:.1f}, "
            f"{g.score.hi:.1f}]; {REFERENCE} − it: {g.gap.mean:+.1f} [{g.gap.lo:+.1f}, "
            f"{g.gap.hi:+.1f}]"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the report; exit 1 when a rule comes within the margin, 2 on bad arguments."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", default="K")
    ap.add_argument("--count", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--margin", type=float, default=25.0)
    args = ap.parse_args(argv)
    try:
        if args.count < 2:
            raise ValueError(f"--count must be at least 2, got {args.count}")
        report = measure_trust(args.family, count=args.count, seed=args.seed)
    except (HeedfulError, ValueError) as exc:
        print(f"trust_rules: {exc}", file=sys.stderr)
        return 2
    print("\n".join(_lines(report)))
    short = [g.rule for g in report.gaps if g.gap.mean < args.margin]
    print(f"FAIL: {', '.join(short)} within {args.margin:g} points" if short else "PASS")
    return 1 if short else 0


if __name__ == "__main__":
    raise SystemExit(main())
