"""heedful's worlds as inspect_ai tasks: ``heedful/family`` and ``heedful/scenarios``.

``inspect eval heedful/family -T family=G --model <provider/model>`` plays generated scenarios of
a family; ``inspect eval heedful/scenarios -T path=FILE`` plays scenario files. Each sample is one
scenario, each epoch one trial (``--epochs 5``: five hidden worlds per scenario, the bench's
trials 0–4); the model gets the bench agent's prompt and tools and is scored by the exact oracle.
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task, task

from heedful.bench.agents.contract import AgentConfig
from heedful.bench.agents.env import Mode
from heedful.bench.agents.runner import modes_of
from heedful.bench.suite import select_scenarios
from heedful.errors import InvalidArgumentError
from heedful.integrations.inspect._play import (
    Trials,
    heedful_agent,
    heedful_scorer,
    samples,
    trials,
)
from heedful.model import Scenario

__all__ = ["family", "heedful_task", "scenarios"]


def _mode(mode: str) -> Mode:
    modes = modes_of(mode)
    if len(modes) != 1:
        raise InvalidArgumentError(
            "mode: one of attention or production (run the task once per mode to pair them)"
        )
    return modes[0]


def heedful_task(
    items: list[Scenario],
    *,
    seed: int = 0,
    adaptive: bool = False,
    mode: str = "attention",
    advised: bool = False,
    max_turns: int = 16,
    name: str | None = None,
) -> Task:
    """An inspect_ai task over ready scenarios (for programs; the registered tasks wrap it).

    Args:
        items: Inspection scenarios (view and PRIVATE truth; the truth stays in this process).
        seed: Root seed of the hidden worlds (the bench's ``--seed``).
        adaptive: One inspection at a time, each result before the next (else one plan).
        mode: ``attention`` or ``production`` (the claim validator checks ``decide``).
        advised: Offer the attention controller's advice (tool ``attention_next``).
        max_turns: Model calls per trial before it is flagged ``turn_limit``.
        name: The task's name in the log.
    """
    if not items:
        raise InvalidArgumentError("the task needs at least one scenario")
    if max_turns < 1:
        raise InvalidArgumentError(f"max_turns must be at least 1, got {max_turns}")
    table = Trials(
        scenarios=items,
        seed=seed,
        adaptive=adaptive,
        mode=_mode(mode),
        advised=advised,
        config=AgentConfig(max_turns=max_turns),
    )
    token = trials(table)
    return Task(
        dataset=samples(table),
        solver=heedful_agent(token),
        scorer=heedful_scorer(token),
        name=name,
    )


@task
def family(
    family: str = "G",
    count: int = 5,
    seed: int = 0,
    condition: str = "announced",
    adaptive: bool = False,
    mode: str = "attention",
    advised: bool = False,
    max_turns: int = 16,
) -> Task:
    """Generated scenarios of heedful families, scored against the exact oracle.

    Args:
        family: Family codes, e.g. ``G`` or ``G,B`` (``heedful list families``).
        count: Scenarios generated per family (the development stream).
        seed: Root seed of the scenarios and their hidden worlds.
        condition: ``announced`` (the task states the budget) or ``unprompted``.
        adaptive: One inspection at a time (else one plan of every inspection).
        mode: ``attention`` or ``production`` (claim validator on).
        advised: Offer the attention controller's advice (tool ``attention_next``).
        max_turns: Model calls per trial.
    """
    if condition not in ("announced", "unprompted"):
        raise InvalidArgumentError("condition: announced or unprompted")
    items, _, _ = select_scenarios(None, family, count, seed, condition=condition)
    return heedful_task(
        items, seed=seed, adaptive=adaptive, mode=mode, advised=advised, max_turns=max_turns
    )


@task
def scenarios(
    path: str,
    seed: int = 0,
    adaptive: bool = False,
    mode: str = "attention",
    advised: bool = False,
    max_turns: int = 16,
) -> Task:
    """Scenario files (a file or a folder of YAML/JSON), scored against the exact oracle.

    A sealed hold-out set is refused (it runs only through ``heedful bench run --holdout``).

    Args:
        path: A scenario file or a folder of them.
        seed: Root seed of the hidden worlds.
        adaptive: One inspection at a time (else one plan of every inspection).
        mode: ``attention`` or ``production`` (claim validator on).
        advised: Offer the attention controller's advice (tool ``attention_next``).
        max_turns: Model calls per trial.
    """
    items, _, _ = select_scenarios([Path(path)], None, 1, seed)
    return heedful_task(
        items,
        seed=seed,
        adaptive=adaptive,
        mode=mode,
        advised=advised,
        max_turns=max_turns,
    )
