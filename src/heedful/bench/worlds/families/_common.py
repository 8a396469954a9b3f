"""The one family builder: the shared shape of every inspection generator, written once.

A family module writes only what makes it different — its variables, its utility rules and the
sources that watch them — inside a *body* ``body(b: Builder) -> None`` registered with
:func:`family`; the decorator draws the budget, starts the builder, builds, mixes the surface and
validates (SPEC §5; document 000 §14, §16).

Structural draws (priors, accuracies, roles, metadata) use ``b.rng``; names, labels, teasers and
the task text use ``b.wording``. Hidden fields are always derived from visible ones through
:mod:`heedful.bench.worlds.families._signals` and the scenario's hidden model (:mod:`._worlds`).

Surface fields carry nothing about a source's role:

* the ``kind`` and label are wording draws, the order is shuffled, and ids are given *after* the
  shuffle (so a ``-2`` suffix marks a later position, not a role);
* **the surface is mixed** (issue 23): every source a family adds with ``mix=True`` (all but the
  distractors) gets its look — salience cues and the teaser rendered from them (with any
  injected text) — from a random permutation of the looks the family drew for its roles, and its
  cost from another. So a family still has its loud item, its cheap cached copy and its terse
  quiet record, but the loud item is the instrument as often as the echo: among the sources that
  report what the decision needs, length, verbosity, repeats, urgent words, capitals and cost are
  drawn from one distribution, and only reports, authority and age (and the decision) carry
  the answer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from heedful.bench.worlds.families import _signals as signals
from heedful.bench.worlds.families import _words as words
from heedful.bench.worlds.families._registry import Maker, register_family
from heedful.bench.worlds.families._worlds import World, WorldSpec
from heedful.model import FORMAT_V1, Scenario, Volatility, scenario_from_dict

#: A number given either fixed or as a ``(low, high)`` range to draw from uniformly (with ``rng``).
Range = float | tuple[float, float]
#: Salience cues given as a dict, or as a function of the structure rng that draws them.
Cues = dict[str, Any] | Callable[[np.random.Generator], dict[str, Any]]
#: A cost given as a dict, or as a function of the structure rng that draws it.
Cost = dict[str, Any] | Callable[[np.random.Generator], dict[str, Any]]
#: The surface bundles mixed among the ``mix=True`` sources, each by its own permutation.
SURFACE = (("salience", "content"), ("cost",))


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
        self.budget = 1
        self.variables: dict[str, dict[str, Any]] = {}
        self.beliefs: list[dict[str, Any]] = []
        self.actions: dict[str, dict[str, Any]] = {}
        self.sources: list[dict[str, Any]] = []
        self._mixed: list[bool] = []
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

    # -- structure draws ------------------------------------------------------------------------

    def draw(self, value: Range) -> float:
        """A fixed number, or a uniform structure draw from a ``(low, high)`` range."""
        return float(self.rng.uniform(*value)) if isinstance(value, tuple) else float(value)

    def count(self, low: int, high: int) -> int:
        """A count drawn uniformly from ``[low, high)``."""
        return int(self.rng.integers(low, high))

    def chance(self, p: float) -> bool:
        """A coin with probability ``p`` (one structure draw)."""
        return bool(self.rng.random() < p)

    def values(self, table: tuple[tuple[str, ...], ...]) -> list[str]:
        """Draw (with ``wording``) one value set of a ``words`` table, as a variable's domain."""
        return list(table[int(self.wording.integers(len(table)))])

    def aspects(self, k: int) -> list[str]:
        """``k`` distinct aspect words (wording) for the names of conditions."""
        return [str(a) for a in signals.pick(self.wording, words.ASPECTS, k)]

    def volatility(self, *classes: Volatility) -> Volatility:
        """Draw (with ``rng``) one of the given volatility classes, uniformly."""
        return Volatility(self.rng.choice([v.value for v in classes]))

    # -- variables ------------------------------------------------------------------------------

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

    def state(
        self,
        table: tuple[tuple[str, ...], ...],
        *classes: Volatility,
        name: str = "state",
        believe: bool = True,
        confidence: tuple[float, float] = (0.6, 0.95),
        age_s: tuple[float, float] = (600.0, 86_400.0),
        origin: str | None = None,
    ) -> str:
        """Add the decision's latent state ``<system>_<name>``, believed by default."""
        return self.variable(
            f"{self.system}_{name}",
            self.values(table),
            self.volatility(*classes),
            believe=believe,
            confidence=confidence,
            age_s=age_s,
            origin=origin,
        )

    def condition(self, aspect: str) -> str:
        """Add an unbelieved auxiliary condition ``<system>_<aspect>``: two values, low or medium
        volatility."""
        return self.variable(
            f"{self.system}_{aspect}",
            self.values(words.BINARY_VALUES),
            self.volatility(Volatility.LOW, Volatility.MEDIUM),
            believe=False,
        )

    def irrelevant(self, *classes: Volatility) -> str:
        """Add an unbelieved two-valued variable named from :data:`words.IRRELEVANT`."""
        name = str(self.wording.choice(words.IRRELEVANT))
        return self.variable(
            name, self.values(words.BINARY_VALUES), self.volatility(*classes), believe=False
        )

    def domain(self, name: str) -> list[str]:
        """Return the domain of a variable added earlier."""
        return list(self.variables[name]["domain"])

    def belief_of(self, name: str) -> dict[str, Any]:
        """Return the belief held about a variable.

        Raises:
            KeyError: no belief is held about it.
        """
        found = next((b for b in self.beliefs if b["variable"] == name), None)
        if found is None:
            raise KeyError(f"no belief about {name!r}")
        return found

    def echo_of(self, name: str) -> dict[str, str]:
        """The fixed report of a source that only repeats the belief about ``name``."""
        return {name: str(self.belief_of(name)["value"])}

    # -- actions --------------------------------------------------------------------------------

    def action(self, verb: str, rules: list[tuple[dict[str, str], float]]) -> None:
        """Add an action whose utility is the given first-match rules."""
        self.actions[verb] = {
            "description": f"{verb} {self.system}",
            "utility": [
                ({"when": when} if when else {}) | {"value": round(float(v), 4)}
                for when, v in rules
            ],
        }

    def verbs(self, k: int) -> list[str]:
        """``k`` distinct action verbs (wording)."""
        return [str(v) for v in signals.pick(self.wording, words.VERBS, k)]

    def stakes(
        self,
        state: str,
        conditions: Sequence[str | None],
        *,
        gain: Range = (0.6, 1.2),
        penalty: Range = (0.5, 1.5),
        loss: Range = (0.5, 1.5),
        last: Range | None = None,
        hedge: Range = (-0.3, 0.1),
    ) -> list[str]:
        """Add one committing action per entry of ``conditions`` and a last, safer action.

        Committing action ``i`` pays ``gain`` in the ``i``-th value of ``state`` — less
        ``penalty`` there unless its condition (if any) holds at its first value — and loses
        ``loss`` elsewhere. The last action pays ``last`` in the next value of the state (if the
        state has one and ``last`` is given) and ``hedge`` otherwise. Returns the verbs.
        """
        values = self.domain(state)
        verbs = self.verbs(len(conditions) + 1)
        for i, cond in enumerate(conditions):
            g = self.draw(gain)
            rules: list[tuple[dict[str, str], float]] = []
            if cond is not None:
                rules.append(({state: values[i], cond: self.domain(cond)[0]}, g))
                rules.append(({state: values[i]}, g - self.draw(penalty)))
            else:
                rules.append(({state: values[i]}, g))
            rules.append(({}, -self.draw(loss)))
            self.action(verbs[i], rules)
        tail: list[tuple[dict[str, str], float]] = []
        if last is not None and len(values) > len(conditions):
            tail.append(({state: values[len(conditions)]}, self.draw(last)))
        tail.append(({}, self.draw(hedge)))
        self.action(verbs[-1], tail)
        return verbs

    def echoes(self, default: float) -> bool:
        """Draw whether a would-be echo source echoes (its family's default rate, moved by the
        hidden model). One structure draw at every shift."""
        return bool(self.rng.random() < self.world.echo_rate(default))

    # -- sources --------------------------------------------------------------------------------

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
        authority: Range,
        age_s: Range,
        cues: Cues = signals.mixed_cues,
        cost: Cost | None = None,
        echo: dict[str, str] | None = None,
        fails: float | None = None,
        label: str | None = None,
        suffix: str = "",
        mix: bool = True,
    ) -> int:
        """Add a source and return its index; its hidden accuracy follows its authority and age
        (unless ``echo``).

        ``authority`` and ``age_s`` are numbers or ``(low, high)`` ranges; ``cues`` a dict or a
        function of the rng (default :func:`signals.mixed_cues`), ``cost`` too (default
        :func:`signals.draw_cost`). ``label`` overrides the drawn
        label; ``suffix`` is appended to the teaser (family H's injected text); ``fails`` is the
        family's default failure rate (else drawn in ``[0, 0.1)``), moved by the hidden model.
        ``mix`` puts the source's surface bundle in the mix (see the module doc; distractors
        keep theirs). The ``kind`` is a wording draw from one pool for every source. The id is
        given by :meth:`build`, after the sources are shuffled.
        """
        auth = round(self.draw(authority), 3)
        age = self.draw(age_s)
        drawn = cues(self.rng) if callable(cues) else dict(cues)
        label = label or signals.source_label(self.wording, self.system)
        topic = str(self.wording.choice(words.ASPECTS + words.SYSTEMS))
        src: dict[str, Any] = {
            "label": label,
            "kind": str(self.wording.choice(words.KINDS)),
            "reports": list(reports),
            "authority": auth,
            "age_s": round(age, 1),
            "cost": (cost(self.rng) if callable(cost) else cost) or signals.draw_cost(self.rng),
            "salience": drawn,
            "content": (signals.teaser(self.wording, drawn, topic) + " " + suffix).strip(),
            "fails": round(
                self.world.fails(float(self.rng.uniform(0.0, 0.1) if fails is None else fails)), 3
            ),
        }
        # The accuracy is drawn even for an echo, so whether a source echoes (a hidden draw that
        # moves with the shift) never changes the structure draws that follow.
        accs = [
            signals.honest_accuracy(
                self.rng,
                auth,
                age,
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
        self._mixed.append(mix)
        return len(self.sources) - 1

    def untrusted(self, index: int, *, honesty: Range | None, against: float = 0.5) -> None:
        """Mark source ``index`` untrusted (document 000 §24): its claimed authority stays what
        the view shows; with ``honesty`` (a number or a range to draw from) it is honest with
        that PRIVATE probability — a latent variable of the world — and a liar otherwise,
        reporting against the truth with chance ``against`` (else at random). ``None``: an
        untrusted source that is in fact honest (one that reports nothing has no liar's side).
        Draws ``honesty`` and the liar's mode only when given, both from ``rng``."""
        src = self.sources[index]
        src["trusted"] = False
        if honesty is not None and src.get("accuracy") is not None:
            src["honesty"] = round(self.draw(honesty), 3)
            src["liar"] = "against" if self.chance(against) else "random"

    def hide(self, index: int, *, by: int) -> None:
        """Hide source ``index`` until source ``by`` is read (issue 23): the file gets
        ``revealed_by`` (PRIVATE); the revealer's visible ``links`` counts it."""
        if index == by:
            raise ValueError("a source cannot reveal itself")
        self.sources[index]["_revealed_by"] = by
        # Out of the surface mix: the listed sources share the looks and costs among themselves
        # as in a scenario without the hidden one (its own look reaches a policy only revealed).
        self._mixed[index] = False

    def cached_copy(self, var: str, *, authority: Range, echo_rate: float) -> int:
        """Add a cheap cached copy of the belief about ``var``: its data as old as the belief,
        it never fails, and it echoes the believed value at ``echo_rate`` (moved by the hidden
        model), else reports it with the accuracy its authority and age give."""
        return self.source(
            [var],
            authority=authority,
            age_s=float(self.belief_of(var)["age_s"]),
            cues=signals.cached_cues,
            cost=signals.cheap_cost,
            echo=self.echo_of(var) if self.echoes(echo_rate) else None,
            fails=0.0,
        )

    def live_instrument(self, var: str, *, authority: Range, age_s: Range) -> int:
        """Add a live instrument on ``var``: quiet cues, the cost of a live read."""
        return self.source(
            [var], authority=authority, age_s=age_s, cues=signals.quiet_cues, cost=signals.dear_cost
        )

    def distractors(
        self,
        n: int,
        noise: str,
        *,
        silent: float = 0.5,
        loud: float = 0.85,
        cues: Cues | None = None,
        label: Callable[[], str | None] | None = None,
        suffix: Callable[[], str] | None = None,
    ) -> None:
        """Add ``n`` distractors of any authority and age; their surface is not mixed.

        Args:
            n: How many.
            noise: The irrelevant variable a distractor reports when it reports anything.
            silent: Chance that a distractor reports nothing at all.
            loud: Chance that its cues are :func:`signals.loud_cues` (else mixed), unless
                ``cues`` is given.
            cues: The cues of every distractor.
            label: Draws a distractor's label (``None``: the ordinary label).
            suffix: Draws the text appended to a distractor's teaser.
        """
        for _ in range(n):
            reports = [] if self.rng.random() < silent else [noise]
            drawn: Cues = cues or (
                signals.loud_cues if self.rng.random() < loud else signals.mixed_cues
            )
            self.source(
                reports,
                authority=(0.2, 0.99),
                age_s=(0.0, 86_400.0),
                cues=drawn,
                label=label() if label else None,
                suffix=suffix() if suffix else "",
                mix=False,
            )

    def _mix_surface(self) -> None:
        # Two independent permutations: the look (cues and the teaser rendered from them) and
        # the cost, so loudness is no proxy for cheapness either.
        pool = [i for i, mixed in enumerate(self._mixed) if mixed]
        for fields in SURFACE:
            bundles = [{k: self.sources[i][k] for k in fields} for i in pool]
            for i, j in zip(pool, self.rng.permutation(len(pool)), strict=True):
                self.sources[i] |= bundles[int(j)]

    def build(self, *, cost_weight: float) -> dict[str, Any]:
        """Return the scenario as a file-form dict: the surface mixed, the sources shuffled
        (position says nothing)."""
        self._mix_surface()
        order = self.rng.permutation(len(self.sources))
        # Ids in the shuffled order: a "-2" suffix says only that the label came up before.
        ids = {int(i): self._new_id(self.sources[int(i)]["label"]) for i in order}
        sources = []
        for i in order:
            src = {k: v for k, v in self.sources[int(i)].items() if k != "_revealed_by"}
            by = self.sources[int(i)].get("_revealed_by")
            sources.append(
                {"id": ids[int(i)]} | src | ({"revealed_by": ids[by]} if by is not None else {})
            )
        template = str(self.wording.choice(words.TASK_TEMPLATES))
        return {
            "format": FORMAT_V1,
            "id": self.scenario_id,
            "kind": "inspection",
            "family": self.family,
            "condition": "announced",
            "task": template.format(system=self.system, actions=" / ".join(self.actions)),
            "budget": self.budget,
            "cost_weight": round(cost_weight, 4),
            "variables": self.variables,
            "actions": self.actions,
            "beliefs": self.beliefs,
            "sources": sources,
        }

    def validate(self, raw: dict[str, Any]) -> Scenario:
        """Validate through the ordinary loader, so generated and hand-written files agree."""
        return scenario_from_dict(raw, file=f"<generated {self.scenario_id}>")


#: A family's body: adds the variables, actions and sources of one scenario to the builder.
Body = Callable[[Builder], None]


def family(
    code: str,
    name: str,
    *,
    version: str,
    description: str,
    budget: tuple[int, int],
    cost_weight: tuple[float, float],
    world: WorldSpec | None = None,
    measures: str = "",
) -> Callable[[Body], Maker]:
    """Register a family from its body (the part that makes it different).

    The generator it registers draws the budget from ``[budget[0], budget[1])``, starts a
    :class:`Builder`, runs ``body``, draws the cost weight, mixes the surface, shuffles and
    validates. Returns the generator (a :data:`~heedful.bench.worlds.families.Maker`).

    Example::

        @family("G", "budgeted", version="G-v3", description="…", budget=(3, 6),
                cost_weight=(0.002, 0.012))
        def budgeted(b: Builder) -> None: ...
    """

    def decorate(body: Body) -> Maker:
        def make(
            rng: np.random.Generator, wording: np.random.Generator, scenario_id: str, world_: World
        ) -> Scenario:
            b = Builder.start(rng, wording, scenario_id, family=code, world=world_)
            b.budget = b.count(*budget)
            body(b)
            return b.validate(b.build(cost_weight=b.draw(cost_weight)))

        make.__name__ = make.__qualname__ = f"generate_{body.__name__}"
        make.__doc__ = f"Generate one family-{code} scenario from :func:`{body.__name__}`."
        make.__module__ = body.__module__
        return register_family(
            code, name, version=version, description=description, world=world, measures=measures
        )(make)

    return decorate
