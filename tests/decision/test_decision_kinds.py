"""The switching and schedule oracles agree with brute force on small problems."""

from __future__ import annotations

import numpy as np
import pytest

from heedful.decision.schedule import ScheduleProblem, evaluate, schedule_oracle
from heedful.decision.schedule import brute_force as schedule_brute
from heedful.decision.switching import (
    CHOICES,
    SwitchingProblem,
    simulate,
    switch_accuracy,
    switching_oracle,
    thrashes,
)
from heedful.decision.switching import brute_force as switching_brute
from heedful.errors import ProblemTooLargeError
from heedful.model.schedule import Timescale
from heedful.model.switching import SwitchChoice


def _switching(rng: np.random.Generator, n: int) -> SwitchingProblem:
    horizon = int(rng.integers(4, 12))
    arrivals = sorted(int(a) for a in rng.integers(0, horizon, size=n))
    return SwitchingProblem(
        horizon=horizon,
        switch_cost=float(rng.uniform(0, 0.5)),
        main_value=float(rng.uniform(0, 2)),
        main_work=int(rng.integers(1, horizon + 1)),
        ids=tuple(f"i{k}" for k in range(n)),
        arrivals=tuple(arrivals),
        handling=tuple(int(h) for h in rng.integers(1, 4, size=n)),
        values=tuple(float(v) for v in rng.uniform(0, 2, size=n)),
        deadlines=tuple(int(a + rng.integers(0, 8)) for a in arrivals),
        resume_costs=tuple(int(r) for r in rng.integers(0, 3, size=n)),
    )


@pytest.mark.parametrize("seed", range(60))
def test_switching_oracle_matches_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    p = _switching(rng, int(rng.integers(1, 6)))
    dp, bf = switching_oracle(p), switching_brute(p)
    assert dp.v_star == pytest.approx(bf.v_star, abs=1e-9)
    assert dp.u_random == pytest.approx(bf.u_random, abs=1e-9)
    assert set(dp.optimal) == set(bf.optimal)


def _one(**kw: object) -> SwitchingProblem:
    base: dict[str, object] = dict(
        horizon=6,
        switch_cost=0.1,
        main_value=1.0,
        main_work=3,
        ids=("x",),
        arrivals=(1,),
        handling=(1,),
        values=(2.0,),
        deadlines=(2,),
        resume_costs=(0,),
    )
    base.update(kw)
    return SwitchingProblem(**base)  # type: ignore[arg-type]


def test_an_urgent_valuable_interruption_is_worth_preempting() -> None:
    p = _one()
    assert switching_oracle(p).optimal == ((SwitchChoice.PREEMPT,),)
    out = simulate(p, [SwitchChoice.PREEMPT])
    assert out.utility == pytest.approx(1.0 + 2.0 - 0.1)
    assert out.main_done and out.on_time == (True,) and out.switches == 1


def test_a_patient_interruption_is_queued_and_still_paid() -> None:
    p = _one(deadlines=(6,))
    assert switching_oracle(p).optimal == ((SwitchChoice.QUEUE,),)
    assert simulate(p, [SwitchChoice.QUEUE]).on_time == (True,)


def test_a_switch_whose_resumption_sinks_the_task_thrashes() -> None:
    p = _one(values=(0.5,), resume_costs=(3,))
    out = simulate(p, [SwitchChoice.PREEMPT])
    assert not out.main_done
    assert thrashes(p, [SwitchChoice.PREEMPT]) == [0]
    assert thrashes(p, [SwitchChoice.STAY]) == []


def test_switch_accuracy_counts_agreement_with_the_closest_optimum() -> None:
    p = _one(
        ids=("x", "y"),
        arrivals=(1, 2),
        handling=(1, 1),
        values=(2.0, 0.0),
        deadlines=(2, 6),
        resume_costs=(0, 0),
    )
    oracle = switching_oracle(p)
    assert switch_accuracy(oracle, [SwitchChoice.PREEMPT, SwitchChoice.STAY]) == 1.0
    assert switch_accuracy(oracle, [SwitchChoice.STAY, SwitchChoice.PREEMPT]) < 1.0


def test_too_many_interruptions_are_refused() -> None:
    p = _one(
        ids=tuple(f"i{k}" for k in range(11)),
        arrivals=(0,) * 11,
        handling=(1,) * 11,
        values=(1.0,) * 11,
        deadlines=(5,) * 11,
        resume_costs=(0,) * 11,
    )
    with pytest.raises(ProblemTooLargeError):
        switching_oracle(p)


def _schedule(rng: np.random.Generator, n: int, slots: int) -> ScheduleProblem:
    arrivals = tuple(int(a) for a in rng.integers(0, slots, size=n))
    work = tuple(int(w) for w in rng.integers(1, 3, size=n))
    return ScheduleProblem(
        slots=slots,
        ids=tuple(f"o{j}" for j in range(n)),
        timescales=tuple(Timescale.HOURS for _ in range(n)),
        arrivals=arrivals,
        work=work,
        values=tuple(float(v) for v in rng.uniform(0, 2, size=n)),
        deadlines=tuple(
            int(a + w + rng.integers(0, 4)) for a, w in zip(arrivals, work, strict=True)
        ),
        hazards=tuple(float(h) for h in rng.uniform(0, 0.4, size=n)),
    )


@pytest.mark.parametrize("seed", range(40))
def test_schedule_oracle_matches_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    p = _schedule(rng, int(rng.integers(1, 4)), int(rng.integers(2, 6)))
    oracle = schedule_oracle(p)
    v_star, u_random = schedule_brute(p)
    assert oracle.v_star == pytest.approx(v_star, abs=1e-9)
    assert oracle.u_random == pytest.approx(u_random, abs=1e-9)
    assert evaluate(p, oracle.assignment).utility == pytest.approx(v_star, abs=1e-9)


def test_obligation_pays_discounted_by_hazard_only_by_its_deadline() -> None:
    p = ScheduleProblem(3, ("a",), (Timescale.WEEK,), (0,), (2,), (1.0,), (2,), (0.5,))
    assert evaluate(p, [0, 0, None]).utility == pytest.approx(0.25)
    assert evaluate(p, [None, 0, 0]).utility == 0.0
    assert evaluate(p, [None, 0, 0]).served == (2,)


def test_an_obligation_whose_omission_costs_nothing_is_not_worth_serving() -> None:
    p = ScheduleProblem(
        2,
        ("a", "b"),
        (Timescale.MINUTES, Timescale.WEEK),
        (0, 0),
        (1, 1),
        (1.0, 0.0),
        (1, 2),
        (0.0, 0.0),
    )
    assert schedule_oracle(p).worth_serving == (True, False)


def test_choices_are_stay_queue_preempt() -> None:
    assert [c.value for c in CHOICES] == ["stay", "queue", "preempt"]
