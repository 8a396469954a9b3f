"""Speed of dirty propagation over a 100,000-belief dependency graph (document 000 §4.6).

Run: ``.venv/bin/python benchmarks/memory_speed.py [N]`` (``--quick``: N = 10,000). Builds N
claims (default 100,000) in a file store: claim *i* is ``derived_from`` a random earlier claim,
plus N/2 random forward ``supports`` edges, so changing the root dirties every other claim.
Times ``Store.mark_changed`` (one recursive SQL query) against a naive baseline measured in the
same run — a Python BFS issuing one SELECT and one UPDATE per claim — and prints the ratio.
Goal: ≤ 1 s for 100,000 beliefs.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import deque
from pathlib import Path

import numpy as np

from heedful.memory import Store
from heedful.model.claim import Claim, Justification, JustificationKind

SEED = 20261129


def build(store: Store, n: int) -> None:
    """Load ``n`` claims and about ``1.5 n`` justifications."""
    rng = np.random.default_rng(SEED)
    store.add_claims(
        [Claim(id=f"c{i}", subject=f"v{i}", value=0, observed_at=0.0) for i in range(n)]
    )
    parents = [int(rng.integers(0, i)) for i in range(1, n)]
    js = [
        Justification(subject=f"c{i}", kind=JustificationKind.DERIVED_FROM, object=f"c{p}")
        for i, p in zip(range(1, n), parents, strict=True)
    ]
    for _ in range(n // 2):
        a, b = sorted(int(x) for x in rng.integers(0, n, size=2))
        if a != b:
            js.append(
                Justification(subject=f"c{a}", kind=JustificationKind.SUPPORTS, object=f"c{b}")
            )
    store.add_justifications(js)


def naive_mark_changed(store: Store, root: str, reason: str) -> set[str]:
    """Baseline: BFS with one query per claim and one UPDATE per dependent."""
    conn = store._conn
    seen: set[str] = set()
    queue = deque([root])
    conn.execute("BEGIN IMMEDIATE")
    while queue:
        node = queue.popleft()
        rows = conn.execute(
            "SELECT d.id FROM claims AS u JOIN justifications AS j ON j.up = u.rid"
            " JOIN claims AS d ON d.rid = j.down WHERE u.id = ?",
            (node,),
        ).fetchall()
        for (nxt,) in rows:
            if nxt not in seen and nxt != root:
                seen.add(nxt)
                queue.append(nxt)
                conn.execute(
                    "UPDATE claims SET dirty = 1, dirty_reason = ?, dirty_cause = ? WHERE id = ?",
                    (reason, root, nxt),
                )
    conn.execute("COMMIT")
    return seen


def reset(store: Store) -> None:
    store._conn.execute("UPDATE claims SET dirty = 0, dirty_reason = NULL, dirty_cause = NULL")


def main() -> None:
    """Build, measure and print."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", nargs="?", type=int, metavar="N", help="claims (default 100,000)")
    ap.add_argument("--quick", action="store_true", help="10,000 claims (unless N is given)")
    args = ap.parse_args()
    if args.n is not None and args.n < 2:
        ap.error(f"N must be at least 2, not {args.n}")
    n = args.n if args.n is not None else 10_000 if args.quick else 100_000
    with tempfile.TemporaryDirectory() as tmp, Store.open(Path(tmp) / "bench.db") as store:
        start = time.perf_counter()
        build(store, n)
        print(f"claims: {n:,}  build: {time.perf_counter() - start:.1f} s")
        best_store = best_naive = float("inf")
        for _ in range(3):
            reset(store)
            start = time.perf_counter()
            dirtied = store.mark_changed("c0", "benchmark")
            best_store = min(best_store, time.perf_counter() - start)
            reset(store)
            start = time.perf_counter()
            naive = naive_mark_changed(store, "c0", "benchmark")
            best_naive = min(best_naive, time.perf_counter() - start)
            assert dirtied == naive and len(dirtied) == n - 1
        print(f"dirtied: {len(dirtied):,}")
        print(f"mark_changed (recursive CTE): {best_store:.3f} s  (goal ≤ 1 s)")
        print(f"naive per-claim query loop:   {best_naive:.3f} s")
        print(f"ratio naive/store: {best_naive / best_store:.1f}x")


if __name__ == "__main__":
    main()
