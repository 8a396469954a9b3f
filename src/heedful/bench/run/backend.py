"""Where a run's independent jobs execute: this process, local worker processes, or a cluster.

The runner (and ``heedful learn train``'s data collection) cut their work into picklable jobs
whose results depend on their input alone — one scenario with every policy and trial, one agent
trial, one training scenario — and hand them to a :class:`Backend`, which returns the results in
input order. So a run gives the same results file on any backend and any number of workers.

Backends here: :class:`SerialBackend` (this process) and :class:`ProcessBackend` (local worker
processes, ``--workers N``). A distributed backend is an adapter the caller hands in, e.g.
:class:`heedful.integrations.ray.RayBackend` (``--backend ray``); nothing in ``bench`` imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

from heedful import tracing
from heedful.bench.parallel import map_in_processes
from heedful.span_relay import RelayedJob

__all__ = ["Backend", "ProcessBackend", "SerialBackend", "local_backend", "map_traced"]

T = TypeVar("T")
R = TypeVar("R")


@runtime_checkable
class Backend(Protocol):
    """Maps a picklable job function over items; results come back in input order."""

    @property
    def name(self) -> str:
        """Short name for messages (``local``, ``ray``)."""
        ...

    def map(
        self, fn: Callable[[T], R], items: Sequence[T], *, in_flight: int | None = None
    ) -> Iterator[R]:
        """Yield ``fn(item)`` for each item, in order.

        Args:
            fn: A module-level function or an instance of a module-level class (picklable).
            items: Picklable inputs.
            in_flight: At most this many jobs run at once (``None``: as many as the backend
                can). Agent trials pass the endpoint's concurrency limit here.

        An exception raised by a job is raised here, as its own type.
        """
        ...


@dataclass(frozen=True)
class SerialBackend:
    """Every job in this process, one after another."""

    name: str = "local"

    def map(
        self, fn: Callable[[T], R], items: Sequence[T], *, in_flight: int | None = None
    ) -> Iterator[R]:
        """Yield ``fn(item)`` for each item, in order."""
        for item in items:
            yield fn(item)


@dataclass(frozen=True)
class ProcessBackend:
    """Jobs across ``workers`` local processes (one pool per :meth:`map`)."""

    workers: int
    name: str = "local"

    def map(
        self, fn: Callable[[T], R], items: Sequence[T], *, in_flight: int | None = None
    ) -> Iterator[R]:
        """Yield ``fn(item)`` for each item, in order, from at most ``workers`` processes."""
        n = min(self.workers, len(items), in_flight or self.workers)
        if n <= 1:
            yield from SerialBackend().map(fn, items)
            return
        yield from map_in_processes(fn, items, n)


def local_backend(workers: int) -> Backend:
    """The backend of ``--workers N`` on this machine (1: this process)."""
    return SerialBackend() if workers <= 1 else ProcessBackend(workers)


def map_traced(
    backend: Backend, fn: Callable[[T], R], items: Sequence[T], *, in_flight: int | None = None
) -> Iterator[R]:
    """``backend.map(fn, items)``, with the spans each job records kept when tracing is on.

    Worker processes and Ray tasks have no tracer of their own: each job records its spans as
    plain data (:class:`heedful.span_relay.RelayedJob`) and they are replayed here, as children
    of the current span, as each result arrives. With tracing off, or on this process's serial
    backend, this is ``backend.map`` itself.
    """
    if not tracing.enabled() or isinstance(backend, SerialBackend):
        yield from backend.map(fn, items, in_flight=in_flight)
        return
    for result, records in backend.map(RelayedJob(fn), items, in_flight=in_flight):
        tracing.replay(records)
        yield result
