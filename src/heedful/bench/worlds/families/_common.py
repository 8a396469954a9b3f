"""A small builder that turns a generator's structural choices into a validated scenario.

Structural draws (priors, accuracies, roles, metadata) use ``rng``; names, labels, teasers and the
task text use ``wording``. Hidden fields are always derived from visible ones through
:mod:`heedful.bench.worlds.families._signals` and the scenario's hidden model (:mod:`._worlds`).
Surface fields carry nothing about a source's role: the ``kind`` and label are wording draws, the
order is shuffled, and ids are given *after* the shuffle (so a ``-2`` suffix marks a later
position, not a role).
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from heedful.bench.worlds.families import _signals as signals
from heedful.bench.worlds.families import _words as words
from heedful.bench.worlds.families._worlds import World
from heedful.model import FORMAT_V1, Scenario, Volatility, scenario_from_dict


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


class Builder:
    """Accumulates variables, actions and sources of one generated scenario.

    Args:
        rng: Structure randomness.
        wording: Surface randomness.
        scenario_id: Id of the scenario.
        family: Family code written into the scenario.
        system: The system the task is about (a wording choice).
        world: The scenario's hidden model (``World()``: the controller's defaults).
    """

    def __init__(
        self,
        rng: np.random.Generator,
        wording: np.random.Generator,
        scenario_id: str,
        *,
        family: str,
        system: str,
        world: World | None = None,
    ) -> None:
        self.rng = rng
        self.world = world or World()
        self.wording = wording
        self.scenario_id = scenario_id
        self.family = family
        self.system = system
        self.variables: dict[str, dict[str, Any]] = {}
        self.beliefs: list[dict[str, Any]] = []
        self.actions: dict[str, dict[str, Any]] = {}
        self.sources: list[dict[str, Any]] = []
        self._ids: set[str] = set()

    @classmethod
    def start(
        cls,
        rng: np.random.Generator,
        wording: np.random.Generator,
        scenario_id: str,
        *,
        family: str,
        world: World | None = None,
    ) -> Builder:
        """Return a builder for a scenario about a system drawn from :data:`words.SYSTEMS`."""
        return cls(
            rng,
            wording,
            scenario_id,
            family=family,
            system=str(wording.choice(words.SYSTEMS)),
            world=world,
        )

    def values(self, table: tuple[tuple[str, ...], ...]) -> list[str]:
        """Draw (with ``wording``) one value set of a ``words`` table, as a variable's domain."""
        return list(table[int(self.wording.integers(len(table)))])

    def volatility(self, *classes: Volatility) -> Volatility:
        """Draw (with ``rng``) one of the given volatility classes, uniformly."""
        return Volatility(self.rng.choice([v.value for v in classes]))

    def variable(
        self,
        name: str,
        domain: list[str],
        volatility: Volatility,
        *,
        believe: bool,
        confidence: tuple[float, float] = (0.6, 0.95),
        age_s: tuple[float, float] = (600.0, 86_400.0),
        believed: int | None = None,
        origin: str | None = None,
    ) -> str:
        """Add a variable; if ``believe``, also a belief whose staleness sets the true prior."""
        if believe:
            idx = int(self.rng.integers(len(domain))) if believed is None else believed
            conf = float(self.rng.uniform(*confidence))
            age = float(math.exp(self.rng.uniform(math.log(age_s[0]), math.log(age_s[1]))))
            prior = signals.honest_prior(
                self.rng, len(domain), idx, conf, age, volatility, self.world
            )
            self.beliefs.append(
                {
                    "variable": name,
                    "value": domain[idx],
                    "origin": origin or str(self.wording.choice(["memory", "summary", "note"])),
                    "age_s": round(age, 1),
                    "confidence": round(conf, 3),
                }
            )
        else:
            prior = signals.honest_prior(
                self.rng, len(domain), None, 0.0, 0.0, volatility, self.world
            )
        self.variables[name] = {"domain": domain, "prior": prior, "volatility": volatility.value}
        return name

    def condition(self, aspect: str) -> str:
        """Add an unbelieved auxiliary condition ``<system>_<aspect>``: two values, low or medium
        volatility."""
        return self.variable(
            f"{self.system}_{aspect}",
            self.values(words.BINARY_VALUES),
            self.volatility(Volatility.LOW, Volatility.MEDIUM),
            believe=False,
        )

    def irrelevant(self, volatility: Volatility) -> str:
        """Add an unbelieved two-valued variable named from :data:`words.IRRELEVANT`."""
        name = str(self.wording.choice(words.IRRELEVANT))
        return self.variable(name, self.values(words.BINARY_VALUES), volatility, believe=False)

    def domain(self, name: str) -> list[str]:
        """Return the domain of a variable added earlier."""
        return list(self.variables[name]["domain"])

    def belief_of(self, name: str) -> dict[str, Any] | None:
        """Return the belief held about a variable, if any."""
        return next((b for b in self.beliefs if b["variable"] == name), None)

    def action(self, verb: str, rules: list[tuple[dict[str, str], float]]) -> None:
        """Add an action whose utility is the given first-match rules."""
        self.actions[verb] = {
            "description": f"{verb} {self.system}",
            "utility": [
                ({"when": when} if when else {}) | {"value": round(float(v), 4)}
                for when, v in rules
            ],
        }

    def echoes(self, default: float) -> bool:
        """Draw whether a would-be echo source echoes (its family's default rate, moved by the
        hidden model). One structure draw at every shift."""
        return bool(self.rng.random() < self.world.echo_rate(default))

    def _new_id(self, label: str) -> str:
        base = _slug(label)
        sid, n = base, 2
        while sid in self._ids:
            sid, n = f"{base}-{n}", n + 1
        self._ids.add(sid)
        return sid

    def source(
        self,
        reports: list[str],
        *,
        authority: float,
        age_s: float,
        cues: dict[str, Any],
        cost: dict[str, Any] | None = None,
        echo: dict[str, str] | None = None,
        fails: float | None = None,
        label: str | None = None,
        suffix: str = "",
    ) -> None:
        """Add a source; its hidden accuracy follows its authority and age (unless ``echo``).

        ``label`` overrides the drawn label; ``suffix`` is appended to the teaser (family H's
        injected text); ``fails`` is the family's default failure rate (else drawn in
        ``[0, 0.1)``), moved by the hidden model. The ``kind`` is a wording draw from one pool
        for every source. The id is given by :meth:`build`, after the sources are shuffled.
        """
        authority = round(float(authority), 3)
        label = label or signals.source_label(self.wording, self.system)
        topic = str(self.wording.choice(words.ASPECTS + words.SYSTEMS))
        src: dict[str, Any] = {
            "label": label,
            "kind": str(self.wording.choice(words.KINDS)),
            "reports": list(reports),
            "authority": authority,
            "age_s": round(float(age_s), 1),
            "cost": cost or signals.draw_cost(self.rng),
            "salience": cues,
            "content": (signals.teaser(self.wording, cues, topic) + " " + suffix).strip(),
            "fails": round(
                self.world.fails(float(self.rng.uniform(0.0, 0.1) if fails is None else fails)), 3
            ),
        }
        # The accuracy is drawn even for an echo, so whether a source echoes (a hidden draw that
        # moves with the shift) never changes the structure draws that follow.
        accs = [
            signals.honest_accuracy(
                self.rng,
                authority,
                age_s,
                Volatility(self.variables[v]["volatility"]),
                len(self.variables[v]["domain"]),
                self.world,
            )
            for v in reports
        ]
        if echo is not None:
            src["echo"] = dict(echo)
        elif reports:
            src["accuracy"] = round(float(np.mean(accs)), 4)
        if reports:
            src["render"] = f"{label}: " + ", ".join(f"{v} is {{{v}}}" for v in reports)
        self.sources.append(src)

    def distractors(self, n: int, noise: str, *, silent: float = 0.5, loud: float = 0.85) -> None:
        """Add ``n`` distractors of any authority and age, with loud or (else) mixed cues.

        Args:
            n: How many.
            noise: The irrelevant variable a distractor reports when it reports anything.
            silent: Chance that a distractor reports nothing at all.
            loud: Chance that its cues are :func:`signals.loud_cues` (else mixed).
        """
        rng = self.rng
        for _ in range(n):
            self.source(
                [] if rng.random() < silent else [noise],
                authority=rng.uniform(0.2, 0.99),
                age_s=rng.uniform(0.0, 86_400.0),
                cues=signals.loud_cues(rng) if rng.random() < loud else signals.mixed_cues(rng),
            )

    def build(self, *, budget: int, cost_weight: float, actions_text: list[str]) -> dict[str, Any]:
        """Return the scenario as a file-form dict (sources shuffled: position says nothing)."""
        order = self.rng.permutation(len(self.sources))
        # Ids in the shuffled order: a "-2" suffix says only that the label came up before.
        sources = [
            {"id": self._new_id(self.sources[int(i)]["label"])} | self.sources[int(i)]
            for i in order
        ]
        template = str(self.wording.choice(words.TASK_TEMPLATES))
        return {
            "format": FORMAT_V1,
            "id": self.scenario_id,
            "kind": "inspection",
            "family": self.family,
            "condition": "announced",
            "task": template.format(system=self.system, actions=" / ".join(actions_text)),
            "budget": budget,
            "cost_weight": round(cost_weight, 4),
            "variables": self.variables,
            "actions": self.actions,
            "beliefs": self.beliefs,
            "sources": sources,
        }

    def validate(self, raw: dict[str, Any]) -> Scenario:
        """Validate through the ordinary loader, so generated and hand-written files agree."""
        return scenario_from_dict(raw, file=f"<generated {self.scenario_id}>")
