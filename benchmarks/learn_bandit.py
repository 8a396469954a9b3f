"""The contextual bandit learning online: regret over turns against fixed ``voc``/``voc-model``.

Run: ``.venv/bin/python benchmarks/learn_bandit.py`` (``--quick`` for a smoke run;
``--svg FILE`` draws the curves).

A stream of scenarios (one per turn; development seed stream; worlds at ``--shift``,
default the bench's 1) is run by the LinUCB bandit (document 000 §20.2: updated only
from the reads it made, bounded exploration §20.4, state saved in a memory store every turn) and
by the fixed ``voc``, ``voc-model`` and ``voc-learned`` (the bandit's starting point) policies on
the same turns. Printed: the mean static regret
per window of turns for each, with the spread over seeds (mean ± 95% t-interval over seeds), and
the first turn after which the bandit's running mean regret stays below fixed ``voc``.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from heedful.bench.worlds.families import generate_family
from heedful.bench.worlds.families._worlds import DEFAULT_SHIFT
from heedful.learn.bandit import BanditEstimator
from heedful.learn.model_files import load_ranker
from heedful.learn.online import bandit_stream, fixed_stream, fresh_bandit
from heedful.memory import Store

T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 9: 2.26}


def _ci(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = rows.mean(axis=0)
    n = rows.shape[0]
    if n < 2:
        return mean, np.zeros_like(mean)
    half = T95.get(n - 1, 2.0) * rows.std(axis=0, ddof=1) / math.sqrt(n)
    return mean, half


def _svg(curves: dict[str, tuple[np.ndarray, np.ndarray]], path: Path) -> None:
    w, h, pad = 640, 360, 40
    top = max(float((m + c).max()) for m, c in curves.values()) or 1.0
    n = len(next(iter(curves.values()))[0])
    colours = {"voc": "#d62728", "voc-model": "#1f77b4", "voc-learned": "#9467bd"}
    colours["bandit"] = "#2ca02c"

    def xy(i: int, v: float) -> str:
        x = pad + i * (w - 2 * pad) / max(n - 1, 1)
        return f"{x:.1f},{h - pad - v / top * (h - 2 * pad):.1f}"

    title = "running mean regret over turns (band: 95% interval over seeds)"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}">',
        f'<text x="{pad}" y="20">{title}</text>',
        f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="#555"/>',
        f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="#555"/>',
        f'<text x="{pad}" y="{h - 12}">turn 1</text>',
        f'<text x="{w - pad - 50}" y="{h - 12}">turn {n}</text>',
        f'<text x="2" y="{pad - 4}">{top:.3f}</text>',
        f'<text x="20" y="{h - pad}">0</text>',
    ]
    for k, (name, (m, c)) in enumerate(curves.items()):
        col = colours.get(name, "#000")
        band = [xy(i, float(m[i] + c[i])) for i in range(n)]
        band += [xy(i, max(float(m[i] - c[i]), 0.0)) for i in reversed(range(n))]
        parts.append(f'<polygon points="{" ".join(band)}" fill="{col}" opacity="0.15"/>')
        line = " ".join(xy(i, float(m[i])) for i in range(n))
        parts.append(f'<polyline points="{line}" fill="none" stroke="{col}" stroke-width="2"/>')
        parts.append(f'<text x="{w - pad - 90}" y="{40 + 15 * k}" fill="{col}">{name}</text>')
    parts.append("</svg>")
    path.write_text("\n".join(parts), encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", default="G")
    ap.add_argument("--turns", type=int, default=120)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--window", type=int, default=20)
    ap.add_argument("--shift", type=float, default=DEFAULT_SHIFT, help="hidden-world shift")
    ap.add_argument("--store", default=":memory:", help="memory store for the bandit state")
    ap.add_argument("--svg", default=None, help="write the regret curves to this SVG file")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.turns, args.seeds, args.window = 6, 2, 3
    kwargs = {"shift": args.shift}
    fixed = ("voc", "voc-model", "voc-learned")
    regrets: dict[str, list[np.ndarray]] = {n: [] for n in (*fixed, "bandit")}
    explored = 0
    for seed in range(args.seeds):
        stream = generate_family(args.family, args.turns, seed, **kwargs)
        for name in fixed:
            regrets[name].append(np.array([r.regret for r in fixed_stream(stream, name)]))
        est = BanditEstimator(fresh_bandit(), prior=load_ranker(None))
        with Store(args.store) as store:
            turns = bandit_stream(stream, est, np.random.default_rng(seed), store=store,
                                  name=f"bench-{seed}")  # fmt: skip
        regrets["bandit"].append(np.array([r.regret for r in turns]))
        explored += sum(r.explored for r in turns)
    print(f"family {args.family}, {args.turns} turns × {args.seeds} seeds, shift "
          f"{kwargs.get('shift')}; exploration reads {explored} of "
          f"{sum(len(r) for r in regrets['bandit'])} turns")  # fmt: skip
    print(f"{'turns':>10s} " + " ".join(f"{n:>22s}" for n in regrets))
    for start in range(0, args.turns, args.window):
        end = min(start + args.window, args.turns)
        cells = []
        for rows in regrets.values():
            m, c = _ci(np.array([r[start:end].mean() for r in rows])[:, None])
            cells.append(f"{m[0]:.4f} ± {c[0]:.4f}")
        print(f"{start + 1:4d}–{end:<5d} " + " ".join(f"{c:>22s}" for c in cells))
    running = {
        n: _ci(np.array([np.cumsum(r) / np.arange(1, len(r) + 1) for r in rows]))
        for n, rows in regrets.items()
    }
    below = running["bandit"][0] < running["voc"][0]
    after = next((i + 1 for i in range(len(below)) if below[i:].all()), None)
    print(f"bandit running mean regret below fixed voc from turn {after} on"
          if after else "bandit running mean regret does not stay below fixed voc")  # fmt: skip
    if args.svg:
        _svg(running, Path(args.svg))
        print(f"curves: {args.svg}")


if __name__ == "__main__":
    main()
