from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from heedful.bench.policy import (
    Observation,
    Policy,
    get_policy,
    parse_policy_list,
    policy_names,
    register_policy,
    suite_policy_names,
)
from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.model import Scenario, ScenarioView, TaskView


def _choices(policy: Policy, view: ScenarioView, seed: int = 0) -> list[str]:
    policy.reset(view, np.random.default_rng(seed))
    history: list[Observation] = []
    while (sid := policy.next(history)) is not None:
        history.append(Observation(sid, withheld=True))
    return [o.source_id for o in history]


def test_builtin_baselines_are_registered() -> None:
    assert {"random", "recency", "loudness", "authority-first"} <= set(policy_names())


def test_unknown_policy_error_lists_known_names() -> None:
    with pytest.raises(UnknownNameError, match=r"known policies: .*authority-first.*random"):
        get_policy("no-such-policy")


def test_bad_policy_parameter_is_an_invalid_argument() -> None:
    with pytest.raises(InvalidArgumentError, match="random"):
        get_policy("random", temperature=3)


def test_get_params_reports_constructor_parameters() -> None:
    p = get_policy("loudness", urgent_weight=2.0)
    assert p.get_params() == {"urgent_weight": 2.0, "verbosity_weight": 0.01, "repeats_weight": 0.5}


def test_registering_a_taken_name_for_another_class_fails() -> None:
    class Other(Policy):
        def reset(self, view: TaskView, rng: np.random.Generator) -> None:
            pass

        def next(self, history: Sequence[Observation]) -> str | None:
            return None

    with pytest.raises(ValueError, match="already registered"):
        register_policy("random")(Other)


def test_policy_list_rejects_duplicates() -> None:
    with pytest.raises(InvalidArgumentError, match="twice"):
        parse_policy_list("random,random")


def test_policy_list_all_means_every_registered_policy() -> None:
    assert parse_policy_list("all") == suite_policy_names()


@pytest.mark.parametrize("name", ["random", "recency", "loudness", "authority-first"])
def test_baselines_stop_at_the_budget(name: str, tiny: Scenario) -> None:
    assert len(_choices(get_policy(name), tiny.view)) == tiny.view.budget


def test_random_policy_depends_only_on_the_seed(tiny: Scenario) -> None:
    view = tiny.view.model_copy(update={"budget": 3})
    runs = {tuple(_choices(get_policy("random"), view, seed=s)) for s in range(20)}
    assert len(runs) > 1
    assert _choices(get_policy("random"), view, 5) == _choices(get_policy("random"), view, 5)


def test_recency_inspects_the_most_recent_cue_first(tiny: Scenario) -> None:
    assert _choices(get_policy("recency"), tiny.view) == ["chatter"]


def test_recency_by_data_age_prefers_the_live_instrument(tiny: Scenario) -> None:
    assert _choices(get_policy("recency", field="age_s"), tiny.view) == ["probe"]


def test_recency_rejects_an_unknown_field() -> None:
    with pytest.raises(InvalidArgumentError):
        get_policy("recency", field="colour")


def test_loudness_inspects_the_loudest_source_first(tiny: Scenario) -> None:
    view = tiny.view.model_copy(update={"budget": 2})
    assert _choices(get_policy("loudness"), view) == ["chatter", "digest"]


def test_authority_first_inspects_the_most_authoritative_source(tiny: Scenario) -> None:
    assert _choices(get_policy("authority-first"), tiny.view) == ["probe"]


def test_authority_first_can_skip_sources_reporting_nothing(tiny: Scenario) -> None:
    view = tiny.view.model_copy(update={"budget": 2})
    plain = _choices(get_policy("authority-first"), view)
    strict = _choices(get_policy("authority-first", require_reports=True), view)
    assert plain == ["probe", "chatter"]
    assert strict == ["probe", "summary"]


@register_policy("cheap-and-relevant")
class CheapAndRelevant(Policy):
    """The example of docs/benchmark.md, verbatim."""

    def __init__(self, max_cost: float = 10.0) -> None:
        self.max_cost = max_cost

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        useful = [s for s in view.sources if s.reports and s.cost.scalar() <= self.max_cost]
        self._order = [s.id for s in sorted(useful, key=lambda s: s.cost.scalar())]
        self._budget = view.budget

    def next(self, history: Sequence[Observation]) -> str | None:
        if len(history) >= self._budget or len(history) >= len(self._order):
            return None
        return self._order[len(history)]


def test_documented_example_policy_runs_without_violations() -> None:
    from heedful.bench import generate_suite, run_benchmark

    results = run_benchmark(
        generate_suite(["G"], 2, seed=0), ["cheap-and-relevant"], trials=1, seed=0, progress=False
    )
    assert all(t.violation is None and t.inspected for t in results.trials)
    assert results.manifest.policies[0].params == {"max_cost": 10.0}


def test_policy_that_does_not_store_its_parameters_is_reported() -> None:
    class Forgetful(Policy):
        def __init__(self, depth: int = 2) -> None:
            self._depth = depth

        def reset(self, view: TaskView, rng: np.random.Generator) -> None:
            pass

        def next(self, history: Sequence[Observation]) -> str | None:
            return None

    with pytest.raises(InvalidArgumentError, match=r"self\.depth"):
        Forgetful().get_params()


def test_a_broken_policy_plugin_warns_and_the_built_ins_still_load(monkeypatch) -> None:
    import heedful.bench.policy as policy_module

    class Broken:
        name, value = "broken", "no_such_package.policies"

        def load(self) -> None:
            raise ModuleNotFoundError("No module named 'no_such_package'")

    monkeypatch.setattr(policy_module, "_BUILTINS_LOADED", False)
    monkeypatch.setattr(policy_module, "entry_points", lambda group: [Broken()])
    with pytest.warns(UserWarning, match="'broken'.*no_such_package"):
        names = policy_module.policy_names()
    assert "voc" in names


def test_voc_learned_reaches_the_registry_through_the_entry_point() -> None:
    from importlib.metadata import entry_points

    from heedful.bench.policy import POLICY_ENTRY_POINTS, policy_class

    values = {e.value for e in entry_points(group=POLICY_ENTRY_POINTS)}
    assert "heedful.learn.policy" in values
    assert policy_class("voc-learned").__module__ == "heedful.learn.policy"


def test_one_decorator_registers_a_policy_of_any_kind(monkeypatch) -> None:
    import heedful.bench.policy as registry
    from heedful.bench.kinds.switching import SwitchingPolicy
    from heedful.bench.policy import kind_policy, policy_kinds, register_policy
    from heedful.model.scenario import ScenarioKind
    from heedful.model.switching import SwitchChoice

    registry.policy_names()  # the built-in kinds' registries, before they are copied
    switching = dict(registry._KIND_POLICIES["switching"])
    monkeypatch.setitem(registry._KIND_POLICIES, "switching", switching)

    @register_policy("test-always-stay")
    class AlwaysStay(SwitchingPolicy):
        def reset(self, view, rng):  # type: ignore[no-untyped-def]
            pass

        def answer(self, interruption, status):  # type: ignore[no-untyped-def]
            return SwitchChoice.STAY

    assert isinstance(kind_policy(ScenarioKind.SWITCHING, "test-always-stay"), AlwaysStay)
    assert policy_kinds("test-always-stay") == ["switching"]
    assert policy_kinds("voc") == ["inspection", "switching", "schedule"]


def test_registering_something_that_is_no_policy_is_refused() -> None:
    from heedful.bench.policy import register_policy

    with pytest.raises(ValueError, match="needs a Policy subclass or a scenario kind"):
        register_policy("not-a-policy")(int)  # type: ignore[type-var]
