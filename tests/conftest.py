"""Suite-wide test settings."""

from __future__ import annotations

import os

from hypothesis import settings

# Machines here are shared and noisy: no per-example deadline (speed lives in benchmarks/), and
# in CI the examples are derived from each test's name so a run is reproducible.
settings.register_profile("heedful", deadline=None, print_blob=True)
settings.register_profile("heedful-ci", deadline=None, print_blob=True, derandomize=True)
settings.load_profile("heedful-ci" if os.environ.get("CI") else "heedful")
