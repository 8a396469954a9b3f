"""The controller's self-measurement: what it learns and logs about its own attention.

Kept apart from the control loop so :mod:`heedful.attention.controller` stays a loop. One
:class:`Instruments` per controller:

* §5.3 funnel — opportunities that did not fire are logged (``candidate_skipped``/``not_fired``);
* §12 — ``candidate_updated`` when a live candidate's predicted value moves materially;
* §24 — ``anomaly_raised`` on saturation near maximum or a sudden shift of the distribution;
* §9 — change rates learned per claim class and per source from revisits;
* §3.3 — historical usefulness of similar inspections (source kind, claim type).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from _reference.context import AttentionContext
from _reference.estimators import Estimate, similarity_class
from _reference.guard import Saturation
from _reference.opportunity import fired, opportunities
from heedful.attention.anomaly import PriorityMonitor
from heedful.attention.config import AttentionConfig
from heedful.attention.volatility import VolatilityLearner
from heedful.model.candidate import Candidate, EventType

__all__ = ["Instruments"]

#: ``log(event, now, **fields)``: writes one trace event of the current turn.
Log = Callable[..., None]


class Instruments:
    """Funnel, update, anomaly, volatility and usefulness bookkeeping of one controller.

    Args:
        config: The controller's configuration.
        log: Writes one trace event of the current turn.
    """

    def __init__(self, config: AttentionConfig, log: Log) -> None:
        self.config = config
        self.log = log
        self.monitor = PriorityMonitor(config.anomaly)
        self.volatility = VolatilityLearner(config.volatility)
        self.usefulness: dict[str, tuple[int, int]] = {}
        self._last_voc: dict[str, float] = {}
        self._not_fired: set[tuple[str, str]] = set()
        self._alerted: set[str] = set()

    def begin_turn(self) -> None:
        """Each turn logs each unfired opportunity and each anomaly kind at most once."""
        self._not_fired.clear()
        self._alerted.clear()

    def enrich(self, context: AttentionContext) -> None:
        """Give claims without their own learned rate their class's (or source's) rate."""
        claims = dict(context.claims)
        for cid, c in claims.items():
            if c.hazard_per_hour is None:
                rate = self.volatility.hazard_per_hour(c.claim_type, c.evidence_source)
                if rate is not None:
                    claims[cid] = replace(c, hazard_per_hour=rate)
        context.claims = claims
        context.usefulness = dict(self.usefulness)

    def funnel(self, context: AttentionContext, proposals: Sequence[Candidate]) -> None:
        """Log each opportunity whose trigger did not fire (once per turn)."""
        missed = opportunities(context, self.config.generator) - fired(proposals)
        for trigger, subject in sorted(missed):
            key = (trigger.value, subject)
            if key in self._not_fired:
                continue
            self._not_fired.add(key)
            self.log(
                EventType.CANDIDATE_SKIPPED,
                context.now,
                reason_code="not_fired",
                detail={"trigger": trigger.value, "subject": subject},
            )

    def scored(self, candidate: Candidate, estimate: Estimate, now: datetime) -> None:
        """Log ``candidate_updated`` when the predicted value moved since it was last logged."""
        last = self._last_voc.get(candidate.id)
        self._last_voc.setdefault(candidate.id, estimate.net)
        if last is None or abs(estimate.net - last) < self.config.trace.update_epsilon:
            return
        self._last_voc[candidate.id] = estimate.net
        self.log(
            EventType.CANDIDATE_UPDATED,
            now,
            candidate_id=candidate.id,
            predicted_voc=estimate.net,
            reason_code="predicted_voc_moved",
            detail={"previous_voc": last, "p_change": estimate.p_change},
        )

    def forget(self, candidate_id: str) -> None:
        """A candidate left the table (selected or expired)."""
        self._last_voc.pop(candidate_id, None)

    def keep_only(self, live_ids: Iterable[str]) -> None:
        """Drop what is remembered of candidates no longer live (keeps memory bounded)."""
        live = set(live_ids)
        for cid in [c for c in self._last_voc if c not in live]:
            del self._last_voc[cid]

    def anomalies(self, saturation: Saturation, p_changes: Iterable[float], now: datetime) -> None:
        """Raise ``anomaly_raised`` on saturation or a sudden priority-distribution shift."""
        kind = "flood" if saturation.flood else "saturation"
        if saturation.anomalous and kind not in self._alerted:
            self._alerted.add(kind)
            self.log(
                EventType.ANOMALY_RAISED,
                now,
                reason_code=kind,
                detail={
                    "share": saturation.share,
                    "count": saturation.count,
                    "fill": saturation.fill,
                    "refused": saturation.refused,
                },
            )
        shift = self.monitor.observe(p_changes)
        if shift is not None and "distribution_shift" not in self._alerted:
            self._alerted.add("distribution_shift")
            self.log(
                EventType.ANOMALY_RAISED,
                now,
                reason_code="distribution_shift",
                detail={"mean": shift.mean, "baseline": shift.baseline, "count": shift.count},
            )

    def revisit(self, claim_type: str, source_id: str, interval_s: float, changed: bool) -> None:
        """One report on a claim that had evidence ``interval_s`` seconds before."""
        self.volatility.observe(claim_type, source_id, interval_s, changed)

    def inspected(self, source_kind: str, claim_type: str, useful: bool) -> None:
        """Count one resolved inspection of a similarity class (useful: it changed something)."""
        key = similarity_class(source_kind, claim_type)
        u, n = self.usefulness.get(key, (0, 0))
        self.usefulness[key] = (u + int(useful), n + 1)

    def state(self) -> dict[str, Any]:
        """A small summary for callers (counts, learned classes)."""
        return {
            "usefulness": dict(self.usefulness),
            "priority_baseline": self.monitor.baseline,
        }
