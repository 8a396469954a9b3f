"""The trial loop: run policies on scenarios of every kind, backends, progress, plays, spans.

- :mod:`~heedful.bench.run.runner` — the trial loop for inspection scenarios.
- :mod:`~heedful.bench.run.kinds`, :mod:`~heedful.bench.run.kind_trials`,
  :mod:`~heedful.bench.run.kind_suite` — switching and schedule scenarios.
- :mod:`~heedful.bench.run.backend` — where jobs run (process pool; the Ray adapter plugs in here).
- :mod:`~heedful.bench.run.plays`, :mod:`~heedful.bench.run.progress`,
  :mod:`~heedful.bench.run.spans` — recorded plays, progress lines, tracing spans.

Import from those modules directly.
"""
