"""Ray backend for ``heedful bench run`` and ``heedful learn train`` (the ``ray`` extra).

The runner cuts a run into picklable jobs (see :mod:`heedful.bench.run.backend`); this adapter runs
them as Ray tasks on a cluster and hands the results back in order, so the results file is the
one a local run of the same seed writes::

    from heedful.bench import run_to_folder
    from heedful.integrations.ray import ray_backend

    with ray_backend("auto") as backend:  # a running cluster; None: RAY_ADDRESS or a local one
        run_to_folder(families="G,B", seed=0, backend=backend)

Importing this package does not import Ray; :func:`ray_backend` does, and fails with one line
(``.venv/bin/pip install -e '.[ray]'`` in a checkout) when it is missing. See ``docs/ray.md``.
"""

from __future__ import annotations

from heedful.integrations.ray.backend import DEFAULT_RAY_CONFIG, RayBackend, RayConfig, ray_backend

__all__ = ["DEFAULT_RAY_CONFIG", "RayBackend", "RayConfig", "ray_backend"]
