"""``heedful/BudgetedInspection-v2``: budgeted inspection as a Gymnasium environment.

One episode is one bench trial (SPEC §3, §5): a scenario is picked and its world drawn from the
truth (seeded by ``reset(seed=…)``); each step inspects one source or stops; on stop the
Bayes-optimal action on the posterior is taken, exactly as the bench does. The return of an
episode is the trial's net utility: each inspection gives ``−cost_weight × scalar cost`` and
the stop step gives ``u(action, world)``.

*Observation* (``float32``, shape ``(max_sources, 9)`` flattened, then 2 globals), visible
information only — per source slot: present, authority, ``log(1 + age h)``, weighted cost,
decision variables reported, inspected, failed, the share of its reported decision variables
whose observed value agrees with the held belief (0.5 until inspected), and its ``links`` (how
many hidden sources reading it reveals — the count the view shows, never which); globals:
budget left / budget, and inspections made / budget. Slots beyond the scenario's sources are 0.
``heedful/BudgetedInspection-v1`` is v2 without the invalid-action penalty, and
``heedful/BudgetedInspection-v0`` is v1 without the ``links`` feature (8 per slot;
``links=False``), both kept so that policies trained on them still load and score as before.

*Action* ``Discrete(max_sources + 1)``: ``i`` inspects source ``i`` (in view order), the last
action stops and acts. ``info["action_mask"]`` (``int8``, one per action, the form
``action_space.sample(mask=...)`` takes) and :meth:`~BudgetedInspectionEnv.action_masks`
(``bool``, the form maskable-PPO implementations call) say which actions are valid now: a present
slot not yet inspected while budget is left, and stop (always). An invalid action — an empty slot,
a source already inspected, a read past the budget — ends the episode like a stop (the bench's
protocol violation) with ``info["invalid"] = True``, and is *penalised*: its reward is the stop's
utility minus ``invalid_penalty`` (1.0 in v2, the order of a scenario's utility spread, so an
invalid action is never the better way to stop). ``-v1`` and ``-v0`` keep their reward
(``invalid_penalty=0``: an invalid action paid the same as stopping); the mask is in every version.

*Hidden sources* (issue 23): a source the view does not list has a slot after the listed ones
(in the scenario's order of hidden sources) that stays empty — all zeros, like padding, and an
action on it is invalid — until its revealer is inspected. From that step on the slot holds the
source's visible features and may be inspected, and ``info["revealed"]`` names it (every source
revealed so far, in order). ``max_sources`` counts these slots.

*info* carries only visible numbers (budget left, sources, the action taken at the end) and the
reward parts — never a PRIVATE field (no world, prior, accuracy, echo or render).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from heedful.bench.run.runner import decision_variables
from heedful.bench.score.scoring import ScenarioOracle, TrialWorld
from heedful.errors import InvalidArgumentError
from heedful.model import Scenario, SourceView

__all__ = [
    "DEFAULT_FAMILY",
    "ENV_ID",
    "ENV_ID_V0",
    "ENV_ID_V1",
    "INVALID_PENALTY",
    "PER_SOURCE",
    "V0_PER_SOURCE",
    "BudgetedInspectionEnv",
]

ENV_ID = "heedful/BudgetedInspection-v2"
#: The second version: an invalid action was paid as a stop (no penalty).
ENV_ID_V1 = "heedful/BudgetedInspection-v1"
#: The first version: v1 without the ``links`` feature.
ENV_ID_V0 = "heedful/BudgetedInspection-v0"
#: What an invalid action costs on top of the stop it forces (v2; v1 and v0: 0).
INVALID_PENALTY = 1.0
#: Features per source slot (v1); :data:`V0_PER_SOURCE` in v0.
PER_SOURCE = 9
V0_PER_SOURCE = 8
_GLOBALS = 2
_HIGH = 1e6  # observation bound (features are clipped to it)
#: The task family of ``gym.make(ENV_ID)`` with no task source (G: the budgeted-inspection core).
DEFAULT_FAMILY = "G"


def _load_scenarios(
    scenario_file: str | None, family: str | None, count: int, seed: int
) -> list[Scenario]:
    if scenario_file is not None and family is not None:
        raise InvalidArgumentError("give one task source, not both: scenario_file or family")
    if scenario_file is None and family is None:
        family = DEFAULT_FAMILY
    if scenario_file is not None:
        from heedful.model.scenario_io import load_scenarios

        return list(load_scenarios(Path(scenario_file)))
    # Training-stream scenarios: an agent trained here never sees an evaluation scenario.
    from heedful.learn.dataset import training_scenarios

    assert family is not None
    return [s for code in family.split(",") for s in training_scenarios(code, count, seed)]


class BudgetedInspectionEnv(gymnasium.Env[np.ndarray, np.int64]):
    """Budgeted inspection scored against the exact oracle's world model.

    Args:
        scenario_file: A scenario file (YAML/JSON) or folder as the task source.
        family: Or family codes (``"G"`` or ``"G,B"``): scenarios from the training stream.
            With neither ``scenario_file``, ``family`` nor ``scenarios``: family G.
        count: Scenarios per family.
        seed: Root seed of the family scenarios.
        scenarios: Or ready scenarios (for programs and tests).
        max_sources: Slots in the observation (default: the largest scenario's source count,
            its hidden sources included).
        links: Give each slot the ``links`` feature (v1 on, the default); ``False`` is v0's
            observation (8 features per slot).
        invalid_penalty: Subtracted from the reward of an invalid action, which ends the
            episode like a stop (v2: :data:`INVALID_PENALTY`; v1 and v0: 0).
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (Gymnasium's own attribute)

    def __init__(
        self,
        scenario_file: str | None = None,
        family: str | None = None,
        count: int = 20,
        seed: int = 0,
        scenarios: Sequence[Scenario] | None = None,
        max_sources: int | None = None,
        links: bool = True,
        invalid_penalty: float = INVALID_PENALTY,
    ) -> None:
        if not (math.isfinite(invalid_penalty) and invalid_penalty >= 0):
            raise InvalidArgumentError(
                f"invalid_penalty must be a finite number ≥ 0, got {invalid_penalty}"
            )
        self.links = links
        self.invalid_penalty = float(invalid_penalty)
        #: Features per source slot: :data:`PER_SOURCE`, or :data:`V0_PER_SOURCE` without links.
        self.per_source = PER_SOURCE if links else V0_PER_SOURCE
        self.scenarios = (
            list(scenarios)
            if scenarios is not None
            else _load_scenarios(scenario_file, family, count, seed)
        )
        if not self.scenarios:
            raise InvalidArgumentError("the environment needs at least one scenario")
        largest = max(len(s.sources) for s in self.scenarios)
        self.max_sources = max_sources if max_sources is not None else largest
        if self.max_sources < largest:
            raise InvalidArgumentError(
                f"max_sources={self.max_sources} is below a scenario's {largest} sources"
            )
        size = self.max_sources * self.per_source + _GLOBALS
        self.observation_space = spaces.Box(0.0, _HIGH, shape=(size,), dtype=np.float32)
        self.action_space = spaces.Discrete(self.max_sources + 1)
        self.stop_action = self.max_sources
        self._oracles: dict[int, ScenarioOracle] = {}
        self._index = 0
        self._world: TrialWorld | None = None
        self._inspected: list[str] = []
        self._observed: list[tuple[str, int]] = []
        self._revealed: list[str] = []
        self._obs = np.zeros(size, dtype=np.float32)

    # -- helpers --------------------------------------------------------------------------------

    @property
    def scenario(self) -> Scenario:
        """The scenario of the current episode."""
        return self.scenarios[self._index]

    def _oracle(self) -> ScenarioOracle:
        if self._index not in self._oracles:
            self._oracles[self._index] = ScenarioOracle.prepare(self.scenario, adaptive=False)
        return self._oracles[self._index]

    def _slot_sources(self) -> list[SourceView | None]:
        """The source in each slot the agent may see now: the listed ones, then each hidden one
        once revealed (``None`` while it is not)."""
        sc = self.scenario
        hidden = [h.source if h.source.id in self._revealed else None for h in sc.truth.hidden]
        return [*sc.view.sources, *hidden]

    def _fill(self, i: int, src: SourceView) -> None:
        view = self.scenario.view
        row = self._obs[i * self.per_source : (i + 1) * self.per_source]
        row[0] = 1.0
        row[1] = src.authority
        row[2] = math.log1p(src.age_s / 3600.0)
        row[3] = view.cost_weight * src.cost.scalar()
        row[4] = sum(1 for v in src.reports if v in decision_variables(view))
        row[7] = 0.5
        if self.links:
            row[8] = src.links

    def _static_features(self) -> None:
        self._obs[:] = 0.0
        for i, src in enumerate(self.scenario.view.sources):
            self._fill(i, src)
        self._globals()

    def _globals(self) -> None:
        budget = self.scenario.view.budget
        made = len(self._inspected)
        tail = self.max_sources * self.per_source
        self._obs[tail] = (budget - made) / budget if budget else 0.0
        self._obs[tail + 1] = made / budget if budget else 0.0

    def _observation(self) -> np.ndarray:
        return np.clip(self._obs, 0.0, _HIGH).astype(np.float32)

    def action_masks(self) -> np.ndarray:
        """Which actions are valid now (``bool``, one per action; stop is always valid).

        A slot is valid when it holds a source (listed, or hidden and revealed) not yet
        inspected and budget is left. After the episode ended only stop is valid (``reset()``
        starts the next one). The method maskable-PPO implementations call.
        """
        mask = np.zeros(self.max_sources + 1, dtype=bool)
        mask[self.stop_action] = True
        if self._world is None or len(self._inspected) >= self.scenario.view.budget:
            return mask
        for i, src in enumerate(self._slot_sources()):
            mask[i] = src is not None and src.id not in self._inspected
        return mask

    def _info(self) -> dict[str, Any]:
        view = self.scenario.view
        return {
            "n_sources": len(view.sources) + len(self._revealed),
            "budget": view.budget,
            "budget_left": view.budget - len(self._inspected),
            "inspected": list(self._inspected),
            "revealed": list(self._revealed),
            "action_mask": self.action_masks().astype(np.int8),
        }

    # -- Gymnasium API --------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Pick a scenario (``options={"index": i}`` to choose) and draw its world."""
        super().reset(seed=seed)
        if options is not None and "index" in options:
            index = int(options["index"])
            if not 0 <= index < len(self.scenarios):
                raise InvalidArgumentError(f"options.index must be in [0, {len(self.scenarios)})")
            self._index = index
        else:
            self._index = int(self.np_random.integers(len(self.scenarios)))
        self._world = TrialWorld.draw(self._oracle(), self.np_random)
        self._inspected, self._observed, self._revealed = [], [], []
        self._static_features()
        return self._observation(), self._info()

    def step(self, action: np.int64 | int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Inspect source ``action`` or stop (the last action) and act."""
        if self._world is None:
            raise InvalidArgumentError("call reset() before step()")
        a = int(action)
        view = self.scenario.view
        slots = self._slot_sources()
        target = slots[a] if 0 <= a < len(slots) else None
        invalid = not (0 <= a <= self.stop_action) or (
            a != self.stop_action
            and (
                target is None
                or target.id in self._inspected
                or len(self._inspected) >= view.budget
            )
        )
        if invalid or a == self.stop_action:
            return self._finish(invalid)
        assert target is not None
        src = target
        oracle = self._oracle()
        outcome = self._world.outcome(src.id)
        obs = self._world.observation(src.id)
        self._inspected.append(src.id)
        self._observed.append((src.id, outcome))
        row = self._obs[a * self.per_source : (a + 1) * self.per_source]
        row[5] = 1.0
        row[6] = 1.0 if obs.failed else 0.0
        if obs.values is not None:
            beliefs = {b.variable: b.value for b in view.beliefs}
            rel = [v for v in obs.values if v in decision_variables(view)]
            row[7] = sum(obs.values[v] == beliefs.get(v) for v in rel) / len(rel) if rel else 0.5
        # A link is structure, not a result: the read reveals what it links to, failed or not.
        listed = len(view.sources)
        for k, h in enumerate(self.scenario.truth.hidden):
            if h.revealed_by == src.id and h.source.id not in self._revealed:
                self._revealed.append(h.source.id)
                self._fill(listed + k, h.source)
        self._globals()
        reward = -oracle.weighted_cost([src.id])
        info = self._info() | {"cost": -reward}
        return self._observation(), float(reward), False, False, info

    def _finish(self, invalid: bool) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        assert self._world is not None
        oracle = self._oracle()
        action = oracle.act(self._observed)
        utility = oracle.utility(action, self._world.index)
        self._world = None
        info = self._info() | {
            "action": oracle.problem.action_ids[action],
            "utility": utility,
            "invalid": invalid,
        }
        reward = utility - self.invalid_penalty if invalid else utility
        return self._observation(), float(reward), True, False, info
