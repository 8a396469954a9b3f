"""Red team: today's give-away verdict on the generators of an older commit.

    .venv/bin/python examples/redteam/probes_at_commit.py --commit c660901 --count 150

Exports ``src/`` of ``--commit`` (``git archive``) into a temporary folder, drops today's
``heedful/bench/validity/giveaways.py`` into it, and runs there, on that commit's generators,
what ``check_family`` judges: every probe fitted on seed 1000 and scored on seed 0, the probes
that read the cost on the gross decision value (docs/benchmark.md, "Checks"). Prints per family
PASS or FAIL with every failing probe's excess and interval, and the net ``cost`` probe beside.
(The older tree's own ``checks.py`` may predate today's; only the probes are carried over.)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GIVEAWAYS = REPO / "src" / "heedful" / "bench" / "validity" / "giveaways.py"

_RUN = r"""
import sys
import numpy as np
from heedful.bench.validity.giveaways import COST_PROBES, PROBES, score_probe, solve
from heedful.bench.worlds.families import generate_family, get_family
count = int(sys.argv[2])
for code in sys.argv[1].split(","):
    fam = get_family(code)
    train, test = generate_family(code, count, 1000), generate_family(code, count, 0)
    rng = np.random.default_rng(0)
    net = [score_probe(p, solve(train), solve(test), rng) for p in PROBES]
    gross = {p: score_probe(p, solve(train, gross=True), solve(test, gross=True), rng)
             for p in COST_PROBES}
    fails = []
    for s in net:
        j = gross.get(s.probe, s)
        if j.excess_low > 10:
            tag = " (gross)" if j.gross else ""
            ci = f"[{j.excess_low:+.1f}, {j.excess_high:+.1f}]"
            fails.append(f"{j.probe}{tag} {j.excess:+.1f} {ci}")
    c = next(s for s in net if s.probe == "cost")
    print(f"{fam.code} ({fam.version}): {'FAIL' if fails else 'PASS'}"
          + (": " + "; ".join(fails) if fails else "")
          + f" | cost net {c.excess:+.1f} [{c.excess_low:+.1f}, {c.excess_high:+.1f}]", flush=True)
"""


def main(argv: list[str] | None = None) -> int:
    """Print the verdicts; exit 2 with one line on bad arguments or an unknown commit."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commit", required=True)
    ap.add_argument("--family", default="A,B,C,E,F,G,H,I")
    ap.add_argument("--count", type=int, default=60)
    args = ap.parse_args(argv)
    if args.count < 2:
        print(f"probes_at_commit: --count must be at least 2, got {args.count}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "src.tar"
        done = subprocess.run(
            ["git", "-C", str(REPO), "archive", "-o", str(archive), args.commit, "src"],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            print(f"probes_at_commit: {done.stderr.strip()}", file=sys.stderr)
            return 2
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        shutil.copy(GIVEAWAYS, Path(tmp) / "src" / "heedful" / "bench" / "validity")
        env = {**os.environ, "PYTHONPATH": str(Path(tmp) / "src")}
        return subprocess.run(
            [sys.executable, "-c", _RUN, args.family, str(args.count)], env=env, cwd=tmp
        ).returncode


if __name__ == "__main__":
    raise SystemExit(main())
