"""Speed of the default suite: workers, reports and results files, each as a ratio within one run.

Run: ``.venv/bin/python benchmarks/suite_speed.py`` (a reduced suite, families G and B, 40
scenarios each, 4 trials, every policy) or ``... suite_speed.py --full`` (the default suite of
``heedful run``). Prints:

1. the whole run with 1 worker (baseline) and with N workers (default: one per core), their ratio,
   and whether both give the same results;
2. how much of the 1-worker run is aggregation (bootstrap intervals, after the trials), and
   aggregation with N workers against 1;
3. the reports read after the run (predicted-VOC calibration and the controllers' health table):
   replaying every controller play (baseline, the path before plays were kept) against reading
   the plays the run kept, and whether both give the same tables;
4. writing and loading the results: the old single ``results.json`` holding every trial record
   (baseline) against the summary plus ``results.trials.jsonl.gz``, in time and bytes;
5. with ``--full``: the end-to-end ``heedful run`` (run, calibration, results, timeline and
   report files) with N workers, against its own 1-worker run — the figure of the README.

CPU time is printed beside wall time: on a shared machine other work stretches the wall time.
"""

from __future__ import annotations

import os

# As `heedful run` does (heedful.cli.bench): one BLAS thread per process, set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _timing import best_time
from heedful.bench import generate_suite, run_benchmark
from heedful.bench.config import DEFAULT_CONFIG
from heedful.bench.parallel import available_cores
from heedful.bench.policy import parse_policy_list
from heedful.bench.report.timeline import policy_health
from heedful.bench.results import Results, load_results, trials_path, write_results
from heedful.bench.results.plays import Plays
from heedful.bench.run.calibration import calibrate
from heedful.bench.score.aggregate import aggregate
from heedful.bench.suite import run_to_folder
from heedful.model import Scenario


def _timed_run(
    scenarios: Sequence[Scenario], workers: int, plays: Plays | None = None
) -> tuple[float, Results]:
    start = time.perf_counter()
    r = run_benchmark(
        scenarios,
        parse_policy_list("all"),
        trials=DEFAULT_CONFIG.suite_trials,
        seed=0,
        progress=False,
        workers=workers,
        plays=plays,
    )
    return time.perf_counter() - start, r


def _cpu() -> float:
    """CPU seconds of this process and its finished children."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _end_to_end(workers: int) -> tuple[float, float]:
    """Wall and CPU seconds of ``heedful run`` (``run_to_folder`` with the default suite)."""
    cfg = DEFAULT_CONFIG
    with tempfile.TemporaryDirectory() as tmp:
        cpu, start = _cpu(), time.perf_counter()
        run_to_folder(
            families=",".join(cfg.suite_families),
            count=cfg.suite_count,
            trials=cfg.suite_trials,
            seed=0,
            out=Path(tmp) / "run",
            progress=False,
            workers=workers,
        )
        return time.perf_counter() - start, _cpu() - cpu


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

    plays: Plays = {}
    t1, r1 = _timed_run(scenarios, 1, plays)
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

    def reports(kept: Plays | None) -> tuple[object, object]:
        return calibrate(scenarios, names, plays=kept), policy_health(r1, scenarios, plays=kept)

    t_replay = best_time(lambda: reports(None), repeats=1)
    t_kept = best_time(lambda: reports(plays), repeats=1)
    print(
        f"reports after the run (calibration + health): replaying the plays (baseline) "
        f"{t_replay:.2f} s; from the kept plays {t_kept:.2f} s; ratio {t_replay / t_kept:.1f}x; "
        f"same tables: {'yes' if reports(None) == reports(plays) else 'NO'}"
    )

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
    if args.full:
        w1, c1 = _end_to_end(1)
        wn, cn = _end_to_end(args.workers)
        print(
            f"heedful run end to end: 1 worker {w1:.2f} s wall ({c1:.2f} s CPU); "
            f"{args.workers} workers {wn:.2f} s wall ({cn:.2f} s CPU); ratio {w1 / wn:.2f}x"
        )


if __name__ == "__main__":
    main()
