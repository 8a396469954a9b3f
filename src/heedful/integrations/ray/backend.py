"""The Ray backend: a run's jobs as Ray tasks, results in input order.

Jobs are what :mod:`heedful.bench.run.backend` defines: a picklable function and picklable items,
each result a function of its item alone. The function goes to the object store once; each item
becomes one task. A job that raises raises here, as its own exception type (a
:class:`~heedful.errors.HeedfulError` stays one clear line in the CLI).
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from types import ModuleType
from typing import Any, TypeVar

from heedful.errors import InvalidArgumentError
from heedful.extras import extra_hint

__all__ = ["DEFAULT_RAY_CONFIG", "RayBackend", "RayConfig", "ray_backend"]

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class RayConfig:
    """Numbers of the Ray backend.

    Attributes:
        job_cpus: CPUs a job reserves (a scenario with every policy and trial: CPU-bound).
        limited_job_cpus: CPUs a job reserves when the caller limits jobs in flight (agent
            trials, which mostly wait on their model endpoint).
        connect_timeout_s: How long a ``host:port`` address may take to accept a connection
            before it is reported as unreachable (Ray itself would wait minutes).
        local_object_store_mb: Object store of a Ray instance this backend starts on this
            machine (jobs pass scenarios and records, a few MB at most).
        namespace: Ray namespace of the driver.
    """

    job_cpus: float = 1.0
    limited_job_cpus: float = 0.25
    connect_timeout_s: float = 5.0
    local_object_store_mb: int = 256
    namespace: str = "heedful"


DEFAULT_RAY_CONFIG = RayConfig()


def _call(fn: Callable[[T], R], item: T) -> R:
    return fn(item)


class RayBackend:
    """Runs jobs as tasks on the Ray cluster this process is connected to.

    Get one from :func:`ray_backend`, which connects (and disconnects) the process.
    """

    name = "ray"

    def __init__(self, ray: ModuleType, config: RayConfig = DEFAULT_RAY_CONFIG) -> None:
        self._ray = ray
        self.config = config
        self._remote = ray.remote(_call)

    def map(
        self, fn: Callable[[T], R], items: Sequence[T], *, in_flight: int | None = None
    ) -> Iterator[R]:
        """Yield ``fn(item)`` for each item, in order, each computed by one Ray task.

        Args:
            fn: Picklable job function.
            items: Picklable inputs.
            in_flight: At most this many tasks submitted and unfinished at once, across the
                cluster (the concurrency limit of an agent endpoint); ``None``: all at once,
                queued by Ray's scheduler.
        """
        ray = self._ray
        if not items:
            return
        cpus = self.config.job_cpus if in_flight is None else self.config.limited_job_cpus
        task = self._remote.options(num_cpus=cpus)
        fn_ref = ray.put(fn)
        limit = len(items) if in_flight is None else max(1, in_flight)
        pending: dict[Any, int] = {}
        done: dict[int, Any] = {}
        submitted = 0
        try:
            for index in range(len(items)):
                while index not in done:
                    while submitted < len(items) and len(pending) < limit:
                        pending[task.remote(fn_ref, items[submitted])] = submitted
                        submitted += 1
                    if index in pending.values():
                        # Wait for whichever finishes first, so a free slot is refilled at once.
                        ready, _ = ray.wait(list(pending), num_returns=1)
                        for ref in ready:
                            done[pending.pop(ref)] = ref
                yield self._get(done.pop(index))
        finally:
            for ref in pending:
                with contextlib.suppress(Exception):
                    ray.cancel(ref)

    def _get(self, ref: Any) -> Any:
        try:
            return self._ray.get(ref)
        except self._ray.exceptions.RayTaskError as exc:
            if isinstance(exc.cause, BaseException):
                raise exc.cause from None
            raise


def _import_ray() -> ModuleType:
    try:
        import ray
    except ImportError:
        raise InvalidArgumentError(
            f"--backend ray needs the ray extra: {extra_hint('ray')}"
        ) from None
    return ray


def _check_address(address: str, timeout_s: float) -> None:
    """Fail fast, in one line, on a malformed address or a ``host:port`` that does not answer."""
    if address in ("auto", "local"):
        return
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit():
        raise InvalidArgumentError(
            f"--address {address}: expected auto, local, HOST:PORT or ray://HOST:PORT"
        )
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise InvalidArgumentError(
            f"--address {address}: no Ray cluster answers there ({reason})"
        ) from None


def _heedful_version() -> str | None:
    try:
        return version("heedful")
    except PackageNotFoundError:  # pragma: no cover - a source tree without metadata
        return None


def _check_workers(ray: ModuleType, address: str) -> None:
    """The cluster's workers must import the same heedful as this driver."""

    def remote_version() -> str | None:  # pickled by value: needs no heedful to unpickle
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("heedful")
        except PackageNotFoundError:
            return None

    theirs = ray.get(ray.remote(remote_version).options(num_cpus=0).remote())
    ours = _heedful_version()
    if theirs != ours:
        found = f"heedful {theirs}" if theirs else "no heedful"
        raise InvalidArgumentError(
            f"--address {address}: the cluster's workers have {found}, this driver heedful "
            f"{ours}: install the same heedful on every node"
        )


@contextlib.contextmanager
def ray_backend(
    address: str | None = None,
    *,
    config: RayConfig = DEFAULT_RAY_CONFIG,
    **init_options: Any,
) -> Iterator[RayBackend]:
    """Connect this process to Ray and yield a :class:`RayBackend`; disconnect at the end.

    Args:
        address: ``auto`` (the cluster this node belongs to), ``host:port`` (its head node),
            ``ray://host:10001`` (Ray Client, needs ``ray[client]``), ``local`` (start a Ray
            instance on this machine), or ``None``: ``RAY_ADDRESS`` if set, else ``local``.
            When this process is already connected (``ray.init`` was called), that connection
            is used and left open.
        config: Task sizes and timeouts.
        init_options: More ``ray.init`` arguments (e.g. ``runtime_env``, ``num_cpus``).

    Raises:
        InvalidArgumentError: Ray is not installed, the address is malformed or unreachable, or
            the cluster runs another heedful version — one line each.
    """
    ray = _import_ray()
    if address is not None:
        _check_address(address, config.connect_timeout_s)
    started = False
    if not ray.is_initialized():
        shown = address or os.environ.get("RAY_ADDRESS") or "local"
        options: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "logging_level": logging.WARNING,
            "namespace": config.namespace,
        }
        target = address
        if address is None and not os.environ.get("RAY_ADDRESS"):
            target = "local"
        if target == "local":
            options["object_store_memory"] = config.local_object_store_mb * 1024 * 1024
        options.update(init_options)
        try:
            ray.init(address=target, **options)
        except (ConnectionError, ValueError, RuntimeError, TimeoutError) as exc:
            line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise InvalidArgumentError(f"--address {shown}: {line}") from None
        started = True
        try:
            _check_workers(ray, shown)
        except BaseException:
            ray.shutdown()
            raise
    try:
        yield RayBackend(ray, config)
    finally:
        if started:
            ray.shutdown()
