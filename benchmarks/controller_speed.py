"""Speed of ranking and selection among many candidates (document 000 §31 question 2).

Run: ``.venv/bin/python benchmarks/controller_speed.py``. For N candidates held as columns
(confidence, age, hazard, authority, pivotality, loss, cost, switch cost, floor, aging, goal
starvation) it times one *selection*: the vectorised heuristic VOC of SPEC §4.1 followed by
:func:`heedful.attention.choose` (floors → starvation service → best net VOC + bounded aging →
stopping rule). Goals: ≤ 20 ms and ≤ 200 MB at N = 100,000; linear growth up to 1,000,000.

Every time is printed with a ratio against a baseline measured in the same run: a pure-Python
``sorted`` of the same N net values (what a naive priority queue rebuild costs).
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable

import numpy as np

from heedful.attention import choose, heuristic_voc

SIZES = (10_000, 100_000, 1_000_000)


def _columns(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    hazards = np.array([0.0, 0.001, 0.05, 0.5, 5.0]) / 3600.0
    floor = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    return {
        "confidence": rng.uniform(0.3, 1.0, n),
        "age": rng.uniform(0.0, 86_400.0, n),
        "hazard": hazards[rng.integers(0, 5, n)],
        "authority": rng.uniform(0.1, 1.0, n),
        "pivotality": rng.uniform(0.0, 1.0, n),
        "loss": rng.uniform(0.0, 2.0, n),
        "cost": rng.uniform(0.5, 3.0, n),
        "switch": rng.uniform(0.0, 0.1, n),
        "floor": floor,
        "bonus": np.minimum(0.01 * rng.integers(0, 20, n), 0.05),
        "starving": rng.random(n) < 0.001,
        "explore": rng.random(n) < 0.01,
    }


def _select(c: dict[str, np.ndarray]) -> int | None:
    net = heuristic_voc(
        c["confidence"],
        c["age"],
        c["hazard"],
        c["authority"],
        c["pivotality"],
        c["loss"],
        c["cost"],
        c["switch"],
        0.01,
        1.0,
    )
    return choose(net, c["floor"], c["bonus"], c["starving"], c["explore"]).index


def _best_of(fn: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    """Measure and print."""
    rng = np.random.default_rng(0)
    base_per_item = None
    print(f"{'N':>10} {'select ms':>10} {'sort ms':>9} {'select/sort':>12} {'ns/cand':>8} growth")
    for n in SIZES:
        cols = _columns(n, rng)
        values = cols["loss"].tolist()
        repeats = 5 if n <= 100_000 else 2
        t_sel = _best_of(lambda cols=cols: _select(cols), repeats)  # type: ignore[misc]
        t_sort = _best_of(lambda values=values: sorted(values), repeats)  # type: ignore[misc]
        per = t_sel / n
        base_per_item = base_per_item or per
        print(
            f"{n:>10,} {t_sel * 1e3:>10.2f} {t_sort * 1e3:>9.2f} {t_sel / t_sort:>11.2f}x "
            f"{per * 1e9:>8.1f} {per / base_per_item:.2f}x per candidate vs N={SIZES[0]:,}"
        )
    cols = _columns(100_000, rng)
    tracemalloc.start()
    _select(cols)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    col_bytes = sum(a.nbytes for a in cols.values())
    print(
        f"N=100,000: candidate columns {col_bytes / 1e6:.1f} MB, selection peak {peak / 1e6:.1f} MB"
    )


if __name__ == "__main__":
    main()
