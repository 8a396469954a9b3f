"""Scoring: trial metrics, the failure taxonomy, initiation, aggregation, power plans.

- :mod:`~heedful.bench.score.scoring` — one trial's metrics against the oracle.
- :mod:`~heedful.bench.score.taxonomy` — document 000 Appendix B failure codes.
- :mod:`~heedful.bench.score.initiation` — announced vs unprompted (the initiation gap).
- :mod:`~heedful.bench.score.aggregate` — per-policy rows and paired comparisons, every kind.
- :mod:`~heedful.bench.score.plan` — power planning.

Statistics (bootstrap intervals) are in :mod:`heedful.bench.stats`; the calibration of the
controller policies (it replays them) in :mod:`heedful.bench.run.calibration`. Import from the
modules directly.
"""
