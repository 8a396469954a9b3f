"""Family D — attention switching: stay / queue / preempt while mid-task (document 000 §16 D).

The generator's own hidden model (never the controller's formulas inverted): each interruption
has a hidden *role* — critical, routine or noise — that sets its true value, and a hidden
*urgency* that sets how soon its deadline falls. Its sender has a visible reliability
(``authority``): a reliable sender states stakes and the time it can wait close to the truth; an
unreliable one inflates its stakes and claims urgency whatever the truth. The task's visible
``context_depth`` sets the hidden resumption cost of switching away from it (binomial in depth).
Wording (sender names, channels, teaser words) is drawn from the independent wording stream; the
number of urgent words follows the *claimed* urgency only, never the role.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict

from heedful.bench.worlds.families import _signals as signals
from heedful.bench.worlds.families import _words as words
from heedful.model.kinds_io import switching_from_dict
from heedful.model.switching import SwitchingScenario
from heedful.wording import indefinite

# D-v2: the task reads "an indexer change" (the article follows the system's first sound);
# numbers unchanged, the text an LLM under test reads is not.
VERSION = "D-v2"

_CHANNELS = ("pager", "chat", "email", "ticket", "call", "dm", "alert-feed", "calendar")


class SwitchingModel(BaseModel):
    """Numbers of the generator's hidden model (ours; document 000 gives none).

    Attributes:
        role_probs: P(critical), P(routine), P(noise).
        value_ranges: Value range of each role (utility units; the task is worth 1–2).
        urgent_probs: P(urgent) of each role.
        resume_max: Resumption cost of a switch is Binomial(resume_max, context_depth) steps.
        inflation: Stakes of an unreliable sender grow by up to this × (1 − authority).
    """

    model_config = ConfigDict(frozen=True)

    role_probs: tuple[float, float, float] = (0.3, 0.4, 0.3)
    value_ranges: tuple[tuple[float, float], ...] = ((0.8, 2.0), (0.2, 0.7), (0.0, 0.08))
    urgent_probs: tuple[float, float, float] = (0.75, 0.3, 0.5)
    resume_max: int = 4
    inflation: float = 1.5


MODEL = SwitchingModel()


def generate_switching(
    rng: np.random.Generator,
    wording: np.random.Generator,
    scenario_id: str,
    model: SwitchingModel = MODEL,
) -> SwitchingScenario:
    """Generate one family-D scenario from its structure and wording streams."""
    horizon = int(rng.integers(12, 21))
    work = int(rng.integers(4, horizon - 4))
    depth = float(rng.uniform(0.0, 1.0))
    n = int(rng.integers(3, 7))
    arrivals = sorted(int(a) for a in rng.integers(0, horizon - 2, size=n))
    system = str(wording.choice(words.SYSTEMS))
    interruptions = []
    for k, arrives in enumerate(arrivals):
        role = int(rng.choice(3, p=model.role_probs))
        lo, hi = model.value_ranges[role]
        value = float(rng.uniform(lo, hi))
        urgent = bool(rng.random() < model.urgent_probs[role])
        handling = int(rng.integers(1, 4))
        wait = int(rng.integers(0, 2)) if urgent else int(rng.integers(horizon // 2, horizon + 4))
        deadline = arrives + handling + wait
        authority, honest, stakes = signals.stated_stakes(rng, value, model.inflation)
        if honest:
            claimed = float(np.clip((0.8 if urgent else 0.25) + rng.normal(0, 0.1), 0, 1))
            within = max(1, handling + wait + int(rng.integers(-1, 2)))
        else:
            claimed = float(rng.uniform(0.6, 1.0))
            within = int(rng.integers(1, 3))
        topic = f"{system} {wording.choice(words.ASPECTS)}"
        text = signals.claim_teaser(rng, wording, claimed, topic)
        interruptions.append(
            {
                "id": f"x{k + 1}",
                "arrives_at": arrives,
                "source": f"{wording.choice(words.SOURCE_QUALIFIERS)} {system} sender",
                "source_kind": str(wording.choice(_CHANNELS)),
                "authority": round(authority, 3),
                "claimed_urgency": round(claimed, 3),
                "stakes": round(stakes, 3),
                "requested_within": within,
                "handling_steps": handling,
                "teaser": text,
                "value": round(value, 4),
                "deadline": deadline,
                "resume_cost": int(rng.binomial(model.resume_max, depth)),
            }
        )
    # File order is shuffled by the wording stream: position says nothing about the role.
    order = wording.permutation(len(interruptions))
    raw = {
        "format": "heedful.scenario/v1",
        "id": scenario_id,
        "kind": "switching",
        "family": "D",
        "task": f"You are part-way through {indefinite(system + ' change')}. "
        "Interruptions will arrive; "
        "answer each with stay, queue or preempt.",
        "horizon": horizon,
        "switch_cost": round(float(rng.uniform(0.05, 0.25)), 3),
        "main": {
            "description": f"finish the {system} change",
            "value": round(float(rng.uniform(1.0, 2.0)), 3),
            "work_left": work,
            "progress": round(float(rng.uniform(0.1, 0.8)), 2),
            "context_depth": round(depth, 3),
        },
        "interruptions": [interruptions[i] for i in order],
    }
    return switching_from_dict(raw, file=f"<generated {scenario_id}>")
