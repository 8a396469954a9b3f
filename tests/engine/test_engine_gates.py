"""Document 002 §8 success gates A–E, as properties over random goal sets where they are
invariants. Gate items already proven by a named unit test point to it in docs/engine.md."""

from __future__ import annotations

from datetime import timedelta

import jsonschema
import pytest
from engine_builders import (
    NOW,
    add_act_region,
    add_cyclic_region,
    add_goal,
    add_learn_region,
    clock,
)
from engine_fakes import CountingDeliberator, ListNotifier, RecordingActions, StaticResearch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heedful.engine import Engine
from heedful.engine.config import (
    AutonomyLevel,
    BudgetConfig,
    DispatchMode,
    EngineConfig,
    GovernanceConfig,
)
from heedful.engine.coverage import assess
from heedful.engine.governance import autonomy_json_schema, config_from_ampersand
from heedful.engine.memgraph import InMemoryGraph
from heedful.engine.protocol import CONTRACTS, PRIMITIVES, check_pipeline, check_pipeline_text
from heedful.engine.survey import goal_region
from heedful.engine.topology import analyze
from heedful.engine.triage import dispatch_mode
from heedful.errors import GovernanceError, InvalidArgumentError
from heedful.model.goal import GoalPriority, GoalStatus

KINDS = ("learn", "cyclic", "act", "empty")
_goal_spec = st.tuples(
    st.sampled_from(KINDS),
    st.sampled_from(list(GoalPriority)),
    st.floats(min_value=-1, max_value=10),
    st.sampled_from(
        [GoalStatus.ACTIVE, GoalStatus.ACTIVE, GoalStatus.PROPOSED, GoalStatus.BLOCKED]
    ),
)
_budget = st.builds(
    BudgetConfig,
    max_items_per_cycle=st.integers(0, 5),
    max_explore_calls=st.integers(0, 3),
    max_deliberation_sccs=st.integers(0, 2),
    max_action_dispatches=st.integers(0, 2),
)
_settings = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _build(specs: list[tuple[str, GoalPriority, float, GoalStatus]]) -> InMemoryGraph:
    graph = InMemoryGraph(clock=clock)
    builders = {"learn": add_learn_region, "cyclic": add_cyclic_region, "act": add_act_region}
    for k, (kind, priority, days, status) in enumerate(specs):
        topic = f"topic{k}"
        if kind in builders:
            builders[kind](graph, f"n{k}-", topic)
        title = f"{topic} pricing" if kind == "learn" else topic
        add_goal(graph, f"g{k}", title, days=days, priority=priority, status=status)
    return graph


def _engine(
    graph: InMemoryGraph, level: str, budget: BudgetConfig | None = None
) -> tuple[Engine, dict[str, object]]:
    ports = {
        "actions": RecordingActions(progress=0.5),
        "research": StaticResearch(),
        "deliberator": CountingDeliberator(),
        "notifier": ListNotifier(),
    }
    cfg = EngineConfig(
        autonomy=AutonomyLevel(level),
        budget=budget or BudgetConfig(),
        governance=GovernanceConfig(max_level=AutonomyLevel(level)),
    )
    return Engine(graph, cfg, clock=clock, **ports), ports  # type: ignore[arg-type]


# --- Gate A: survey correctness -------------------------------------------------------------


@_settings
@given(st.lists(_goal_spec, max_size=6))
def test_gate_a1_all_active_goals_appear_in_attention_map(specs: list) -> None:
    graph = _build(specs)
    engine, _ = _engine(graph, "observe")
    surveyed = {i["goal_id"] for i in engine.survey(include_idle=True)["attention_items"]}
    assert surveyed == {g.id for g in graph.list_goals(GoalStatus.ACTIVE)}


@_settings
@given(st.lists(_goal_spec, min_size=1, max_size=5))
def test_gate_a2_coverage_and_topology_match_the_calculators(specs: list) -> None:
    graph = _build(specs)
    engine, _ = _engine(graph, "observe")
    for item in engine.attention_map():
        goal = graph.get_goal(item.goal_id or "")
        region = goal_region(graph, goal, engine.config.region_search_limit)
        nodes = graph.get_nodes(region)
        ids = {n.id for n in nodes}
        edges = [e for e in graph.edges_touching(list(ids)) if e.source in ids and e.target in ids]
        expected = assess(
            f"{goal.title} {goal.description}",
            nodes,
            edges,
            graph.outcomes_for(goal.id, list(ids)),
            now=NOW,
            priority=goal.priority.value,
        )
        assert item.coverage == expected
        assert item.topology == analyze(ids, [(e.source, e.target) for e in edges])


@_settings
@given(st.lists(_goal_spec, max_size=6))
def test_gate_a3_attention_scores_are_deterministic(specs: list) -> None:
    first = _engine(_build(specs), "observe")[0].survey(include_idle=True)
    second = _engine(_build(specs), "observe")[0].survey(include_idle=True)
    assert first == second


@_settings
@given(st.lists(_goal_spec, max_size=6))
def test_gate_a4_dispatch_modes_follow_coverage_and_topology(specs: list) -> None:
    engine, _ = _engine(_build(specs), "observe")
    for item in engine.attention_map():
        assert item.dispatch_mode == dispatch_mode(item, engine.config.triage)
        if item.coverage.decision == "escalate":
            # §3.1.2 vs §5, resolved: low coverage at acceptable risk explores first.
            low_risk = (
                item.coverage.risk_score <= engine.config.triage.explore_escalations_up_to_risk
            )
            assert item.dispatch_mode == (
                DispatchMode.EXPLORE if low_risk else DispatchMode.ESCALATE
            )
        if item.coverage.decision == "act" and item.topology.max_kappa > 0:
            assert item.dispatch_mode == DispatchMode.FOCUS


# --- Gate B: autonomy levels ----------------------------------------------------------------


@_settings
@given(st.lists(_goal_spec, max_size=6), _budget)
def test_gate_b1_observe_never_mutates_graph_or_dispatches(
    specs: list, budget: BudgetConfig
) -> None:
    graph = _build(specs)
    engine, ports = _engine(graph, "observe", budget)
    before = graph.digest()
    engine.run_cycle()
    assert graph.digest() == before
    assert ports["actions"].requests == []  # type: ignore[attr-defined]
    assert ports["research"].calls == []  # type: ignore[attr-defined]
    assert ports["deliberator"].requests == []  # type: ignore[attr-defined]
    assert ports["notifier"].notices == []  # type: ignore[attr-defined]


@_settings
@given(st.lists(_goal_spec, max_size=6), _budget)
def test_gate_b2_advise_proposes_but_never_executes(specs: list, budget: BudgetConfig) -> None:
    graph = _build(specs)
    engine, ports = _engine(graph, "advise", budget)
    before = graph.digest()
    result = engine.run_cycle()
    assert graph.digest() == before
    assert ports["actions"].requests == []  # type: ignore[attr-defined]
    assert ports["research"].calls == []  # type: ignore[attr-defined]
    assert ports["deliberator"].requests == []  # type: ignore[attr-defined]
    kinds = {n.kind for n in ports["notifier"].notices}  # type: ignore[attr-defined]
    assert kinds <= {"proposal"}
    assert all(d["result"] == "deferred" for d in result["dispatches"])


@_settings
@given(st.lists(_goal_spec, max_size=8), _budget)
def test_gate_b3_c1_c2_act_never_exceeds_any_budget(specs: list, budget: BudgetConfig) -> None:
    graph = _build(specs)
    engine, ports = _engine(graph, "act", budget)
    for _ in range(2):
        calls_before = (
            len(ports["actions"].requests),  # type: ignore[attr-defined]
            len(ports["research"].calls),  # type: ignore[attr-defined]
            len(ports["deliberator"].requests),  # type: ignore[attr-defined]
        )
        result = engine.run_cycle()
        used = result["budget_used"]
        assert result["items_dispatched"] <= budget.max_items_per_cycle
        assert used["items"] <= budget.max_items_per_cycle
        assert used["action_dispatches"] <= budget.max_action_dispatches
        assert used["explore_calls"] <= budget.max_explore_calls
        assert used["deliberation_sccs"] <= budget.max_deliberation_sccs
        assert len(ports["actions"].requests) - calls_before[0] <= budget.max_action_dispatches  # type: ignore[attr-defined]
        assert len(ports["research"].calls) - calls_before[1] <= budget.max_explore_calls  # type: ignore[attr-defined]
        assert len(ports["deliberator"].requests) - calls_before[2] <= budget.max_deliberation_sccs  # type: ignore[attr-defined]


def test_gate_b4_policy_caps_cannot_be_exceeded() -> None:
    graph = _build([("act", GoalPriority.HIGH, 1.0, GoalStatus.ACTIVE)])
    cfg = EngineConfig(
        autonomy=AutonomyLevel.ACT, governance=GovernanceConfig(max_level=AutonomyLevel.ADVISE)
    )
    actions = RecordingActions()
    engine = Engine(graph, cfg, actions=actions, notifier=ListNotifier(), clock=clock)
    assert engine.run_cycle()["autonomy_level"] == "advise"
    with pytest.raises(GovernanceError):
        engine.run_cycle(autonomy_override="act")
    assert actions.requests == []


def test_gate_b4_require_approval_turns_act_into_a_proposal() -> None:
    graph = _build([("act", GoalPriority.HIGH, 1.0, GoalStatus.ACTIVE)])
    cfg = EngineConfig(
        autonomy=AutonomyLevel.ACT,
        governance=GovernanceConfig(
            max_level=AutonomyLevel.ACT, require_approval_for=(DispatchMode.ACT,)
        ),
    )
    actions, notifier = RecordingActions(), ListNotifier()
    result = Engine(graph, cfg, actions=actions, notifier=notifier, clock=clock).run_cycle()
    assert actions.requests == []
    assert "requires approval" in result["dispatches"][0]["reason"]


def test_gate_b4_max_actions_per_hour_spans_cycles() -> None:
    graph = _build([("act", GoalPriority.HIGH, 1.0, GoalStatus.ACTIVE)] * 3)
    now = [NOW]
    cfg = EngineConfig(
        autonomy=AutonomyLevel.ACT,
        governance=GovernanceConfig(max_level=AutonomyLevel.ACT, max_actions_per_hour=2),
    )
    actions = RecordingActions(progress=0.5)
    engine = Engine(graph, cfg, actions=actions, clock=lambda: now[0])
    for minutes in (0, 10, 20):
        now[0] = NOW + timedelta(minutes=minutes)
        engine.run_cycle()
    assert len(actions.requests) == 2
    now[0] = NOW + timedelta(minutes=61)
    engine.run_cycle()
    assert len(actions.requests) == 3


# --- Gate C: budget enforcement (C1/C2 above; C3 timeout and C4 cooldown in unit tests) -----


@_settings
@given(st.integers(1, 4), st.integers(0, 600_000))
def test_gate_c4_cooldown_bounds_escalations_per_goal(cycles: int, cooldown_ms: int) -> None:
    graph = _build([("empty", GoalPriority.HIGH, 1.0, GoalStatus.ACTIVE)])
    notifier = ListNotifier()
    cfg = EngineConfig(
        autonomy=AutonomyLevel.ACT,
        budget=BudgetConfig(escalation_cooldown_ms=cooldown_ms),
        governance=GovernanceConfig(max_level=AutonomyLevel.ACT),
    )
    # Every escalate decision escalates (none is resolved into an explore).
    cfg = cfg.with_overrides(
        triage=cfg.triage.model_copy(update={"explore_escalations_up_to_risk": 0.0})
    )
    now = [NOW]
    engine = Engine(graph, cfg, notifier=notifier, clock=lambda: now[0])
    for k in range(cycles):
        now[0] = NOW + timedelta(minutes=k)
        engine.run_cycle()
    times = [k * 60_000 for k in range(cycles)]
    expected, last = 0, None
    for t in times:
        if last is None or t - last >= cooldown_ms:
            expected, last = expected + 1, t
    assert len(notifier.notices) == expected


# --- Gate E: protocol compliance ------------------------------------------------------------

INFRA_OPERATOR = {
    "agent": "InfraOperator",
    "version": "2.0.0",
    "capabilities": {
        "&memory.graph": {"provider": "graphonomous", "config": {"instance": "infra-ops"}},
        "&reason.deliberate": {"provider": "graphonomous", "config": {"budget": "kappa"}},
        "&reason.attend": {"provider": "graphonomous", "config": {}},
    },
    "governance": {
        "hard": ["Never scale beyond 3x in a single action"],
        "escalate_when": {"confidence_below": 0.7, "cost_exceeds_usd": 1000},
        "autonomy": {
            "level": "advise",
            "heartbeat_seconds": 300,
            "budget": {"max_actions_per_hour": 5, "require_approval_for": ["act", "propose"]},
        },
    },
}


def test_gate_e1_attention_capability_is_expressible_and_implemented() -> None:
    contract = CONTRACTS["&reason.attend"]
    assert "&reason.attend" in INFRA_OPERATOR["capabilities"]  # type: ignore[operator]
    for op in contract["operations"].values():
        assert callable(getattr(Engine, op["method"]))


def test_gate_e2_autonomy_governance_validates_against_schema() -> None:
    schema = autonomy_json_schema()
    jsonschema.validate(INFRA_OPERATOR["governance"]["autonomy"], schema)  # type: ignore[index]
    section_4_6 = {
        "level": "observe",
        "heartbeat_seconds": 300,
        "budget": {
            "max_actions_per_hour": 5,
            "max_explore_calls_per_cycle": 5,
            "max_deliberation_sccs_per_cycle": 2,
            "require_approval_for": ["act"],
        },
    }
    jsonschema.validate(section_4_6, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"level": "autonomous"}, schema)
    cfg = config_from_ampersand(INFRA_OPERATOR, org_max="act")
    assert cfg.autonomy == AutonomyLevel.ADVISE
    assert cfg.heartbeat_ms == 300_000
    assert cfg.governance.max_actions_per_hour == 5
    assert cfg.governance.require_approval_for == (DispatchMode.ACT, DispatchMode.PROPOSE)


def test_gate_e2_bad_autonomy_block_is_one_clear_error() -> None:
    with pytest.raises(InvalidArgumentError, match=r"governance\.autonomy\.level"):
        config_from_ampersand({"governance": {"autonomy": {"level": "autonomous"}}})


def test_gate_e3_pipeline_examples_type_check() -> None:
    proactive = ["&reason.attend.survey", "&reason.attend.triage", "&reason.attend.dispatch"]
    assert check_pipeline("heartbeat", proactive) == [
        "attention_map",
        "attention_map",
        "attention_cycle",
    ]
    check_pipeline(
        "query",
        ["&memory.graph.recall", "&memory.graph.topology", "&reason.deliberate.deliberate"],
    )
    with pytest.raises(InvalidArgumentError, match="expects attention_map"):
        check_pipeline("heartbeat", ["&reason.attend.dispatch"])


def test_gate_e3_the_documents_full_pipelines_type_check() -> None:
    reactive = """
    stream_data
    |> &time.anomaly.detect()
    |> &memory.graph.enrich()
    |> &memory.graph.topology()           # NEW: κ analysis
    |> &reason.deliberate(budget: :κ)     # NEW: deliberation if κ > 0
    |> &space.fleet.locate()
    |> &reason.argument.evaluate()
    """
    assert check_pipeline_text(reactive)[-1] == "verdict"
    stored = """
    query
      |> &memory.graph.recall()
      |> &memory.graph.topology()
      |> &reason.deliberate(budget: :κ)
      |> &memory.graph.store()
    """
    assert check_pipeline_text(stored) == [
        "context",
        "topology_result",
        "deliberation_result",
        "context",
    ]
    proactive = """heartbeat
      |> &reason.attend.survey() |> &reason.attend.triage() |> &reason.attend.dispatch()
      |> &memory.graph.store()"""
    assert check_pipeline_text(proactive)[-2:] == ["attention_cycle", "context"]
    with pytest.raises(InvalidArgumentError, match="expects topology_result"):
        check_pipeline_text("stream_data |> &time.anomaly.detect() |> &reason.deliberate()")


def test_gate_e4_attention_needs_no_new_primitive() -> None:
    for name in CONTRACTS:
        assert name.split(".")[0] in PRIMITIVES
    assert CONTRACTS["&reason.attend"]["capability"].startswith("&reason.")
