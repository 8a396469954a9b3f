"""The adapter layer: what the MCP tools call, one thin method per tool.

:class:`Backend` is the contract the tools need; :class:`StoreBackend` fulfils it with the real
objects (the memory store, the engine of document 002 and the attention controller) opened on one
SQLite file. No decision is made here: every method forwards to one library call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

__all__ = ["Backend"]


class Backend(Protocol):
    """What the MCP tools call. Errors are raised as :class:`heedful.errors.HeedfulError`."""

    def survey(self, include_idle: bool) -> Mapping[str, Any]:
        """Return the attention map (document 002 §3.3 response)."""
        ...

    def run_cycle(self, autonomy_override: str | None) -> Mapping[str, Any]:
        """Run one attention cycle (document 002 §3.4 response)."""
        ...

    def close(self) -> None:
        """Release the store."""
        ...
