"""inspect_ai's entry point (group ``inspect_ai``, name ``heedful``): importing this module
registers ``heedful/family`` and ``heedful/scenarios`` so ``inspect eval`` finds them."""

from __future__ import annotations

from heedful.integrations.inspect.tasks import family, scenarios

__all__ = ["family", "scenarios"]
