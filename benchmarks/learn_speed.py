"""Cost of the learned ranker: inference per candidate and training the default model.

Run: ``.venv/bin/python benchmarks/learn_speed.py`` (``--quick`` trains on fewer scenarios).

Goals (issue 11): inference adds ≤ 5 µs per candidate; training the default model ≤ 2 minutes
on 2 cores. Every time is printed with a ratio against a baseline measured in the same run:

* inference (the ranker's dot product on a feature vector) against the model-based estimator's
  ``estimate`` of the same candidate, which ``voc-model`` pays per candidate anyway — and the
  feature extraction (which calls that estimator and the heuristic) against it too;
* training (the recipe in the shipped model's manifest, rows collected by 2 worker processes as
  ``heedful learn train`` does on 2 cores) against one ``voc-model`` bench pass over the same
  training scenarios. Wall time and CPU time are both shown; the machine may be shared, so the
  goal is checked on the CPU time it would take on 2 free cores: this process's (the search and
  the validation run here, serially) plus half the workers' (the collection, split over 2).
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np

from _timing import best_time
from heedful.attention import ModelEstimator
from heedful.bench.policies.voc import ControllerPolicy
from heedful.bench.run.backend import local_backend
from heedful.bench.run.runner import collect_choices
from heedful.learn.dataset import training_scenarios
from heedful.learn.estimator import LearnedEstimator
from heedful.learn.model_files import load_ranker
from heedful.learn.train import train_model


class _Capture(ControllerPolicy):
    """voc-model that keeps the (candidate, context) pairs it estimated."""

    def __init__(self) -> None:
        super().__init__(estimator="model")
        self.pairs: list = []  # type: ignore[type-arg]

    def get_params(self) -> dict[str, object]:
        return {}

    def _make_estimator(self):  # type: ignore[no-untyped-def]
        inner = ModelEstimator()
        pairs = self.pairs

        class Rec:
            name = "rec"

            def estimate(self, c, ctx):  # type: ignore[no-untyped-def]
                pairs.append((c, ctx))
                return inner.estimate(c, ctx)

        return Rec()


def inference(n_scenarios: int) -> None:
    cap = _Capture()
    for s in training_scenarios("G", n_scenarios, 99):
        task = s.view.task_view()
        cap.reset(task, np.random.default_rng(0))
        collect_choices(cap, task, None)
    pairs = [(c, ctx) for c, ctx in cap.pairs if c.kind.value == "inspect_source"]
    learned = LearnedEstimator(load_ranker(None))
    xs = [learned.extractor.features(c, ctx) for c, ctx in pairs]
    n = len(pairs)

    def predict() -> None:
        for x in xs:
            learned.model.predict_one(x)

    def extract() -> None:
        for c, ctx in pairs:
            learned.extractor.features(c, ctx)

    def model_estimate() -> None:
        est = ModelEstimator()  # fresh: no cached valuation from an earlier call
        for c, ctx in pairs:
            est.estimate(c, ctx)

    base = best_time(model_estimate) / n
    t_pred = best_time(predict, 5) / n
    t_feat = best_time(extract) / n
    print(f"{n} inspection candidates from {n_scenarios} G scenarios")
    print(f"  model-based estimate (baseline)    {base * 1e6:9.2f} µs/candidate  1.00×")
    print(f"  ranker inference (dot product)     {t_pred * 1e6:9.2f} µs/candidate  "
          f"{t_pred / base:.5f}×  goal ≤ 5 µs: {'ok' if t_pred <= 5e-6 else 'MISSED'}")  # fmt: skip
    print(f"  feature extraction (incl. both)    {t_feat * 1e6:9.2f} µs/candidate  "
          f"{t_feat / base:.2f}×")  # fmt: skip


def training(count: int) -> None:
    man = load_ranker(None).manifest
    fams = list(man["families"])
    scenarios = [s for f in fams for s in training_scenarios(f, count, int(man["seed"]))]
    policy = ControllerPolicy(estimator="model")

    def one_pass() -> None:
        for s in scenarios:
            task = s.view.task_view()
            policy.reset(task, np.random.default_rng(0))
            collect_choices(policy, task, None)

    base = best_time(one_pass, 1)
    wall, cpu = time.perf_counter(), time.process_time()
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    train_model(fams, count, int(man["seed"]), rounds=int(man["rounds"]), backend=local_backend(2))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    workers = (after.ru_utime + after.ru_stime) - (kids.ru_utime + kids.ru_stime)
    free = cpu + workers / 2  # this process's serial part + the workers' part on two cores
    print(f"training recipe: families {','.join(fams)}, count {count}, rounds {man['rounds']}, "
          f"2 worker processes (as `heedful learn train` on 2 cores)")  # fmt: skip
    print(f"  one voc-model bench pass (baseline) {base:7.1f} s wall  1.00×")
    print(f"  training                            {wall:7.1f} s wall  {wall / base:.1f}×; "
          f"CPU {cpu:.1f} s here + {workers:.1f} s in the workers; on 2 free cores "
          f"≈ {free:.1f} s; goal ≤ 120 s: {'ok' if free <= 120 else 'MISSED'} "
          f"(load average {os.getloadavg()[0]:.1f})")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    inference(2 if args.quick else 8)
    man = load_ranker(None).manifest
    training(2 if args.quick else int(man["count"]))


if __name__ == "__main__":
    main()
