"""Calibration of predicted net VOC to the realised value gain, before and after (§20.3).

Run: ``.venv/bin/python benchmarks/learn_calibration.py`` (``--quick`` for a smoke run).

For every inspection candidate the controller estimates in the states it visits (model-based
order, static condition), the *realised value gain* of the read is its exact one-step value on
the scenario's true problem, ``V(S ∪ {s}) − V(S)`` (costs included). An isotonic calibrator is
fitted per estimator on training-stream scenarios of every family and the expected calibration
error (equal-mass bins) is reported on held-out development-stream scenarios, before and after.
Goal (issue 11): calibrated ECE ≤ 0.05.
"""

from __future__ import annotations

import argparse

import numpy as np

from heedful.bench.worlds.families import FAMILIES, generate_family
from heedful.learn.calibration import IsotonicCalibrator, expected_calibration_error
from heedful.learn.config import DEFAULT_LEARN_CONFIG
from heedful.learn.dataset import Dataset, collect_scenario, training_scenarios
from heedful.learn.features import FEATURE_NAMES
from heedful.learn.model_files import load_ranker


def rows(scenarios, seed: int) -> Dataset:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    data = Dataset.empty()
    for i, s in enumerate(scenarios):
        data = data.extend(collect_scenario(s, i, rng, random_rollouts=0, target="marginal"))
    return data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=15, help="scenarios per family and split")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.count = 2
    fams = sorted(FAMILIES)
    fit = rows([s for f in fams for s in training_scenarios(f, args.count, args.seed)], 1)
    held = rows([s for f in fams for s in generate_family(f, args.count, args.seed)], 2)
    ranker = load_ranker(None)
    bins = DEFAULT_LEARN_CONFIG.calibration.bins
    predictors = {
        "voc (heuristic net)": lambda x: x[:, FEATURE_NAMES.index("heur_net")],
        "voc-model (model net)": lambda x: x[:, FEATURE_NAMES.index("model_net")],
        "voc-learned (ranker)": ranker.predict,
    }
    print(f"fit rows {fit.y.size} (training stream), held-out rows {held.y.size} "
          f"(development stream), {bins} equal-mass bins; ECE in utility units")  # fmt: skip
    print(f"{'estimator':24s} {'ECE before':>11s} {'ECE after':>10s}")
    for name, predict in predictors.items():
        cal = IsotonicCalibrator().fit(predict(fit.x), fit.y)
        before = expected_calibration_error(predict(held.x), held.y, bins)
        after = expected_calibration_error(cal.predict(predict(held.x)), held.y, bins)
        flag = "ok" if after <= 0.05 else "ABOVE GOAL"
        print(f"{name:24s} {before:11.4f} {after:10.4f}  {flag}")


if __name__ == "__main__":
    main()
