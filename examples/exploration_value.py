"""What the controller's exploration buys over a multi-turn run (document 000 §20.4, §31 q7).

Run: ``nice -n 10 .venv/bin/python examples/exploration_value.py`` (``--quick``: 40 episodes
of 120 turns, a smoke run; ``--episodes``, ``--turns``, ``--seed``, ``--world``,
``--belief-confidence`` and ``--workers`` to change the run).

One ``Controller`` lives through a whole episode of ``--turns`` turns, ten simulated minutes
apart; what it learns stays with it (learned change rates per claim type from revisits,
document 000 §9). Twelve claims, each reported by its own trusted instrument (authority 0.95,
accuracy 0.95, one tool call at ``cost_weight`` 0.15); six are of type ``fast`` and stated
``high`` volatility (they change at 0.5 per hour: stated right), six of type ``slow`` and stated
``low``. The starting beliefs are 1–4 hours old, held at confidence 0.9. Every turn the agent
must act on one claim drawn at random: it states the decision (+1 for acting on the claim's true
value, −1 otherwise), runs the controller with a budget of 3 reads and takes
:meth:`Controller.best_action`. A turn scores the utility of that action on the hidden world
minus ``cost_weight`` × the reads' scalar cost.

The worlds differ only in the ``slow`` claims:

* **undervalued** — the stated ``low`` is wrong: they change at 1 per hour. Valued at the stated
  rate a ``slow`` read is never worth its cost, so a controller that never reads one never
  learns their rate (revisits are what a learned rate is made of): the permanent blind spot of
  §7 "Exploration";
* **right-prior** — they change at 0.001 per hour, as stated; the starting beliefs are
  calibrated (the true value with probability 0.9), so a read can still correct one;
* **right-prior, beliefs right** — as stated and every starting belief true: nothing for
  exploration to find, its reads only cost.

Each episode is played twice with the same seed (the same hidden trajectory, the same draws of
the turns' claims and of every report): exploration as shipped (``EXPLORING``: paced, rate 0.05)
and none (``NOT_EXPLORING``: ``SelectorConfig(exploration_rate=0)``, all else the same). The
table gives each arm's mean total utility per episode, the paired difference (on − off) with a
95 % bootstrap interval over episodes, and what the exploring arm did: explorations per episode,
episodes in which it read a ``slow`` source, episodes in which it learned a ``slow`` rate, and
that rate's median.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from itertools import repeat
from typing import Any

import numpy as np

from heedful.attention import Controller, DecisionModel, Stop
from heedful.attention.config import DEFAULT_CONFIG, AttentionConfig
from heedful.bench.stats import bootstrap_mean
from heedful.model.scenario import UtilityRule

START = datetime(2026, 1, 1, tzinfo=UTC)
DOMAIN = ("a", "b", "c")
#: The two claim types (six claims each); their stated volatility is ``STATED``.
FAST, SLOW = "fast", "slow"
N_PER_TYPE = 6
STEP = timedelta(minutes=10)
BUDGET = 3
COST_WEIGHT = 0.15
ACCURACY = 0.95
BELIEF_CONFIDENCE = 0.9
#: World → (true change rate per hour of each claim type, whether the starting beliefs are
#: calibrated — the true value with probability ``BELIEF_CONFIDENCE`` — or all right).
WORLDS: dict[str, tuple[dict[str, float], bool]] = {
    "undervalued": ({FAST: 0.5, SLOW: 1.0}, True),
    "right-prior": ({FAST: 0.5, SLOW: 0.001}, True),
    "right-prior, beliefs right": ({FAST: 0.5, SLOW: 0.001}, False),
}
STATED = {FAST: "high", SLOW: "low"}
#: The two arms: the shipped exploration (paced, rate 0.05, docs/controller.md "Selection")
#: and none (``exploration_rate=0``: the draw never picks; everything else the same).
EXPLORING = replace(
    DEFAULT_CONFIG, selector=replace(DEFAULT_CONFIG.selector, exploration_rate=0.05)
)
NOT_EXPLORING = replace(
    DEFAULT_CONFIG, selector=replace(DEFAULT_CONFIG.selector, exploration_rate=0.0)
)


@dataclass
class Episode:
    """One hidden trajectory and the draws both arms share.

    Attributes:
        claims: Claim ids, in registration order (shuffled per episode).
        kind: Claim id → its type (``fast`` or ``slow``).
        values: ``values[c][t]``: the true value of claim ``c`` at turn ``t``.
        asked: The claim each turn's decision is about.
        noise: ``noise[c][t]``: the value a read of ``c`` at turn ``t`` reports.
        initial: Claim id → the belief the agent starts with (the true value at its age).
        ages: Claim id → the age of that belief in seconds.
        confidence: The confidence every starting belief is recorded with.
    """

    claims: list[str]
    kind: dict[str, str]
    values: dict[str, list[str]]
    asked: list[str]
    noise: dict[str, list[str]]
    initial: dict[str, str]
    ages: dict[str, float]
    confidence: float


def make_episode(
    world: str, turns: int, seed: int, confidence: float = BELIEF_CONFIDENCE
) -> Episode:
    """Draw one episode of ``world`` (a key of :data:`WORLDS`), beliefs held at ``confidence``."""
    rng = np.random.default_rng(seed)
    kinds = {f"{k}_{i}": k for k in (FAST, SLOW) for i in range(N_PER_TYPE)}
    claims = list(kinds)
    rng.shuffle(claims)
    dt_h = STEP.total_seconds() / 3600.0
    values: dict[str, list[str]] = {}
    noise: dict[str, list[str]] = {}
    initial: dict[str, str] = {}
    ages: dict[str, float] = {}
    rates, calibrated = WORLDS[world]
    for c in sorted(kinds):  # a fixed order: the draws do not depend on the shuffle
        rate = rates[kinds[c]]
        age_s = float(rng.uniform(1.0, 4.0) * 3600.0)
        v = str(rng.choice(DOMAIN))
        # calibrated: the belief is as right as it says (the true value w.p. ``confidence``)
        wrong = rng.random() >= confidence and calibrated
        initial[c] = str(rng.choice([d for d in DOMAIN if d != v])) if wrong else v
        ages[c] = age_s
        # the value moves on from the belief's time to turn 0, then turn by turn
        v = _moved(v, rng.poisson(rate * age_s / 3600.0), rng)
        row = []
        for _ in range(turns):
            row.append(v)
            v = _moved(v, rng.poisson(rate * dt_h), rng)
        values[c] = row
        noise[c] = [
            x if rng.random() < ACCURACY else str(rng.choice([d for d in DOMAIN if d != x]))
            for x in row
        ]
    asked = [str(c) for c in rng.choice(sorted(kinds), size=turns)]
    return Episode(claims, kinds, values, asked, noise, initial, ages, confidence)


def _moved(v: str, changes: int, rng: np.random.Generator) -> str:
    for _ in range(int(changes)):
        v = str(rng.choice([d for d in DOMAIN if d != v]))
    return v


def _decision(claim: str) -> DecisionModel:
    return DecisionModel(
        variables={claim: DOMAIN},
        actions={
            f"act_{v}": (UtilityRule(when={claim: v}, value=1.0), UtilityRule(value=-1.0))
            for v in DOMAIN
        },
        cost_weight=COST_WEIGHT,
    )


@dataclass
class Played:
    """What one arm did over one episode.

    Attributes:
        utility: Total net utility (decision utility minus read costs) over the turns.
        reads: Reads made.
        explorations: Reads the exploration draw chose.
        slow_reads: Reads of ``slow`` sources.
        slow_rate: The controller's learned change rate of ``slow`` claims at the end (per
            hour), None when it learned none.
        per_turn: Net utility of each turn.
    """

    utility: float = 0.0
    reads: int = 0
    explorations: int = 0
    slow_reads: int = 0
    slow_rate: float | None = None
    per_turn: list[float] = field(default_factory=list)


def play(ep: Episode, config: AttentionConfig, seed: int) -> Played:
    """Run one controller through the episode under ``config``; score every turn."""
    now = [START]
    ctl = Controller(config=config, seed=seed, clock=lambda: now[0])
    for c in ep.claims:
        ctl.register_source(
            f"src_{c}", reports=[c], authority=ACCURACY, trusted=True, cost={"tool_calls": 1}
        )
        ctl.record_belief(
            c,
            ep.initial[c],
            claim_type=ep.kind[c],
            domain=DOMAIN,
            confidence=ep.confidence,
            age_s=ep.ages[c],
            volatility=STATED[ep.kind[c]],
        )
    out = Played()
    for t, claim in enumerate(ep.asked):
        now[0] = START + t * STEP
        ctl.state_decision(_decision(claim))
        ctl.begin_turn(budget=BUDGET)
        cost = 0.0
        while not isinstance(step := ctl.next(), Stop):
            read = step.target.removeprefix("src_")
            ctl.resolve(step.id, succeeded=True, observations={read: ep.noise[read][t]})
            cost += COST_WEIGHT * 1.0
            out.reads += 1
            out.slow_reads += ep.kind[read] == SLOW
        action = ctl.best_action()
        out.explorations = ctl.selector.explorations
        right = action == f"act_{ep.values[claim][t]}"
        u = (1.0 if right else -1.0) - cost
        out.per_turn.append(u)
        out.utility += u
    out.slow_rate = ctl.instruments.volatility.hazard_per_hour(SLOW)
    return out


def pair(world: str, turns: int, seed: int, confidence: float) -> tuple[Played, Played]:
    """One episode of ``world`` played by both arms (exploring, not exploring)."""
    ep = make_episode(world, turns, seed, confidence)
    return play(ep, EXPLORING, seed), play(ep, NOT_EXPLORING, seed)


def run(
    world: str,
    episodes: int,
    turns: int,
    seed: int,
    workers: int = 1,
    confidence: float = BELIEF_CONFIDENCE,
) -> dict[str, Any]:
    """Both arms over ``episodes`` paired episodes of ``world``; the table's row."""
    seeds = range(seed, seed + episodes)
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            pairs = list(pool.map(pair, repeat(world), repeat(turns), seeds, repeat(confidence)))
    else:
        pairs = [pair(world, turns, s, confidence) for s in seeds]
    on, off = [p[0] for p in pairs], [p[1] for p in pairs]
    diff = [a.utility - b.utility for a, b in zip(on, off, strict=True)]
    rates = [p.slow_rate for p in on if p.slow_rate is not None]
    return {
        "world": world,
        "on": float(np.mean([p.utility for p in on])),
        "off": float(np.mean([p.utility for p in off])),
        "diff": bootstrap_mean(diff, np.random.default_rng(seed)),
        "explorations": float(np.mean([p.explorations for p in on])),
        "slow_read_on": sum(p.slow_reads > 0 for p in on),
        "slow_read_off": sum(p.slow_reads > 0 for p in off),
        "learned_on": len(rates),
        "rate_on": float(np.median(rates)) if rates else None,
        "episodes": episodes,
    }


def main() -> None:
    """Print the table (markdown, as docs/controller.md quotes it)."""
    ap = argparse.ArgumentParser(prog="exploration_value.py", description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=200, help="paired episodes per world")
    ap.add_argument("--turns", type=int, default=200, help="turns per episode")
    ap.add_argument("--seed", type=int, default=0, help="first episode's seed")
    ap.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    ap.add_argument("--quick", action="store_true", help="40 episodes of 120 turns")
    ap.add_argument(
        "--world", action="append", choices=list(WORLDS), help="only this world (repeatable)"
    )
    ap.add_argument(
        "--belief-confidence",
        type=float,
        default=BELIEF_CONFIDENCE,
        help=f"confidence of the starting beliefs (default {BELIEF_CONFIDENCE})",
    )
    args = ap.parse_args()
    if args.quick:
        args.episodes, args.turns = 40, 120
    print(
        f"{args.episodes} paired episodes of {args.turns} turns per world, seed {args.seed}, "
        f"starting beliefs at confidence {args.belief_confidence}"
    )
    print()
    print(
        "| world | on | off | on − off [95 % CI] | explorations (on) | "
        "episodes reading a `slow` source (on / off) | `slow` rate learned (on) |"
    )
    print("|---|---|---|---|---|---|---|")
    t0 = time.perf_counter()
    for world in args.world or list(WORLDS):
        r = run(world, args.episodes, args.turns, args.seed, args.workers, args.belief_confidence)
        d, n = r["diff"], r["episodes"]
        rate = "—" if r["rate_on"] is None else f"median {r['rate_on']:.3f}/h"
        print(
            f"| {world} | {r['on']:.2f} | {r['off']:.2f} | {d.mean:+.2f} [{d.lo:+.2f}, "
            f"{d.hi:+.2f}] | {r['explorations']:.2f} | {r['slow_read_on']} / "
            f"{r['slow_read_off']} of {n} | {r['learned_on']} of {n}, {rate} |"
        )
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
