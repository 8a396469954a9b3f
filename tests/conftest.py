"""Suite-wide test settings."""

from __future__ import annotations

import os
import platform

# OpenBLAS picks its kernels by CPU (its own dispatch), and a matrix product's last bits differ
# between kernels; the golden records (tests/bench/golden/) were written with the Haswell (AVX2)
# kernels, so on x86 the tests ask for those before numpy loads OpenBLAS, on any x86 machine.
if platform.machine().lower() in ("x86_64", "amd64"):
    os.environ.setdefault("OPENBLAS_CORETYPE", "Haswell")

from hypothesis import settings

# Machines here are shared and noisy: no per-example deadline (speed lives in benchmarks/), and
# in CI the examples are derived from each test's name so a run is reproducible.
settings.register_profile("heedful", deadline=None, print_blob=True)
settings.register_profile("heedful-ci", deadline=None, print_blob=True, derandomize=True)
settings.load_profile("heedful-ci" if os.environ.get("CI") else "heedful")
