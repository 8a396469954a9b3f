"""``voc-production``: the full controller with its claim validator in production mode (§21).

Document 000 Appendix D asks for two scores of one system: the *attention* score (validator
disabled: what it chose to read) and the *production* score (validator enabled: end to end).
This policy is ``voc`` — the same controller, estimator and reads — that then acts as a
programmatic agent asserting claims: before the decision it states a ``live_system_state`` claim
on every believed, non-immutable decision variable, with the results of its reads recorded as
evidence. The controller's validator (``heedful.attention``, production mode) blocks a claim
without fresh authoritative evidence (document 000 §19: a read of a source of authority ≥ 0.9,
younger than 300 s) and names the reads that would satisfy it; the policy returns the first one
it has not read as a forced read. The runner executes forced reads outside the budget, scores
the trial in ``production`` mode and never counts them as attention (``forced_inspections``;
the attention score is that of the spontaneous reads, identical to ``voc``'s). Paired with
``voc`` on the same trials this gives the rescue rate ``P(production correct ∧ attention-only
wrong)`` (document 000 §17.3), printed by ``heedful bench ablations``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from heedful.bench.policies.voc import ControllerPolicy
from heedful.bench.policy import Observation, register_policy
from heedful.model import TaskView, Volatility

__all__ = ["CLAIM_TYPE", "VocProductionPolicy"]

#: The claim type asserted on the decision's state (document 000 §19's ``CLAIM_POLICY``).
CLAIM_TYPE = "live_system_state"


def claimed_variables(view: TaskView) -> list[str]:
    """Believed, non-immutable variables some utility rule depends on: what the agent claims."""
    used = {v for a in view.actions.values() for rule in a.utility for v in rule.when}
    believed = {b.variable for b in view.beliefs}
    return [
        n
        for n, var in view.variables.items()
        if n in used and n in believed and var.volatility is not Volatility.IMMUTABLE
    ]


@register_policy("voc-production")
class VocProductionPolicy(ControllerPolicy):
    """``voc`` plus the claim validator in production mode (Appendix D's production system)."""

    in_default_suite = False
    validates = True

    def __init__(self) -> None:
        super().__init__(estimator="heuristic")
        self._claims: list[str] = []

    def _validator_mode(self) -> str:
        return "production"

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        """As ``voc``; remember which variables the decision will claim."""
        super().reset(view, rng)
        self._claims = claimed_variables(view)

    def validate(self, observations: Sequence[Observation]) -> list[str]:
        """Record the results as evidence, claim each state variable, return the forced reads."""
        ctl = self.controller
        read = {o.source_id for o in observations}
        for obs in observations:
            self._join_revealed(obs)
            for var, value in (obs.values or {}).items():
                if var in ctl.world.beliefs:
                    ctl.record_evidence(var, obs.source_id, value)
            if obs.failed:
                for var in ctl.world.sources[obs.source_id].reports:
                    if var in ctl.world.beliefs:
                        ctl.record_evidence(var, obs.source_id, None, succeeded=False)
        forced: list[str] = []
        for var in self._claims:
            verdict = ctl.check_claim(var, claim_type=CLAIM_TYPE)
            if not verdict.blocked:
                continue
            target = next((s for s in verdict.required_sources if s not in read), None)
            if target is not None and target not in forced:
                forced.append(target)
        return forced
