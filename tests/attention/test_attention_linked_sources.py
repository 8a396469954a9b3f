"""Sources a read reveals (issue 35 item 3): a read whose reply names sources not registered yet
(``links``) is proposed and valued by what the sources it names may be worth — a cache that only
repeats a belief, or a catalogue that reports nothing, is worth nothing myopically, and without
this the instrument behind it is never found (family E's hidden sources)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests_attention_time import NOW

from heedful.attention import Controller, Stop
from heedful.attention.context import DecisionModel, UtilityRule
from heedful.attention.estimators import HeuristicEstimator
from heedful.errors import InvalidArgumentError
from heedful.memory import Store
from heedful.model.candidate import Candidate, CandidateKind

_DECISION = DecisionModel(
    variables={"state": ("up", "down")},
    actions={
        "ship": (UtilityRule(when={"state": "up"}, value=1.0), UtilityRule(value=-1.0)),
        "hold": (UtilityRule(value=0.0),),
    },
    cost_weight=0.01,
)


def _world(ctl: Controller, *, revealer: str, links: int) -> Controller:
    """A decision on ``state`` (a belief an hour old about a fast-changing state); the only
    listed source that reports it is a weak cache (or, ``revealer="catalogue"``, none does and a
    catalogue reports nothing); a strong instrument reports an unrelated claim."""
    if revealer == "cache":
        ctl.register_source(
            "cache", reports=["state"], authority=0.35, trusted=True, links=links, age_s=3600
        )
    else:
        ctl.register_source("catalogue", reports=[], authority=0.6, trusted=True, links=links)
    ctl.register_source("meter", reports=["other"], authority=0.9, trusted=True)
    ctl.record_belief(
        "state", "up", domain=["up", "down"], confidence=0.9, age_s=3600, volatility="high"
    )
    ctl.record_belief("other", "a", domain=["a", "b"], confidence=0.9, age_s=60, volatility="low")
    ctl.state_decision(_DECISION)
    ctl.begin_turn(budget=3)
    return ctl


def _first_read(ctl: Controller) -> str | None:
    step = ctl.next()
    if isinstance(step, Stop):
        return None
    assert isinstance(step, Candidate) and step.kind is CandidateKind.INSPECT_SOURCE
    return step.target


@pytest.mark.parametrize("revealer", ["cache", "catalogue"])
def test_a_read_that_names_unseen_sources_is_read_when_the_decision_hangs_on_them(
    revealer: str,
) -> None:
    ctl = _world(Controller(clock=lambda: NOW), revealer=revealer, links=1)
    assert _first_read(ctl) == revealer


@pytest.mark.parametrize("revealer", ["cache", "catalogue"])
def test_without_links_the_same_read_is_worth_nothing(revealer: str) -> None:
    # The same world with links=0: the weak cache and the silent catalogue are not read — what
    # the previous test reads is what the links are worth, not the source itself.
    ctl = _world(Controller(clock=lambda: NOW), revealer=revealer, links=0)
    assert _first_read(ctl) is None


def test_the_revealed_source_is_read_next_and_the_revealer_not_again() -> None:
    ctl = _world(Controller(clock=lambda: NOW), revealer="cache", links=1)
    step = ctl.next()
    assert isinstance(step, Candidate) and step.target == "cache"
    ctl.resolve(step.id, succeeded=True, observations={"state": "up"})
    ctl.register_source("upstream", reports=["state"], authority=0.9, trusted=True)
    assert _first_read(ctl) == "upstream"


def test_a_revealer_is_not_credited_when_one_read_is_left() -> None:
    ctl = _world(Controller(clock=lambda: NOW), revealer="catalogue", links=1)
    ctl.begin_turn(budget=1)  # reading the catalogue leaves no read for what it names
    assert _first_read(ctl) is None


def test_the_heuristic_credits_a_catalogue_with_no_report_it_does_not_make() -> None:
    ctl = _world(
        Controller(clock=lambda: NOW, estimator=HeuristicEstimator()),
        revealer="catalogue",
        links=1,
    )
    ctl.next()
    by_target = {c.target: c for c in ctl.candidates}
    assert "catalogue" in by_target  # proposed: a candidate, so candidate recall can count it
    assert ctl.last_estimates[by_target["catalogue"].id].gross == 0.0


@pytest.mark.parametrize("links", [-1, 1.5, True, "2"])
def test_links_must_be_a_count(links: object) -> None:
    with pytest.raises(InvalidArgumentError, match="links"):
        Controller(clock=lambda: NOW).register_source("s", links=links)  # type: ignore[arg-type]


def test_links_survive_a_reopen(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    with Store(db) as store:
        Controller(store=store, clock=lambda: NOW).register_source(
            "catalogue", reports=[], trusted=True, links=2
        )
    with Store(db) as store:
        ctl = Controller(store=store, clock=lambda: NOW)
        assert ctl.world.sources["catalogue"].links == 2
