"""The trial loop: run policies on scenarios of every kind, backends, progress, plays, spans.

- :mod:`~heedful.bench.run.loop` — the one trial loop every scenario kind runs through
  (:class:`~heedful.bench.run.loop.TrialKind`; the kinds are ``TRIAL_KINDS`` of
  :mod:`~heedful.bench.run.kinds`).
- :mod:`~heedful.bench.run.benchmark` — ``run_benchmark``: scenarios of every kind, one call.
- :mod:`~heedful.bench.run.runner` — the inspection kind's trial and runner.
- :mod:`~heedful.bench.run.kinds`, :mod:`~heedful.bench.run.kind_trials`,
  :mod:`~heedful.bench.run.kind_suite` — switching and schedule scenarios.
- :mod:`~heedful.bench.run.backend` — where jobs run (process pool; the Ray adapter plugs in here).
- :mod:`~heedful.bench.run.plays`, :mod:`~heedful.bench.run.progress`,
  :mod:`~heedful.bench.run.spans` — recorded plays, progress lines, tracing spans.

Import from those modules directly.
"""
