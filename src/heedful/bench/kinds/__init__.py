"""Families D (``kind: switching``) and J (``kind: schedule``): policies, trials, aggregates.

Modules: :mod:`~heedful.bench.kinds.policy` (protocols, registries), :mod:`~.switching_family`
and :mod:`~.schedule_family` (the seeded generators), :mod:`~.trials` (trial loops
and scoring), :mod:`~.records` (result records), :mod:`~.run` (families, runs, tables),
:mod:`~.suite` (how ``bench run`` takes them in). Import from those modules directly.
"""
