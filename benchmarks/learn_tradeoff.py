"""Why `voc-learned` gains regret but loses score on E and F: the read-more trade-off, measured.

Run: ``.venv/bin/python benchmarks/learn_tradeoff.py`` (``--quick`` for a smoke run).

The shipped model reads where the model-based estimate says a read is not worth its cost but the
heuristic sees a sizeable chance of a decision change (``model_net + 0.179 · heur_gross …``).
The attention score divides each scenario's regret by its ``V* − U_random``, so one needless
read in a scenario where little is at stake costs many points, while the large losses the extra
reads avoid fall where much is at stake. This script measures whether any visible signal lets a
gate tell the two apart:

1. **The frontier of the gate.** Mean exact static regret and score of the controller ranking by
   ``model_net + w · heur_gross`` for a sweep of ``w`` (``w = 0`` is ``voc-model``; the shipped
   model is close to ``w = 0.179``), with ``voc``, ``voc-model`` and the shipped model.
2. **Stake-aware gates.** The shipped score with a penalty ``λ · cost / model_vpi`` (reads cost
   more where the estimated problem has little value of perfect information) and the shipped
   score only where ``cost < θ · model_vpi`` (``voc-model``'s elsewhere).
3. **Can the stakes be seen?** Per family, the correlation over scenarios of the true
   ``V* − U_random`` with visible proxies at the first choice: the estimated problem's value of
   perfect information (``model_vpi``), the best heuristic gross value, the cheapest read's cost.
4. **Where the score goes.** The paired score and regret differences between the shipped model
   and ``voc-model`` per scenario, grouped by the scenario's true ``V* − U_random``.

Scenarios: ``--count`` per family of the *training* stream of root seed ``--seed`` (default 8: a
seed no training or validation used; never a bench development or hold-out scenario), exact
static values (``heedful.learn.validate``), shift 1 (the bench's).
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Callable

import numpy as np

from heedful.bench.worlds.families import FAMILIES
from heedful.learn.dataset import training_scenarios
from heedful.learn.features import FEATURE_NAMES, FeatureExtractor
from heedful.learn.model_files import load_ranker
from heedful.learn.validate import StateCache, state_caches

_I = {n: i for i, n in enumerate(FEATURE_NAMES)}
Scorer = Callable[[np.ndarray], np.ndarray]


def _gate(w: float) -> Scorer:
    return lambda x: x[:, _I["model_net"]] + w * x[:, _I["heur_gross"]]


def _cell(caches: list[StateCache], score: Scorer) -> str:
    regret = np.mean([c.regret(score) for c in caches])
    losses = [v for c in caches if (v := c.score_loss(score)) is not None]
    return f"{regret:.4f}/{100 - np.mean(losses):5.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=150, help="scenarios per family")
    ap.add_argument("--seed", type=int, default=8, help="root seed (training stream)")
    ap.add_argument("--family", default=",".join(sorted(FAMILIES)))
    ap.add_argument("--quick", action="store_true", help="small counts (smoke run)")
    args = ap.parse_args()
    if args.quick:
        args.count = 4
    families = args.family.split(",")
    ext = FeatureExtractor()
    caches = {f: state_caches(training_scenarios(f, args.count, args.seed), ext) for f in families}
    shipped = load_ranker(None).predict
    model_only: Scorer = lambda x: x[:, _I["model_net"]]  # noqa: E731
    rows: list[tuple[str, Scorer]] = [
        ("voc (heuristic)", lambda x: x[:, _I["heur_net"]]),
        ("voc-model (w = 0)", model_only),
        ("shipped model", shipped),
    ]
    rows += [(f"w = {w}", _gate(w)) for w in (0.02, 0.05, 0.1, 0.179, 0.25, 0.5)]

    def penalised(lam: float) -> Scorer:
        return lambda x: (
            shipped(x) - lam * x[:, _I["cost_term"]] / np.maximum(x[:, _I["model_vpi"]], 1e-3)
        )

    def gated(theta: float) -> Scorer:
        return lambda x: np.where(
            x[:, _I["cost_term"]] < theta * x[:, _I["model_vpi"]],
            shipped(x),
            np.minimum(shipped(x), x[:, _I["model_net"]]),
        )

    rows += [(f"shipped − {lam}·cost/vpi", penalised(lam)) for lam in (0.005, 0.02)]
    rows += [(f"shipped if cost < {t}·vpi", gated(t)) for t in (0.05, 0.1, 0.2)]

    print(f"1–2. mean static regret / score, {args.count} scenarios per family "
          f"(training stream, root seed {args.seed})")  # fmt: skip
    print(f"{'':26s}" + "".join(f"{f:>13s}" for f in families))
    for name, score in rows:
        print(f"{name:26s}" + "".join(f"{_cell(caches[f], score):>13s}" for f in families))

    print("\n3. correlation over scenarios of V* − U_random with visible proxies at the first "
          "choice")  # fmt: skip
    print(f"{'':26s}" + "".join(f"{f:>8s}" for f in families))
    proxies = {
        "model_vpi": lambda x: x[:, _I["model_vpi"]].max(),
        "best heur_gross": lambda x: x[:, _I["heur_gross"]].max(),
        "cheapest cost": lambda x: x[:, _I["cost_term"]].min(),
    }
    first: dict[str, list[tuple[float, np.ndarray]]] = {}
    for f in families:
        first[f] = []
        for c in caches[f]:
            c.rollout(model_only)  # expands the empty state
            states = c.states.get(frozenset(), {})
            if c.gap > 1e-9 and states:
                first[f].append((c.gap, np.array(list(states.values()))))
    for name, proxy in proxies.items():
        cells = []
        for f in families:
            gaps = np.array([g for g, _ in first[f]])
            vals = np.array([proxy(x) for _, x in first[f]])
            ok = gaps.size > 2 and gaps.std() > 0 and vals.std() > 0
            cells.append(f"{np.corrcoef(gaps, vals)[0, 1]:+8.2f}" if ok else f"{'—':>8s}")
        print(f"{name:26s}" + "".join(cells))

    print("\n4. shipped model − voc-model per scenario, by the scenario's V* − U_random: "
          "n, mean score difference, mean regret difference (> 0: shipped better)")  # fmt: skip
    edges = (0.0, 0.03, 0.1, 0.3, np.inf)
    for f in families:
        cells = []
        for lo, hi in itertools.pairwise(edges):
            sel = [c for c in caches[f] if lo <= c.gap < hi and c.gap > 1e-9]
            if not sel:
                cells.append(f"[{lo:g},{hi:g}) —")
                continue
            ds = [100 * (c.regret(model_only) - c.regret(shipped)) / c.gap for c in sel]
            dr = [c.regret(model_only) - c.regret(shipped) for c in sel]
            cells.append(f"[{lo:g},{hi:g}) n={len(sel)} {np.mean(ds):+.1f} {np.mean(dr):+.4f}")
        print(f"  {f}: " + " | ".join(cells))


if __name__ == "__main__":
    main()
