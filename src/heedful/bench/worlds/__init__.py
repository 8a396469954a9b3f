"""The worlds a benchmark runs: scenario families of every kind and their hidden-world models.

- :mod:`~heedful.bench.worlds.families` — the inspection families (A–C, E–I, G, …), one module
  each, registered by import, with the hidden-world model in ``_worlds``.
- :mod:`~heedful.bench.worlds.switching` — family D (``kind: switching``).
- :mod:`~heedful.bench.worlds.schedule` — family J (``kind: schedule``).
- :mod:`~heedful.bench.worlds.holdout` — sealed hold-out sets.

Import from those modules directly.
"""
