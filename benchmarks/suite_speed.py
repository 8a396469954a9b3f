"""Speed of the default suite: workers, and the results files, each as a ratio within one run.

Run: ``.venv/bin/python benchmarks/suite_speed.py`` (a reduced suite, families G and B, 40
scenarios each, 4 trials, every policy) or ``... suite_speed.py --full`` (the default suite of
``heedful run``). Prints:

1. the whole run with 1 worker (baseline) and with N workers (default: one per core), their ratio,
   and whether both give the same results;
2. how much of the 1-worker run is aggregation (bootstrap intervals, after the trials), and
   aggregation with N workers against 1;
3. writing and loading the results: the old single ``results.json`` holding every trial record
   (baseline) against the summary plus ``results.trials.jsonl.gz``, in time and bytes.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _timing import best_time
from heedful.bench import generate_suite, run_benchmark
from heedful.bench.aggregate import aggregate
from heedful.bench.config import DEFAULT_CONFIG
from heedful.bench.parallel import available_cores
from heedful.bench.policy import parse_policy_list
from heedful.bench.results import Results, load_results, trials_path, write_results
from heedful.model import Scenario


def _timed_run(scenarios: Sequence[Scenario], workers: int) -> tuple[float, Results]:
    start = time.perf_counter()
    r = run_benchmark(
        scenarios,
        parse_policy_list("all"),
        trials=DEFAULT_CONFIG.suite_trials,
        seed=0,
        progress=False,
        workers=workers,
    )
    return time.perf_counter() - start, r


def _dump(r: Results) -> str:
    return r.model_dump_json(exclude={"manifest": {"created_utc"}})


def main() -> None:
    """Measure and print."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="the whole default suite")
    ap.add_argument("--workers", type=int, default=available_cores())
    args = ap.parse_args()
    count = DEFAULT_CONFIG.suite_count if args.full else 40
    scenarios = generate_suite(list(DEFAULT_CONFIG.suite_families), count, seed=0)
    print(
        f"scenarios: {len(scenarios)}, trials per scenario and policy: 4, workers: {args.workers}"
    )

    t1, r1 = _timed_run(scenarios, 1)
    tn, rn = _timed_run(scenarios, args.workers)
    print(f"run, 1 worker (baseline): {t1:.2f} s; {args.workers} workers: {tn:.2f} s")
    print(f"ratio 1-worker / {args.workers}-worker run: {t1 / tn:.2f}x")
    print(f"same results (apart from created_utc): {'yes' if _dump(r1) == _dump(rn) else 'NO'}")

    names = [p.name for p in r1.manifest.policies]
    t_agg = best_time(lambda: aggregate(r1.trials, names, DEFAULT_CONFIG, 0), repeats=1)
    t_aggn = best_time(
        lambda: aggregate(r1.trials, names, DEFAULT_CONFIG, 0, workers=args.workers), repeats=1
    )
    print(f"aggregation, 1 worker: {t_agg:.2f} s = {t_agg / t1:.0%} of the 1-worker run")
    print(f"aggregation, {args.workers} workers: {t_aggn:.2f} s; ratio {t_agg / t_aggn:.2f}x")

    with tempfile.TemporaryDirectory() as tmp:
        old, new = Path(tmp) / "old.json", Path(tmp) / "results.json"
        t_wold = best_time(lambda: old.write_text(r1.model_dump_json(indent=1) + "\n"))
        t_wnew = best_time(lambda: write_results(r1, new))
        t_lold = best_time(lambda: load_results(old))
        t_lnew = best_time(lambda: load_results(new))
        s_old = old.stat().st_size
        s_new = new.stat().st_size + trials_path(new).stat().st_size
        assert load_results(new) == load_results(old)
    n = len(r1.trials)
    print(f"trial records: {n}")
    print(
        f"size: single JSON (baseline) {s_old / 1e6:.1f} MB; summary + gzip JSONL "
        f"{s_new / 1e6:.2f} MB; ratio {s_old / s_new:.1f}x smaller"
    )
    print(
        f"write: {t_wold:.2f} s vs {t_wnew:.2f} s (ratio new/old {t_wnew / t_wold:.2f}x); "
        f"load: {t_lold:.2f} s vs {t_lnew:.2f} s (ratio new/old {t_lnew / t_lold:.2f}x)"
    )


if __name__ == "__main__":
    main()
