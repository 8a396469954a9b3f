"""Scoring: trial metrics, the failure taxonomy, initiation, aggregation, calibration, power plans.

- :mod:`~heedful.bench.score.scoring` — one trial's metrics against the oracle.
- :mod:`~heedful.bench.score.taxonomy` — document 000 Appendix B failure codes.
- :mod:`~heedful.bench.score.initiation` — announced vs unprompted (the initiation gap).
- :mod:`~heedful.bench.score.aggregate` — per-policy rows and paired comparisons.
- :mod:`~heedful.bench.score.calibration` — predicted vs realised value of computation.
- :mod:`~heedful.bench.score.plan` — power planning.

Statistics (bootstrap intervals) are in :mod:`heedful.bench.stats`. Import from the modules
directly.
"""
