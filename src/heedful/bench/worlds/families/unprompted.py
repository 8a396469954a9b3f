"""The unprompted condition of a family (SPEC §4.2; document 000 §15, Core Benchmark 2).

An unprompted scenario is its family's scenario with the *same* latent structure, sources,
beliefs, utilities and private truth, but a task that just asks for the state-sensitive action:
it says nothing about inspecting, checking or verifying and states no budget
(``condition: unprompted``). The generator reuses the family's own generator (for the structure)
and only rewrites the task text, from its own wording stream.

The scenario's ``budget`` field stays: it is the **evaluator's hard cap** on tool calls (the
runner stops a policy that asks for more), not something the task announces. A policy reading
``view.budget`` learns the environment's limit, never an instruction to use it.

Each unprompted scenario's id is its announced twin's id plus :data:`UNPROMPTED_SUFFIX`, so the
two conditions can run side by side on matched scenarios (the initiation gap, document 000 §15.3).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from heedful.bench.seeds import Stream, name_key, seed_sequence
from heedful.errors import InvalidArgumentError
from heedful.model import Condition, Scenario, scenario_from_dict, scenario_to_dict

VERSION = "unprompted-v1"
UNPROMPTED_SUFFIX = "-u"

#: Task wording for the unprompted condition: a state-sensitive request, no mention of
#: inspection, verification, sources, tests or a budget. ``{first}``/``{rest}`` are the actions'
#: descriptions.
TASK_TEMPLATES = (
    "Please {first} — or {rest} if that is the right call right now.",
    "Go ahead and take care of it: {first} or {rest}.",
    "The owner is waiting on this: {first}, or {rest} if the situation calls for it.",
    "Time to act: {first} or {rest}.",
    "Handle it now — {first} or {rest}, whichever fits the current state.",
)

#: Words an unprompted task never contains (whole words; a test checks every template and
#: generated task, so a system named "checkout" is fine but "check" is not).
_FORBIDDEN = re.compile(
    r"\b(inspect\w*|check|checks|checked|checking|verif\w*|budget\w*|sources?|confirm\w*"
    r"|tests?|testing|look|looks|looking)\b",
    re.IGNORECASE,
)


def mentions_inspection(text: str) -> bool:
    """Whether a task text asks for inspection, verification or a test, or names a budget."""
    return _FORBIDDEN.search(text) is not None


def unprompted_twin(scenario: Scenario, wording: np.random.Generator) -> Scenario:
    """Return the unprompted twin of a scenario: same structure and truth, unprompted task.

    Raises:
        InvalidArgumentError: the scenario is already unprompted.
    """
    if scenario.view.condition is Condition.UNPROMPTED:
        raise InvalidArgumentError(f"scenario {scenario.id!r} is already unprompted")
    raw = scenario_to_dict(scenario)
    descriptions = [a.description or name for name, a in scenario.view.actions.items()]
    template = str(wording.choice(TASK_TEMPLATES))
    raw["id"] = scenario.id + UNPROMPTED_SUFFIX
    raw["condition"] = Condition.UNPROMPTED.value
    raw["task"] = template.format(first=descriptions[0], rest=" or ".join(descriptions[1:]))
    return scenario_from_dict(raw, file=f"<unprompted {raw['id']}>")


def twin_wording(family: str, seed: int, index: int, stream: Stream) -> np.random.Generator:
    """The wording stream of the unprompted task of scenario ``index`` of a family."""
    return np.random.default_rng(
        seed_sequence(seed, stream, name_key(f"{family}/unprompted"), index)
    )


def announced_id(scenario_id: str) -> str | None:
    """The announced twin's id of an unprompted scenario id (``None`` if it has no suffix)."""
    if scenario_id.endswith(UNPROMPTED_SUFFIX):
        return scenario_id[: -len(UNPROMPTED_SUFFIX)]
    return None


def twin_world_keys(scenarios: Sequence[Scenario]) -> list[int]:
    """World-stream keys for a run: an unprompted twin shares its announced twin's key.

    Every scenario gets its position, except an unprompted scenario whose announced twin is in
    the set: it gets the twin's position, so both see the same worlds and source outcomes.
    """
    position = {s.id: i for i, s in enumerate(scenarios)}
    keys = []
    for i, s in enumerate(scenarios):
        base = announced_id(s.id) if s.view.condition is Condition.UNPROMPTED else None
        keys.append(position.get(base, i) if base is not None else i)
    return keys
