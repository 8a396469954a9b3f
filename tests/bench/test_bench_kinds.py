"""Families D (switching) and J (schedule): generators, honest signals, policies, runs, files."""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from heedful.bench.config import DEFAULT_CONFIG
from heedful.bench.kinds import generate_kind_family
from heedful.bench.kinds.schedule import ScheduleCase, SchedulePolicy, run_schedule_trial
from heedful.bench.kinds.switching import SwitchingCase, SwitchingPolicy, run_switching_trial
from heedful.bench.run.kinds import run_kinds
from heedful.bench.run.split import split_families
from heedful.cli import app
from heedful.errors import InvalidArgumentError, ScenarioError, UnknownNameError
from heedful.model.kinds_io import (
    all_scenario_json_schema,
    any_scenario_from_dict,
    any_scenario_to_dict,
    load_any_scenarios,
)
from heedful.model.schedule import ObligationView, ScheduleFrame, ScheduleScenario
from heedful.model.switching import (
    InterruptionView,
    SwitchChoice,
    SwitchingScenario,
    SwitchingStatus,
    SwitchingTaskView,
)


@pytest.fixture(scope="module")
def many_d() -> list[SwitchingScenario]:
    return [s for s in generate_kind_family("D", 60, seed=3) if isinstance(s, SwitchingScenario)]


@pytest.fixture(scope="module")
def many_j() -> list[ScheduleScenario]:
    return [s for s in generate_kind_family("J", 40, seed=3) if isinstance(s, ScheduleScenario)]


def test_generated_scenarios_round_trip_through_the_file_format(
    many_d: list[SwitchingScenario], many_j: list[ScheduleScenario]
) -> None:
    for s in [*many_d[:5], *many_j[:5]]:
        again = any_scenario_from_dict(any_scenario_to_dict(s))
        assert again.view == s.view and again.truth == s.truth


def test_same_seed_generates_identical_scenarios() -> None:
    for code in ("D", "J"):
        a = [any_scenario_to_dict(s) for s in generate_kind_family(code, 3, seed=7)]
        b = [any_scenario_to_dict(s) for s in generate_kind_family(code, 3, seed=7)]
        assert a == b


def test_reliable_senders_state_stakes_that_track_hidden_value(
    many_d: list[SwitchingScenario],
) -> None:
    pairs = [
        (x.stakes, s.truth.interruptions[x.id].value)
        for s in many_d
        for x in s.view.interruptions
        if x.authority > 0.7
    ]
    stakes, values = np.array(pairs).T
    assert np.corrcoef(stakes, values)[0, 1] > 0.7


def test_unreliable_senders_inflate_stakes(many_d: list[SwitchingScenario]) -> None:
    low = [
        x.stakes - s.truth.interruptions[x.id].value
        for s in many_d
        for x in s.view.interruptions
        if x.authority < 0.5
    ]
    high = [
        x.stakes - s.truth.interruptions[x.id].value
        for s in many_d
        for x in s.view.interruptions
        if x.authority > 0.8
    ]
    assert np.mean(low) > np.mean(high) + 0.2


def test_context_depth_tracks_hidden_resumption_cost(many_d: list[SwitchingScenario]) -> None:
    pairs = [
        (s.view.main.context_depth, t.resume_cost)
        for s in many_d
        for t in s.truth.interruptions.values()
    ]
    depth, cost = np.array(pairs).T
    assert np.corrcoef(depth, cost)[0, 1] > 0.5


def test_stated_due_time_of_reliable_requesters_tracks_hidden_deadline(
    many_j: list[ScheduleScenario],
) -> None:
    pairs = [
        (o.arrives_at + o.due_in, s.truth.obligations[o.id].deadline)
        for s in many_j
        for o in s.view.obligations
        if o.authority > 0.7
    ]
    stated, hidden = np.array(pairs).T
    assert np.corrcoef(stated, hidden)[0, 1] > 0.7


def _hash(*parts: object) -> int:
    return zlib.crc32(repr(parts).encode())


class _LabelSwitching(SwitchingPolicy):
    """Reads only id, channel, sender label, teaser words and position: must score ~random."""

    name = "label-reader"

    def reset(self, view: SwitchingTaskView, rng: np.random.Generator) -> None:
        self._k = 0

    def answer(self, interruption: InterruptionView, status: SwitchingStatus) -> SwitchChoice:
        self._k += 1
        x = interruption
        h = _hash(x.id, x.source_kind, x.source.split()[0], len(x.teaser.split()), self._k)
        return (SwitchChoice.STAY, SwitchChoice.QUEUE, SwitchChoice.PREEMPT)[h % 3]


class _LabelSchedule(SchedulePolicy):
    """Keeps to one order by a key of id, channel and sender label (or, with ``blind``, by a
    random key): sticking to one obligation beats random interleaving whatever the key, so the
    label key must do no better than a random key."""

    name = "label-reader"

    def __init__(self, blind: bool = False) -> None:
        self.blind = blind

    def reset(self, view: ScheduleFrame, rng: np.random.Generator) -> None:
        self._rng = rng
        self._keys: dict[str, float] = {}

    def pick(
        self, slot: int, open_obligations: Sequence[ObligationView], left: Mapping[str, int]
    ) -> str | None:
        if not open_obligations:
            return None
        for o in open_obligations:
            if o.id not in self._keys:
                blind = float(self._rng.random())
                self._keys[o.id] = blind if self.blind else _hash(o.id, o.source_kind, o.source)
        return min(open_obligations, key=lambda o: self._keys[o.id]).id


def test_labels_ids_and_positions_give_nothing_away(
    many_d: list[SwitchingScenario], many_j: list[ScheduleScenario]
) -> None:
    rng = np.random.default_rng(0)
    d = [
        run_switching_trial(
            SwitchingCase.prepare(s), _LabelSwitching(), rng, trial=0, config=DEFAULT_CONFIG
        ).score
        for s in many_d
    ]
    cases = [ScheduleCase.prepare(s) for s in many_j]

    def mean_j(blind: bool) -> float:
        scores = [
            run_schedule_trial(c, _LabelSchedule(blind), rng, trial=0, config=DEFAULT_CONFIG).score
            for c in cases
            for _ in range(3 if blind else 1)
        ]
        return float(np.mean([x for x in scores if x is not None]))

    assert abs(np.mean([x for x in d if x is not None])) < 25
    assert mean_j(blind=False) < mean_j(blind=True) + 20


@pytest.fixture(scope="module")
def small_run() -> object:
    scenarios = [*generate_kind_family("D", 8, seed=1), *generate_kind_family("J", 6, seed=1)]
    return run_kinds(scenarios, "all", trials=2, seed=0)


def test_oracle_scores_100_on_both_kinds(small_run: object) -> None:
    rows = [r for r in small_run.rows if r.policy == "oracle"]  # type: ignore[attr-defined]
    assert {r.family for r in rows} == {"D", "J"}
    assert all(r.score.mean == pytest.approx(100.0) for r in rows)
    assert all(r.regret.mean == pytest.approx(0.0, abs=1e-9) for r in rows)


def test_random_policy_is_the_exact_random_baseline_in_expectation() -> None:
    scenarios = generate_kind_family("D", 4, seed=2)
    res = run_kinds(scenarios, "random", trials=300, seed=0)
    for s in scenarios:
        mine = [t.value for t in res.trials.switching if t.scenario_id == s.id]
        u = res.trials.switching[[t.scenario_id for t in res.trials.switching].index(s.id)].u_random
        assert np.mean(mine) == pytest.approx(u, abs=0.15)


def test_switching_ablations_are_real_policies_that_can_differ(small_run: object) -> None:
    names = {r.policy for r in small_run.rows if r.family == "D"}  # type: ignore[attr-defined]
    assert {"voc", "voc-no-switch-cost", "voc-no-hysteresis", "triage-002"} <= names
    names_j = {r.policy for r in small_run.rows if r.family == "J"}  # type: ignore[attr-defined]
    assert {"voc", "voc-no-aging", "salience-003"} <= names_j


def test_no_switch_cost_ablation_preempts_at_least_as_often() -> None:
    scenarios = generate_kind_family("D", 30, seed=4)
    res = run_kinds(scenarios, "voc,voc-no-switch-cost", trials=1, seed=0)
    count = {
        p: sum(
            list(t.decisions.values()).count("preempt")
            for t in res.trials.switching
            if t.policy == p
        )
        for p in ("voc", "voc-no-switch-cost")
    }
    assert count["voc-no-switch-cost"] > count["voc"]


def _switching_doc() -> dict[str, object]:
    return {
        "format": "heedful.scenario/v1",
        "id": "d1",
        "kind": "switching",
        "horizon": 6,
        "main": {"value": 1.0, "work_left": 3},
        "interruptions": [
            {"id": "x", "arrives_at": 1, "stakes": 2, "value": 2.0, "deadline": 2},
        ],
    }


def test_bad_switching_file_names_the_path(tmp_path: Path) -> None:
    doc = _switching_doc()
    doc["interruptions"][0]["arrives_at"] = 9  # type: ignore[index]
    path = tmp_path / "d.yaml"
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(ScenarioError, match=r"d\.yaml:interruptions\[0\]\.arrives_at"):
        load_any_scenarios(path)


def test_private_fields_do_not_reach_the_view() -> None:
    s = any_scenario_from_dict(_switching_doc())
    dumped = json.dumps(s.view.model_dump(mode="json"))
    assert "deadline" not in dumped and "resume_cost" not in dumped and '"value": 2.0' not in dumped


def test_schema_lists_every_kind() -> None:
    schema = all_scenario_json_schema()
    assert {"InspectionScenario", "SwitchingScenario", "ScheduleScenario"} <= set(schema["$defs"])


def test_cli_validates_and_runs_the_new_kinds(tmp_path: Path) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(yaml.safe_dump(_switching_doc()))
    runner = CliRunner()
    ok = runner.invoke(app, ["scenario", "validate", str(path)])
    assert ok.exit_code == 0 and "ok" in ok.output
    run = runner.invoke(
        app,
        [
            "bench",
            "run",
            "--family",
            "D,J",
            "--count",
            "2",
            "--trials",
            "1",
            "--out",
            str(tmp_path / "run"),
        ],
    )
    assert run.exit_code == 0, run.output
    assert "family D" in run.output and "family J" in run.output
    data = json.loads((tmp_path / "run" / "results.json").read_text())
    assert data["kinds"]["switching"] and data["kinds"]["schedule"]
    # the D/J rows live in aggregates with every other family's, told apart by kind
    kinds = {(r["family"], r["kind"]) for r in data["aggregates"]["rows"]}
    assert {("D", "switching"), ("J", "schedule")} <= kinds
    assert all(p["kind"] in ("switching", "schedule") for p in data["aggregates"]["paired"])
    assert "rows" not in data["kinds"]
    html = (tmp_path / "run" / "report.html").read_text()
    assert "Family D (switching)" in html and "Family J (schedule)" in html


def test_unknown_family_names_every_kind() -> None:
    with pytest.raises(UnknownNameError, match=r"unknown family 'Q'.*D \(switching\)"):
        split_families("D,Q")
    assert split_families("all")[1] == ["D", "J"]
    assert split_families("G,J") == ("G", ["J"])
    for empty in ("", ",", " , "):  # used to run the default suite
        with pytest.raises(InvalidArgumentError, match="names no family"):
            split_families(empty)


def test_no_hysteresis_ablation_answers_differently_from_voc_somewhere() -> None:
    scenarios = generate_kind_family("D", 30, seed=4)
    res = run_kinds(scenarios, "voc,voc-no-hysteresis", trials=1, seed=0)
    answers = {(t.policy, t.scenario_id): t.decisions for t in res.trials.switching}
    differ = [
        s.id for s in scenarios if answers[("voc", s.id)] != answers[("voc-no-hysteresis", s.id)]
    ]
    assert differ


class _Spy(SwitchingPolicy):
    name = "spy"

    def reset(self, view: SwitchingTaskView, rng: np.random.Generator) -> None:
        self.seen: list[str] = [view.model_dump_json()]

    def answer(self, interruption: InterruptionView, status: SwitchingStatus) -> SwitchChoice:
        self.seen.append(interruption.model_dump_json() + status.model_dump_json())
        return SwitchChoice.QUEUE


def test_a_switching_policy_sees_no_scenario_id_family_or_private_field() -> None:
    s = any_scenario_from_dict({**_switching_doc(), "id": "secret-id", "family": "D"})
    spy = _Spy()
    run_switching_trial(
        SwitchingCase.prepare(s),  # type: ignore[arg-type]
        spy,
        np.random.default_rng(0),
        trial=0,
        config=DEFAULT_CONFIG,
    )
    text = " ".join(spy.seen)
    assert "secret-id" not in text and '"family"' not in text
    assert "deadline" not in text and "resume_cost" not in text and '"value":2.0' not in text


def test_generated_kind_files_validate_and_run(tmp_path: Path) -> None:
    runner = CliRunner()
    path = tmp_path / "j.yaml"
    gen = runner.invoke(
        app, ["scenario", "generate", "--family", "schedule", "--count", "2", "--out", str(path)]
    )
    assert gen.exit_code == 0, gen.output
    assert runner.invoke(app, ["scenario", "validate", str(path)]).exit_code == 0
    run = runner.invoke(
        app,
        ["bench", "run", "--scenarios", str(path), "--trials", "1", "--out", str(tmp_path / "r")],
    )
    assert run.exit_code == 0, run.output
    assert "family J" in run.output


def test_bad_schedule_file_names_the_path(tmp_path: Path) -> None:
    doc = {
        "format": "heedful.scenario/v1",
        "id": "j1",
        "kind": "schedule",
        "slots": 4,
        "obligations": [
            {"id": "a", "timescale": "week", "value": 1.0, "deadline": 3},
            {"id": "a", "timescale": "minutes", "value": 1.0, "deadline": 2},
        ],
    }
    path = tmp_path / "j.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ScenarioError, match=r"j\.json:obligations\[1\]\.id: duplicate id 'a'"):
        load_any_scenarios(path)
    doc["obligations"][1]["id"] = "b"  # type: ignore[index]
    doc["obligations"][1]["hazard"] = 1.0  # type: ignore[index]
    path.write_text(json.dumps(doc))
    with pytest.raises(ScenarioError, match=r"j\.json:obligations\[1\]\.hazard"):
        load_any_scenarios(path)


def test_a_v1_results_file_with_kind_rows_in_kinds_still_loads(tmp_path: Path) -> None:
    from heedful.bench import load_results, run_to_folder

    out = tmp_path / "run"
    run_to_folder(families="G,D", count=2, trials=1, seed=0, out=out, progress=False)
    new = load_results(out / "results.json")
    data = json.loads((out / "results.json").read_text())
    # the v1 layout: D's rows and paired rows under "kinds", paired rows without a kind
    kind_rows = [r for r in data["aggregates"]["rows"] if r.get("kind") == "switching"]
    kind_paired = [p for p in data["aggregates"]["paired"] if p.get("kind") == "switching"]
    assert kind_rows and kind_paired
    data["format"] = "heedful.results/v1"
    data["aggregates"]["rows"] = [
        {k: v for k, v in r.items() if k != "kind"}
        for r in data["aggregates"]["rows"]
        if r.get("kind") == "inspection"
    ]
    data["aggregates"]["paired"] = [
        {k: v for k, v in p.items() if k != "kind"}
        for p in data["aggregates"]["paired"]
        if p.get("kind") == "inspection"
    ]
    data["kinds"]["rows"] = kind_rows
    data["kinds"]["paired"] = [{k: v for k, v in p.items() if k != "kind"} for p in kind_paired]
    (out / "results.json").write_text(json.dumps(data))
    old = load_results(out / "results.json")
    assert old.format == "heedful.results/v2"
    assert old.aggregates == new.aggregates
    assert old.kinds == new.kinds


def test_kind_scenarios_are_jobs_of_any_backend() -> None:
    """D and J run as one job per scenario on the inspection runner's backends: the trials
    are the same in this process and in two worker processes, and progress counts them."""
    from heedful.bench.run.backend import ProcessBackend, SerialBackend

    scenarios = [*generate_kind_family("D", 3, 5), *generate_kind_family("J", 3, 5)]
    seen: list[tuple[int, int, str]] = []
    serial = run_kinds(
        scenarios,
        "random,voc",
        trials=2,
        seed=5,
        backend=SerialBackend(),
        progress=lambda done, total, label: seen.append((done, total, label)),
    )
    pooled = run_kinds(scenarios, "random,voc", trials=2, seed=5, backend=ProcessBackend(2))
    assert serial.trials == pooled.trials and serial.rows == pooled.rows
    assert [label for *_, label in seen] == [s.id for s in scenarios]
    assert seen[-1][0] == seen[-1][1] == len(serial.trials.switching) + len(serial.trials.schedule)
