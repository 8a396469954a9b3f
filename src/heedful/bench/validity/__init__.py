"""Checks that a family measures attention: give-away probes and the family checker.

- :mod:`~heedful.bench.validity.giveaways` — surface probes a rational policy should not need.
- :mod:`~heedful.bench.validity.checks` — ``check_family``.

Import from those modules directly.
"""
