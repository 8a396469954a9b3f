"""Which fit helps? Regret search objectives against the estimators, family by family.

Run: ``.venv/bin/python benchmarks/learn_search.py`` (``--quick`` for a smoke run).

Fits the regret-search model (``heedful.learn.search``) on ``--count`` training scenarios per
family of ``--family`` (root seed ``--seed``, the training stream) once per objective, and scores
every fit — with the no-correction model (``voc-model``'s ranking), the heuristic estimate
(``voc``'s ranking) and the shipped default model — by the exact static regret and the exact
attention score (``100 · (1 − regret / (V* − U_random))``) of the policy each drives, on
``--eval-count`` scenarios per family of *every* family from the training stream of root seed
``--eval-seed`` (a seed no training used; never a bench development or hold-out scenario). The
rollouts are the controller's own rule on cached feature vectors (``heedful.learn.validate``).

Printed per family: mean regret and score, and the paired gain in regret over ``voc-model``'s
ranking ± one standard error (positive: better).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from heedful.bench.worlds.families import FAMILIES
from heedful.learn.config import RankerConfig
from heedful.learn.dataset import training_scenarios
from heedful.learn.features import FEATURE_NAMES, FeatureExtractor
from heedful.learn.model_files import load_ranker
from heedful.learn.search import regret_search
from heedful.learn.validate import state_caches

_HEUR = FEATURE_NAMES.index("heur_net")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", default="G,B,C,E", help="training families")
    ap.add_argument("--count", type=int, default=100, help="training scenarios per family")
    ap.add_argument("--seed", type=int, default=0, help="training root seed")
    ap.add_argument("--eval-count", type=int, default=150, help="scenarios per family scored")
    ap.add_argument("--eval-seed", type=int, default=8, help="root seed of the scored scenarios")
    ap.add_argument("--objectives", default="regret,score,both")
    ap.add_argument("--quick", action="store_true", help="small counts (smoke run)")
    args = ap.parse_args()
    if args.quick:
        args.count, args.eval_count = 3, 4
    ext = FeatureExtractor()
    train_families = args.family.split(",")
    scorers = {
        "voc (heuristic)": lambda x: x[:, _HEUR],
        "voc-model (none)": lambda x: x[:, 0],
        "shipped default": load_ranker(None).predict,
    }
    train = state_caches(
        [s for f in train_families for s in training_scenarios(f, args.count, args.seed)], ext
    )
    for kind in args.objectives.split(","):
        start = time.perf_counter()
        model, report = regret_search(train, RankerConfig(search_objective=kind))
        terms = ", ".join(f"{k} {v:+.4f}" for k, v in report["terms"].items()) or "none"
        print(f"search ({kind}) on {args.family} × {args.count}: {terms}; intercept "
              f"{report['intercept']:+.4f}; {time.perf_counter() - start:.0f} s")  # fmt: skip
        scorers[f"search ({kind})"] = model.predict
    families = sorted(FAMILIES)
    evals = {f: state_caches(training_scenarios(f, args.eval_count, args.eval_seed), ext)
             for f in families}  # fmt: skip
    print(f"\nscored on {args.eval_count} training-stream scenarios per family, root seed "
          f"{args.eval_seed}: regret / score / regret gain over voc-model ± 1 SE")  # fmt: skip
    print(f"{'':18s}" + "".join(f"{f:>28s}" for f in families))
    base = {f: np.array([c.regret(scorers["voc-model (none)"]) for c in evals[f]])
            for f in families}  # fmt: skip
    for name, score in scorers.items():
        cells = []
        for f in families:
            regret = np.array([c.regret(score) for c in evals[f]])
            losses = [v for c in evals[f] if (v := c.score_loss(score)) is not None]
            gain = base[f] - regret
            se = gain.std(ddof=1) / np.sqrt(gain.size) if gain.size > 1 else 0.0
            cells.append(f"{regret.mean():.4f} {100 - np.mean(losses):5.1f} "
                         f"{gain.mean():+.4f}±{se:.4f}")  # fmt: skip
        print(f"{name:18s}" + "".join(f"{c:>28s}" for c in cells))


if __name__ == "__main__":
    main()
