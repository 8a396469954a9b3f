"""The trial loop: run policies on scenarios of every kind, backends, progress, spans.

- :mod:`~heedful.bench.run.loop` — the one trial loop every scenario kind runs through (the kinds
  are the modules of :mod:`heedful.bench.kinds`, behind one contract).
- :mod:`~heedful.bench.run.benchmark` — ``run_benchmark``: scenarios of every kind, one call.
- :mod:`~heedful.bench.run.runner` — the inspection kind's runner.
- :mod:`~heedful.bench.run.kinds` — the other kinds' runner (switching, schedule, …);
  :mod:`~heedful.bench.run.split` — the CLI's family and file split by kind.
- :mod:`~heedful.bench.run.backend` — where jobs run (process pool; the Ray adapter plugs in here).
- :mod:`~heedful.bench.run.calibration` — predicted vs realised value of computation of the
  controller policies (replayed, or read from the kept plays).
- :mod:`~heedful.bench.run.progress`, :mod:`~heedful.bench.run.spans` — progress lines, tracing
  spans.

Import from those modules directly.
"""
