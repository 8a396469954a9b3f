"""Span attributes of the controller's hot paths (``next`` and ``resolve``).

:class:`heedful.attention.Controller` marks both with :func:`heedful.tracing.traced`; these
functions say what a finished call records when a tracer is installed (they never run
otherwise). Only counts, kinds and codes: a candidate's target, a claim's text or a source's
name never reach a span.
"""

from __future__ import annotations

from typing import Any

from heedful.model.candidate import Candidate, Resolution
from heedful.tracing import Attributes, AttributeValue

__all__ = ["NEXT_SPAN", "RESOLVE_SPAN", "describe_next", "describe_resolve"]

#: Span names.
NEXT_SPAN = "heedful.controller.next"
RESOLVE_SPAN = "heedful.controller.resolve"


def describe_next(args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> Attributes:
    """Attributes of one ``Controller.next()``: live candidates, what was chosen, budget left.

    ``heedful.controller.selected`` is the chosen candidate's kind, or ``stop`` (with the stop
    reason code); ``budget_left`` is absent for an unlimited turn.
    """
    ctl = args[0]
    attrs: dict[str, AttributeValue] = {
        "heedful.controller.turn": ctl.turn,
        "heedful.controller.live_candidates": ctl.scored_count,
    }
    if isinstance(result, Candidate):
        attrs["heedful.controller.selected"] = result.kind.value
        attrs["heedful.controller.forced"] = result.forced
    else:  # Stop
        attrs["heedful.controller.selected"] = "stop"
        attrs["heedful.controller.stop_reason"] = str(result.reason)
    if ctl.budget is not None:
        attrs["heedful.controller.budget_left"] = ctl.budget
    return attrs


def describe_resolve(args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> Attributes:
    """Attributes of one ``Controller.resolve()``: outcome flags and how much was observed."""
    observations = kwargs.get("observations") or {}
    attrs: dict[str, AttributeValue] = {
        "heedful.controller.succeeded": bool(kwargs.get("succeeded", True)),
        "heedful.controller.withheld": bool(kwargs.get("withheld", False)),
        "heedful.controller.observations": len(observations),
    }
    if isinstance(result, Resolution):
        if result.belief_changed is not None:
            attrs["heedful.controller.belief_changed"] = result.belief_changed
        if result.decision_changed is not None:
            attrs["heedful.controller.decision_changed"] = result.decision_changed
    return attrs
