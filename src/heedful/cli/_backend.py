"""``--backend`` and ``--address``: where ``bench run`` and ``learn train`` run their jobs."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

import typer

from heedful.errors import InvalidArgumentError

if TYPE_CHECKING:
    from heedful.bench.run.backend import Backend

BACKEND_HELP = "local (this machine, see --workers) or ray (Ray tasks; needs heedful\\[ray])."
ADDRESS_HELP = (
    "With --backend ray: auto, HOST:PORT of a running cluster's head, ray://HOST:10001, or local "
    "(default: RAY_ADDRESS, else a Ray instance on this machine). See docs/ray.md."
)


def backend_option() -> str:
    """The ``--backend`` option."""
    return typer.Option("local", "--backend", help=BACKEND_HELP)


def address_option() -> str | None:
    """The ``--address`` option."""
    return typer.Option(None, "--address", help=ADDRESS_HELP)


@contextlib.contextmanager
def open_backend(backend: str, address: str | None) -> Iterator[Backend | None]:
    """The backend the options name (``None``: local), connected for the command's duration.

    Raises:
        InvalidArgumentError: an unknown backend, ``--address`` without ``--backend ray``, and
            what :func:`heedful.integrations.ray.ray_backend` raises.
    """
    if backend == "local":
        if address is not None:
            raise InvalidArgumentError("--address needs --backend ray")
        yield None
        return
    if backend != "ray":
        raise InvalidArgumentError(f"--backend must be local or ray, not {backend!r}")
    from heedful.integrations.ray import ray_backend

    with ray_backend(address) as connected:
        yield connected
