"""Cost of the Ray backend on this machine, each figure as a ratio within one run.

Run: ``.venv/bin/python benchmarks/ray_backend.py`` (needs the ``ray`` extra; ``--count N``
scenarios per family of G and B, ``--cpus C`` for the local Ray instance). Prints:

1. Ray's start (``ray.init`` of a local instance) and stop, against one local run of the same
   scenarios in this process (the baseline: what the start costs in units of real work);
2. the same run as Ray tasks on that instance against the local run, and whether both give the
   same results (they must: only ``created_utc`` may differ);
3. ``heedful learn train`` data collection (one round) as Ray tasks against this process.

On one machine Ray can at best match ``--workers``; its point is more machines. The ratios say
what one machine pays for it (task overhead, serialisation).
"""

from __future__ import annotations

import argparse
import time

import ray

from heedful.bench import generate_suite, run_benchmark
from heedful.bench.policy import parse_policy_list
from heedful.bench.results import Results
from heedful.integrations.ray import ray_backend
from heedful.learn.train import build_dataset


def _dump(r: Results) -> str:
    return r.model_dump_json(exclude={"manifest": {"created_utc"}})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=10, help="scenarios per family (G, B)")
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray instance")
    args = parser.parse_args()
    scenarios = generate_suite(["G", "B"], args.count, seed=0)
    policies = parse_policy_list("all")
    kwargs = dict(trials=args.trials, seed=0, progress=False, workers=1)

    start = time.perf_counter()
    local = run_benchmark(scenarios, policies, **kwargs)  # type: ignore[arg-type]
    t_local = time.perf_counter() - start
    start = time.perf_counter()
    build_dataset(["G", "B"], args.count, 0)
    t_collect = time.perf_counter() - start

    start = time.perf_counter()
    ray.init(
        address="local",
        num_cpus=args.cpus,
        include_dashboard=False,
        log_to_driver=False,
        object_store_memory=100 * 1024 * 1024,
    )
    t_init = time.perf_counter() - start
    with ray_backend() as backend:
        start = time.perf_counter()
        on_ray = run_benchmark(scenarios, policies, backend=backend, **kwargs)  # type: ignore[arg-type]
        t_ray = time.perf_counter() - start
        start = time.perf_counter()
        build_dataset(["G", "B"], args.count, 0, backend=backend)
        t_ray_collect = time.perf_counter() - start
    start = time.perf_counter()
    ray.shutdown()
    t_stop = time.perf_counter() - start

    def row(label: str, seconds: float, base: float | None) -> None:
        ratio = f"   {seconds / base:5.2f}× baseline" if base else ""
        print(f"{label:<38}{seconds:7.2f} s{ratio}")

    n = len(scenarios)
    print(f"{n} scenarios × {len(policies)} policies × {args.trials} trials; Ray: {args.cpus} CPU")
    row("local run (this process, baseline)", t_local, None)
    row("ray.init (local instance)", t_init, t_local)
    row("ray.shutdown", t_stop, t_local)
    row("run as Ray tasks", t_ray, t_local)
    print(f"{'same results':<38}{_dump(local) == _dump(on_ray)}")
    row("learn rows, this process (baseline)", t_collect, None)
    row("learn rows as Ray tasks", t_ray_collect, t_collect)


if __name__ == "__main__":
    main()
