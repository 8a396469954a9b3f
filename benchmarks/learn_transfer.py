"""Does the learned ranker beat the estimators it learns from, on families it never saw?

Run: ``.venv/bin/python benchmarks/learn_transfer.py`` (``--quick`` for a smoke run).

Goals (issue 11; document 000 §20.1, §31.8): ``voc-learned`` ≥ ``voc-model`` on families it was
not trained on and on shifted worlds, ≥ ``voc`` everywhere, with paired intervals.

1. The shipped default model (trained on its manifest's families, training seed stream) against
   ``voc`` and ``voc-model`` on *development* scenarios (a different seed stream) of its training
   families and of every other family (transfer).
2. The reverse transfer: a model trained here on the other families, evaluated on the default's
   (``--no-reverse`` skips it).
3. Every world is drawn at ``--shift`` (default: the bench's, 1 — the hidden model moved away
   from the controller's defaults; 0 is the controller's exact model).

Paired differences are clustered by scenario; the per-family table gives, for each family,
``regret(other) − regret(voc-learned)`` and ``score(voc-learned) − score(other)`` against
``voc-model`` and ``voc`` (positive: ``voc-learned`` is better).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from heedful.bench.parallel import resolve_workers
from heedful.bench.results import PolicySpec
from heedful.bench.run.backend import local_backend
from heedful.bench.worlds.families import FAMILIES, generate_family
from heedful.bench.worlds.families._worlds import DEFAULT_SHIFT
from heedful.learn.evaluate import compare_policies, gains_by_family
from heedful.learn.model_files import default_model_path, load_ranker
from heedful.learn.train import train_model


def _fmt(ci) -> str:  # type: ignore[no-untyped-def]
    return "—" if ci is None else f"{ci.mean:+.4f} [{ci.lo:+.4f}, {ci.hi:+.4f}]"


def _fmt_score(ci) -> str:  # type: ignore[no-untyped-def]
    return "—" if ci is None else f"{ci.mean:+.1f} [{ci.lo:+.1f}, {ci.hi:+.1f}]"


def evaluate(title: str, families: list[str], model_file: Path, args, shift) -> None:  # type: ignore[no-untyped-def]
    scenarios = [
        s for f in families for s in generate_family(f, args.count, args.seed, shift=shift)
    ]
    learned = PolicySpec(name="voc-learned", params={"model_file": str(model_file)})
    comp = compare_policies(
        scenarios, ["voc", "voc-model", learned], "voc-learned",
        trials=args.trials, seed=args.seed, adaptive=args.adaptive,
    )  # fmt: skip
    print(f"\n## {title}: families {','.join(families)} ({len(scenarios)} scenarios)")
    print(f"{'policy':14s} {'score':>8s} {'regret':>8s}   regret(policy) − regret(voc-learned)")
    for p in ("voc", "voc-model", "voc-learned"):
        s, r = comp.score[p], comp.regret[p]
        d = comp.paired.get(p)
        paired = (
            "" if d is None else f"{_fmt(d)}  (learned better {d.b_better}, worse {d.a_better})"
        )
        print(f"{p:14s} {s.mean if s else float('nan'):8.1f} {r.mean if r else 0:8.4f}   {paired}")
    fams = sorted({t.family for t in comp.results.trials})
    print("per family (score):  " + "  ".join(f"{f:>16s}" for f in fams))
    for p in ("voc", "voc-model", "voc-learned"):
        cells = []
        for f in fams:
            sc = comp.results.aggregates.row(p, f).score
            cells.append(f"{sc.mean:16.1f}" if sc else f"{'—':>16s}")
        print(f"  {p:18s}" + "  ".join(cells))
    print("per family, voc-learned better by (paired, 95% CI clustered by scenario; > 0: better):")
    print(f"  {'':3s} {'regret vs voc-model':>28s} {'regret vs voc':>28s} "
          f"{'score vs voc-model':>22s} {'score vs voc':>22s}")  # fmt: skip
    vs_model = gains_by_family(comp.results, "voc-learned", "voc-model", seed=args.seed)
    vs_voc = gains_by_family(comp.results, "voc-learned", "voc", seed=args.seed)
    for f in fams:
        (rm, sm), (rv, sv) = vs_model[f], vs_voc[f]
        print(f"  {f:3s} {_fmt(rm):>28s} {_fmt(rv):>28s} {_fmt_score(sm):>22s} "
              f"{_fmt_score(sv):>22s}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=20, help="evaluation scenarios per family")
    ap.add_argument(
        "--train-count", type=int, default=None,
        help="training scenarios per family of the reverse model (default: the default model's)",
    )  # fmt: skip
    ap.add_argument("--no-reverse", action="store_true", help="skip the reverse-transfer model")
    ap.add_argument(
        "--family", default=None,
        help="only evaluate the default model on these families (e.g. G,B: the default suite)",
    )  # fmt: skip
    ap.add_argument("--trials", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--adaptive", action="store_true")
    ap.add_argument("--shift", type=float, default=DEFAULT_SHIFT, help="hidden-world shift")
    ap.add_argument("--quick", action="store_true", help="small counts (smoke run)")
    args = ap.parse_args()
    if args.quick:
        args.count, args.train_count = 4, 3
    shift = args.shift
    default = load_ranker(None)
    if args.train_count is None:
        args.train_count = int(default.manifest["count"])
    trained_on = list(default.manifest["families"])
    others = [c for c in sorted(FAMILIES) if c not in trained_on]
    print(f"default model: {default_model_path()} (trained on {','.join(trained_on)}, "
          f"count {default.manifest['count']}, fit {default.manifest.get('fit', 'ridge')}); "
          f"condition "
          f"{'adaptive' if args.adaptive else 'static'}; shift {shift}")  # fmt: skip
    if args.family:
        chosen = args.family.split(",")
        evaluate("default model", chosen, default_model_path(), args, shift)
        return
    evaluate("default model, training families", trained_on, default_model_path(), args, shift)
    evaluate("default model, transfer families", others, default_model_path(), args, shift)
    if args.no_reverse:
        return
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        reverse = train_model(
            others, args.train_count, args.seed, backend=local_backend(resolve_workers(None))
        )
        path = Path(tmp) / "reverse.json"
        reverse.save(path)
        man = reverse.manifest
        terms = man["search"]["terms"] if man["fit"] == "search" and man["search"] else {}
        print(f"\nreverse model trained on {','.join(others)} in "
              f"{time.perf_counter() - start:.0f} s: fit {man['fit']} "
              f"{' '.join(f'{k} {v:+.4f}' for k, v in terms.items())} "
              f"(validation: {man['validation'].get('best_fit')})")  # fmt: skip
        evaluate("reverse model, transfer families", trained_on, path, args, shift)


if __name__ == "__main__":
    main()
