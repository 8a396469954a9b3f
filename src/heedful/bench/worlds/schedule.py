"""Family J — multi-timescale attention: urgent-now, important-hour, important-week obligations
compete for attention slots (document 000 §16 J).

The generator's own hidden model: each obligation has a visible timescale and a hidden *weight*
(noise with probability ``noise_prob``, else a value from its timescale's range — week
obligations are worth the most), a hidden deadline (minutes: due almost at once; hours: a few
slots of slack; week: near the end of the horizon) and a hidden lapse hazard per slot (highest
for minutes). Demand exceeds the slots, so something must wait. A reliable requester
(``authority``) states stakes and the slots until due close to the truth; an unreliable one
inflates stakes and claims to be due at once. Names, channels and teasers come from the wording
stream; urgent words follow the *claimed* urgency only.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict

from heedful.bench.worlds.families import _signals as signals
from heedful.bench.worlds.families import _words as words
from heedful.model.kinds_io import schedule_from_dict
from heedful.model.schedule import ScheduleScenario, Timescale

VERSION = "J-v1"

_CHANNELS = ("pager", "chat", "email", "ticket", "calendar", "meeting", "review-queue")


class TimescaleModel(BaseModel):
    """The hidden model's ranges (low, high inclusive) for the obligations of one timescale.

    Attributes:
        count: Obligations of this timescale per scenario.
        work: Slots of work each.
        value: Value of each (when it is not noise).
        hazard: Lapse hazard per slot.
    """

    model_config = ConfigDict(frozen=True)

    count: tuple[int, int]
    work: tuple[int, int]
    value: tuple[float, float]
    hazard: tuple[float, float]


class ScheduleModel(BaseModel):
    """Numbers of the generator's hidden model (ours; document 000 gives none).

    Attributes:
        timescales: The ranges of each timescale's obligations (minutes, hours, week).
        noise_prob: Probability an obligation is worth (almost) nothing.
        inflation: Stakes of an unreliable requester grow by up to this × (1 − authority).
    """

    model_config = ConfigDict(frozen=True)

    timescales: dict[Timescale, TimescaleModel] = {
        Timescale.MINUTES: TimescaleModel(
            count=(2, 4), work=(1, 1), value=(0.2, 0.9), hazard=(0.1, 0.3)
        ),
        Timescale.HOURS: TimescaleModel(
            count=(1, 2), work=(1, 2), value=(0.5, 1.5), hazard=(0.03, 0.1)
        ),
        Timescale.WEEK: TimescaleModel(
            count=(1, 2), work=(2, 3), value=(1.2, 3.0), hazard=(0.0, 0.03)
        ),
    }
    noise_prob: float = 0.25
    inflation: float = 1.5


MODEL = ScheduleModel()


def _deadline(rng: np.random.Generator, ts: Timescale, arrives: int, work: int, slots: int) -> int:
    if ts is Timescale.MINUTES:
        return arrives + work + int(rng.integers(0, 2))
    if ts is Timescale.HOURS:
        return arrives + work + int(rng.integers(2, 6))
    return max(arrives + work, int(rng.integers(slots - 2, slots + 1)))


def generate_schedule(
    rng: np.random.Generator,
    wording: np.random.Generator,
    scenario_id: str,
    model: ScheduleModel = MODEL,
) -> ScheduleScenario:
    """Generate one family-J scenario from its structure and wording streams."""
    slots = int(rng.integers(8, 13))
    system = str(wording.choice(words.SYSTEMS))
    items = []
    for ts in (Timescale.MINUTES, Timescale.HOURS, Timescale.WEEK):
        ranges = model.timescales[ts]
        for _ in range(int(rng.integers(ranges.count[0], ranges.count[1] + 1))):
            work = int(rng.integers(ranges.work[0], ranges.work[1] + 1))
            if ts is Timescale.WEEK:
                arrives = 0
            elif ts is Timescale.HOURS:
                arrives = int(rng.integers(0, slots // 2))
            else:
                arrives = int(rng.integers(0, slots - 1))
            deadline = _deadline(rng, ts, arrives, work, slots)
            noise = bool(rng.random() < model.noise_prob)
            value = float(rng.uniform(0.0, 0.1) if noise else rng.uniform(*ranges.value))
            hazard = float(rng.uniform(*ranges.hazard))
            authority, honest, stakes = signals.stated_stakes(rng, value, model.inflation)
            if honest:
                due_in = max(1, deadline - arrives + int(rng.integers(-1, 2)))
                claimed = float(
                    np.clip(1.0 - (deadline - arrives) / slots + rng.normal(0, 0.1), 0, 1)
                )
            else:
                due_in = int(rng.integers(1, 3))
                claimed = float(rng.uniform(0.6, 1.0))
            topic = f"{system} {wording.choice(words.ASPECTS)}"
            items.append(
                {
                    "timescale": ts.value,
                    "arrives_at": arrives,
                    "work": work,
                    "source": f"{wording.choice(words.SOURCE_QUALIFIERS)} {system} requester",
                    "source_kind": str(wording.choice(_CHANNELS)),
                    "authority": round(authority, 3),
                    "stakes": round(stakes, 3),
                    "due_in": due_in,
                    "claimed_urgency": round(claimed, 3),
                    "teaser": signals.claim_teaser(rng, wording, claimed, topic),
                    "value": round(value, 4),
                    "deadline": deadline,
                    "hazard": round(hazard, 4),
                }
            )
    # Ids and file order come from the wording stream: neither says anything about the truth.
    order = wording.permutation(len(items))
    obligations = [{"id": f"o{k + 1}", **items[i]} for k, i in enumerate(order)]
    raw = {
        "format": "heedful.scenario/v1",
        "id": scenario_id,
        "kind": "schedule",
        "family": "J",
        "task": f"Share your attention over the next {slots} slots among the {system} "
        "obligations as they arrive.",
        "slots": slots,
        "slot_minutes": 30.0,
        "obligations": obligations,
    }
    return schedule_from_dict(raw, file=f"<generated {scenario_id}>")
