"""Running the heartbeat beside a host that owns the main thread (e.g. the MCP server).

Document 002 §3.1: the engine lives inside a host process and "only activates when
``enabled: true`` in config or when explicitly started". A host whose main thread serves
something else (stdio or HTTP) runs the heartbeat with :class:`BackgroundHeartbeat`: a daemon
thread with its own event loop running :meth:`Engine.serve`. Cycles from the heartbeat and
manual cycles from the host's own threads are serialised by the engine's cycle lock; the graph
port must be safe to use from two threads (the memory store is: one connection, one lock).
"""

from __future__ import annotations

import asyncio
import logging
import threading

from heedful.engine.config import AutonomyLevel
from heedful.engine.engine import Engine

__all__ = ["BackgroundHeartbeat"]

_log = logging.getLogger("heedful.engine")


class BackgroundHeartbeat:
    """The engine's heartbeat on a daemon thread of its own.

    Args:
        engine: The engine to run.
        level: Autonomy level for the heartbeat's cycles (default: the configured level);
            downgraded to the governance maximum like any requested level.
    """

    def __init__(self, engine: Engine, level: AutonomyLevel | str | None = None) -> None:
        self.engine = engine
        self.level = level
        self._thread: threading.Thread | None = None
        self._started = threading.Event()

    @property
    def running(self) -> bool:
        """Whether the heartbeat thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Start the heartbeat (its first cycle runs at once when ``first_cycle_at_start``)."""
        if self.running:
            return
        self._started.clear()
        self._thread = threading.Thread(
            target=self._run, name="heedful-engine-heartbeat", daemon=True
        )
        self._thread.start()

    def _run(self) -> None:
        async def main() -> None:
            try:
                self.engine.activate(self.level)
            finally:
                self._started.set()
            await self.engine.join()

        try:
            asyncio.run(main())
        except Exception:
            _log.exception("the engine heartbeat thread stopped on an error")
        finally:
            self._started.set()

    def stop(self, timeout: float | None = None) -> bool:
        """Stop the heartbeat; a cycle in flight finishes first (bounded by its own timeout).

        Args:
            timeout: Seconds to wait for the thread (default: the cycle's ``total_timeout_ms``
                plus 5 s).

        Returns:
            Whether the thread has ended.
        """
        thread = self._thread
        if thread is None:
            return True
        self._started.wait(timeout=5.0)
        self.engine.deactivate()
        if timeout is None:
            timeout = self.engine.config.budget.total_timeout_ms / 1000.0 + 5.0
        thread.join(timeout)
        return not thread.is_alive()
