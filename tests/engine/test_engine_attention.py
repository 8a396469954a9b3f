"""Document 002 §6 unit tests (``attention_test.exs``), one behaviour each.

§6 line → test:
  survey/0 returns items for all active goals → test_survey_returns_items_for_all_active_goals
  survey/0 includes coverage and topology → test_survey_includes_coverage_and_topology_for_each_item
  triage/1 ranks by attention_score →
      test_engine_triage.py::test_triage_ranks_items_by_urgency_times_gap_plus_surprise
  triage/1 assigns dispatch_mode →
      test_engine_triage.py::test_triage_assigns_dispatch_mode_from_coverage_and_topology
  observe logs but takes no action → test_observe_logs_but_takes_no_action
  advise proposes but doesn't execute → test_advise_proposes_but_does_not_execute
  act executes within budget → test_act_executes_within_budget
  max_items_per_cycle → test_max_items_per_cycle_respected
  max_action_dispatches → test_max_action_dispatches_respected
  total_timeout_ms kills long cycles →
      test_total_timeout_cuts_hanging_async_dispatch_on_manual_path,
      test_total_timeout_cuts_hanging_sync_dispatch_on_manual_path,
      test_total_timeout_cuts_hanging_dispatch_on_heartbeat_path
  escalation_cooldown_ms → test_escalation_cooldown_prevents_re_escalation
  explore enriches graph → test_explore_mode_enriches_graph_with_new_nodes
  focus triggers Deliberator → test_focus_mode_triggers_deliberator
  act dispatches via action port → test_act_mode_dispatches_via_action_port
  propose creates inferred/proposed goal → test_propose_mode_creates_inferred_proposed_goal
  heartbeat fires at cadence → test_heartbeat_fires_at_configured_cadence
  deadline trigger → test_deadline_trigger_fires_when_goal_deadline_approaches
  deactivate keeps engine alive → test_deactivate_stops_heartbeat_but_engine_stays_usable
  telemetry at each phase → test_telemetry_events_emitted_at_each_phase
  run_cycle manual trigger → test_run_cycle_works_as_manual_trigger
  attention_survey response → test_attention_survey_response_is_valid
  attention_run_cycle response → test_attention_run_cycle_response_triggers_one_cycle
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from engine_builders import (
    NOW,
    add_act_region,
    add_cyclic_region,
    add_goal,
    add_learn_region,
    clock,
)
from engine_fakes import (
    CountingDeliberator,
    HangingAsyncActions,
    HangingSyncActions,
    ListNotifier,
    RecordingActions,
    StaticResearch,
)

from heedful.engine.config import (
    AutonomyLevel,
    BudgetConfig,
    EngineConfig,
    GovernanceConfig,
    TriageConfig,
)
from heedful.engine.engine import Engine
from heedful.engine.memgraph import InMemoryGraph
from heedful.engine.ports import ActionRequest, ActionResult, NoActionExecutor
from heedful.engine.records import EdgeRecord, NodeRecord
from heedful.engine.telemetry import TelemetryEvent
from heedful.errors import StoreError
from heedful.model import EdgeType, OutcomeStatus
from heedful.model.goal import GoalSource, GoalStatus


def _config(level: str = "act", **budget: float) -> EngineConfig:
    return EngineConfig(
        autonomy=AutonomyLevel(level),
        budget=BudgetConfig(**budget),
        governance=GovernanceConfig(max_level=AutonomyLevel(level)),
    )


def _learn_explores(cfg: EngineConfig) -> EngineConfig:
    """Make the learn band below 0.6 explore, so the learn-region fixtures exercise explore."""
    return cfg.with_overrides(triage=cfg.triage.model_copy(update={"explore_below_coverage": 0.6}))


def _four_goals(graph: InMemoryGraph) -> None:
    # Nothing known (coverage < 0.45, low risk): explore (§5's Goal B resolution).
    add_goal(graph, "g-explore", "churn pricing competitors")
    add_cyclic_region(graph, "m", "market")
    add_goal(graph, "g-focus", "market")
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g-act", "deploy")
    # Exploring stalled three times: a human must look.
    add_goal(graph, "g-escalate", "quantum widgets", metadata={"explore_stalls": 3})


def _modes(engine: Engine) -> dict[str, str]:
    return {i["goal_id"]: i["dispatch_mode"] for i in engine.survey()["attention_items"]}


def test_survey_returns_items_for_all_active_goals(graph: InMemoryGraph) -> None:
    _four_goals(graph)
    add_goal(graph, "g-done", "deploy", status=GoalStatus.PROPOSED)
    ids = {i["goal_id"] for i in Engine(graph, clock=clock).survey()["attention_items"]}
    assert ids == {"g-explore", "g-focus", "g-act", "g-escalate"}


def test_survey_includes_coverage_and_topology_for_each_item(graph: InMemoryGraph) -> None:
    _four_goals(graph)
    items = {i["goal_id"]: i for i in Engine(graph, clock=clock).survey()["attention_items"]}
    for item in items.values():
        assert item["coverage_decision"] in {"act", "learn", "escalate"}
        assert 0.0 <= item["coverage_score"] <= 1.0
        assert item["routing"] in {"fast", "deliberate"}
    assert items["g-focus"]["max_kappa"] == 1
    assert items["g-focus"]["routing"] == "deliberate"
    assert items["g-act"]["max_kappa"] == 0


def test_survey_modes_cover_explore_focus_act_escalate(graph: InMemoryGraph) -> None:
    _four_goals(graph)
    assert _modes(Engine(graph, clock=clock)) == {
        "g-explore": "explore",
        "g-focus": "focus",
        "g-act": "act",
        "g-escalate": "escalate",
    }


def test_observe_logs_but_takes_no_action(graph: InMemoryGraph) -> None:
    _four_goals(graph)
    actions, notifier = RecordingActions(), ListNotifier()
    engine = Engine(
        graph,
        _config("observe", max_items_per_cycle=4),
        actions=actions,
        notifier=notifier,
        clock=clock,
    )
    before = graph.digest()
    result = engine.run_cycle()
    assert graph.digest() == before
    assert actions.requests == [] and notifier.notices == []
    assert {d["result"] for d in result["dispatches"]} == {"deferred"}
    assert result["items_dispatched"] == 4


def test_advise_proposes_but_does_not_execute(graph: InMemoryGraph) -> None:
    _four_goals(graph)
    actions, notifier = RecordingActions(), ListNotifier()
    engine = Engine(
        graph,
        _config("advise", max_items_per_cycle=4),
        actions=actions,
        notifier=notifier,
        clock=clock,
    )
    before = graph.digest()
    result = engine.run_cycle()
    assert graph.digest() == before
    assert actions.requests == []
    assert [n.kind for n in notifier.notices] == ["proposal"] * 4
    assert all(d["result"] == "deferred" for d in result["dispatches"])


def test_act_executes_within_budget(graph: InMemoryGraph) -> None:
    _four_goals(graph)
    actions = RecordingActions()
    engine = Engine(
        graph,
        _config("act", max_items_per_cycle=4),
        actions=actions,
        notifier=ListNotifier(),
        clock=clock,
    )
    result = engine.run_cycle()
    results = {d["goal_id"]: d["result"] for d in result["dispatches"]}
    assert results == {"g-explore": "ok", "g-focus": "ok", "g-act": "ok", "g-escalate": "escalated"}
    assert len(actions.requests) == 1
    used, budget = result["budget_used"], engine.config.budget
    assert used["action_dispatches"] <= budget.max_action_dispatches
    assert used["deliberation_sccs"] <= budget.max_deliberation_sccs


def test_voc_triage_is_selectable_in_config(graph: InMemoryGraph) -> None:
    _four_goals(graph)
    cfg = _config("observe", max_items_per_cycle=4).with_overrides(
        triage=TriageConfig(method="voc")
    )
    engine = Engine(graph, cfg, clock=clock)
    response = engine.survey()
    assert response["triage"] == "voc"
    vocs = [i["voc"] for i in response["attention_items"]]
    assert vocs == sorted(vocs, reverse=True)
    result = engine.run_cycle()
    assert [d["goal_id"] for d in result["dispatches"]] == [
        i["goal_id"] for i in response["attention_items"]
    ]


def test_max_items_per_cycle_respected(graph: InMemoryGraph) -> None:
    _four_goals(graph)
    engine = Engine(
        graph, _config("act", max_items_per_cycle=2), notifier=ListNotifier(), clock=clock
    )
    result = engine.run_cycle()
    assert result["items_surveyed"] == 4
    assert result["items_dispatched"] == 2
    # The two best-ranked items are the ones dispatched.
    ranked = [i["goal_id"] for i in engine.survey()["attention_items"]]
    assert [d["goal_id"] for d in result["dispatches"]] == ranked[:2]


def test_max_action_dispatches_respected(graph: InMemoryGraph) -> None:
    for k in range(3):
        add_act_region(graph, f"d{k}-", f"topic{k}")
        add_goal(graph, f"g{k}", f"topic{k}")
    actions = RecordingActions(progress=0.5)
    engine = Engine(
        graph,
        _config("act", max_items_per_cycle=3, max_action_dispatches=1),
        actions=actions,
        clock=clock,
    )
    result = engine.run_cycle()
    assert len(actions.requests) == 1
    assert result["budget_used"]["action_dispatches"] == 1
    reasons = [
        d["reason"] for d in result["dispatches"] if d["goal_id"] != actions.requests[0].goal.id
    ]
    assert reasons == ["budget: max_action_dispatches reached"] * 2


def test_total_timeout_cuts_hanging_async_dispatch_on_manual_path(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g-act", "deploy")
    actions = HangingAsyncActions()
    engine = Engine(graph, _config("act", total_timeout_ms=50), actions=actions, clock=clock)
    result = engine.run_cycle()
    assert result["timed_out"] is True
    assert actions.started == 1
    assert result["dispatches"][0]["result"] == "timeout"
    # The cut action is recorded as a timeout outcome.
    assert [o.status for o in graph.outcomes_for("g-act", [])] == [OutcomeStatus.TIMEOUT]


def test_total_timeout_cuts_hanging_sync_dispatch_on_manual_path(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g-act", "deploy")
    add_goal(graph, "g-escalate", "quantum widgets")
    actions = HangingSyncActions()
    try:
        engine = Engine(
            graph,
            _config("act", total_timeout_ms=50),
            actions=actions,
            notifier=ListNotifier(),
            clock=clock,
        )
        result = engine.run_cycle()
        assert result["timed_out"] is True
        by_goal = {d["goal_id"]: d["result"] for d in result["dispatches"]}
        assert by_goal["g-act"] == "timeout"
    finally:
        actions.release.set()


def test_total_timeout_cuts_hanging_dispatch_on_heartbeat_path(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g-act", "deploy")
    cfg = _config("act", total_timeout_ms=50).with_overrides(heartbeat_ms=10)
    engine = Engine(graph, cfg, actions=HangingAsyncActions(), clock=clock)
    cycles: list[TelemetryEvent] = []
    engine.subscribe(lambda e: cycles.append(e) if e.name == "cycle_complete" else None)

    async def main() -> None:
        engine.activate()
        for _ in range(400):
            await asyncio.sleep(0.01)
            if cycles:
                break
        engine.deactivate()

    asyncio.run(main())
    assert cycles and cycles[0].metadata["timed_out"] is True
    assert engine.last_cycle is not None and engine.last_cycle.trigger in ("start", "heartbeat")


def test_escalation_cooldown_prevents_re_escalation(graph: InMemoryGraph) -> None:
    add_goal(graph, "g-escalate", "quantum widgets", metadata={"explore_stalls": 3})
    now = [NOW]
    notifier = ListNotifier()
    engine = Engine(
        graph,
        _config("act", escalation_cooldown_ms=60_000),
        notifier=notifier,
        clock=lambda: now[0],
    )
    first = engine.run_cycle()
    second = engine.run_cycle()
    now[0] = NOW + timedelta(minutes=2)
    third = engine.run_cycle()
    assert first["dispatches"][0]["result"] == "escalated"
    assert second["dispatches"][0]["result"] == "deferred"
    assert second["dispatches"][0]["reason"] == "escalated recently (cooldown 60 s)"
    assert third["dispatches"][0]["result"] == "escalated"
    assert len(notifier.notices) == 2


def test_explore_mode_enriches_graph_with_new_nodes(graph: InMemoryGraph) -> None:
    add_learn_region(graph, "c", "churn")
    add_goal(graph, "g", "churn pricing competitors")
    research = StaticResearch()
    engine = Engine(graph, _learn_explores(_config("act")), research=research, clock=clock)
    nodes_before = len(graph.nodes)
    result = engine.run_cycle()
    assert result["dispatches"][0]["mode"] == "explore"
    assert len(graph.nodes) > nodes_before
    assert research.calls and len(research.calls) <= engine.config.budget.max_explore_calls
    assert result["dispatches"][0]["coverage_after"] > result["dispatches"][0]["coverage_before"]


def test_explore_links_related_nodes_found_by_internal_expansion(graph: InMemoryGraph) -> None:
    ids = add_learn_region(graph, "c", "churn")
    graph.add_node(NodeRecord(id="x", content="retention cohort data", updated_at=NOW))
    graph.add_edge(EdgeRecord(ids[0], "x", EdgeType.CAUSAL))
    add_goal(graph, "g", "churn pricing competitors")
    Engine(graph, _learn_explores(_config("act")), clock=clock).run_cycle()
    assert "x" in graph.get_goal("g").linked_node_ids


def test_exploration_traces_never_join_a_goal_region(graph: InMemoryGraph) -> None:
    add_learn_region(graph, "c", "churn")
    add_goal(graph, "g", "churn pricing competitors")
    engine = Engine(graph, _learn_explores(_config("act")), clock=clock)
    first = engine.run_cycle()["dispatches"][0]
    second = engine.run_cycle()["dispatches"][0]
    traces = {first["details"]["trace_node_id"], second["details"]["trace_node_id"]}
    assert not traces & set(graph.get_goal("g").linked_node_ids)
    # Explore also proposed sub-goals for the words research did not find; look at "g".
    (item,) = [i for i in engine.survey()["attention_items"] if i["goal_id"] == "g"]
    assert not traces & set(item["region_node_ids"])
    assert item["coverage_score"] == pytest.approx(first["coverage_before"], abs=1e-9)


def test_focus_mode_triggers_deliberator(graph: InMemoryGraph) -> None:
    add_cyclic_region(graph, "m", "market")
    add_goal(graph, "g", "market")
    deliberator = CountingDeliberator()
    engine = Engine(graph, _config("act"), deliberator=deliberator, clock=clock)
    result = engine.run_cycle()
    assert result["dispatches"][0]["mode"] == "focus"
    assert len(deliberator.requests) == 1
    assert deliberator.requests[0].component.kappa == 1
    assert len(deliberator.requests[0].component.fault_lines) == 1


def test_act_mode_dispatches_via_action_port(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g", "deploy")
    actions = RecordingActions()
    result = Engine(graph, _config("act"), actions=actions, clock=clock).run_cycle()
    assert [r.goal.id for r in actions.requests] == ["g"]
    assert [o.status for o in graph.outcomes_for("g", [])][-1] == OutcomeStatus.SUCCESS
    assert graph.get_goal("g").status == GoalStatus.COMPLETED
    assert result["dispatches"][0]["details"]["goal_status"] == "completed"


class _StatusActions:
    def __init__(self, status: GoalStatus) -> None:
        self.status = status

    def execute(self, request: ActionRequest) -> ActionResult:
        return ActionResult(OutcomeStatus.FAILURE, 1.0, "stuck", goal_status=self.status)


def test_act_result_can_block_the_goal(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g", "deploy")
    actions = _StatusActions(GoalStatus.BLOCKED)
    result = Engine(graph, _config("act"), actions=actions, clock=clock).run_cycle()
    assert result["dispatches"][0]["result"] == "failed"
    assert graph.get_goal("g").status == GoalStatus.BLOCKED


def test_act_result_with_illegal_transition_is_refused_and_reported(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g", "deploy")
    actions = _StatusActions(GoalStatus.PROPOSED)
    result = Engine(graph, _config("act"), actions=actions, clock=clock).run_cycle()
    assert graph.get_goal("g").status == GoalStatus.ACTIVE
    assert "not an allowed transition" in result["dispatches"][0]["details"]["goal_status_refused"]


def test_act_without_executor_is_deferred_not_faked(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g", "deploy")
    before = len(graph.outcomes)
    result = Engine(graph, _config("act"), actions=NoActionExecutor(), clock=clock).run_cycle()
    assert result["dispatches"][0]["result"] == "deferred"
    assert result["dispatches"][0]["reason"] == "no action executor configured"
    assert result["budget_used"]["action_dispatches"] == 0
    assert len(graph.outcomes) == before


def test_explore_without_research_does_not_inflate_coverage(graph: InMemoryGraph) -> None:
    add_learn_region(graph, "c", "churn")
    add_goal(graph, "g", "churn pricing competitors")
    result = Engine(graph, _learn_explores(_config("act")), clock=clock).run_cycle()
    (dispatch,) = result["dispatches"]
    assert dispatch["mode"] == "explore" and dispatch["details"]["findings"] == 0
    assert dispatch["coverage_after"] == pytest.approx(dispatch["coverage_before"], abs=1e-9)


def test_propose_mode_creates_inferred_proposed_goal(graph: InMemoryGraph) -> None:
    graph.add_node(
        NodeRecord(id="a", content="billing outage reports", confidence=0.4, updated_at=NOW)
    )
    graph.add_node(
        NodeRecord(id="b", content="billing retries failing", confidence=0.3, updated_at=NOW)
    )
    graph.add_edge(EdgeRecord("a", "b", EdgeType.CONTRADICTS))
    add_goal(graph, "anchor", "stable billing", status=GoalStatus.COMPLETED)
    engine = Engine(graph, _config("act"), clock=clock)
    result = engine.run_cycle()
    assert result["dispatches"][0]["mode"] == "propose"
    (new_id,) = result["proposed_goal_ids"]
    goal = graph.get_goal(new_id)
    assert goal.source == GoalSource.INFERRED
    # Act level auto-activates it (§3.2.4); the journal keeps the proposed version.
    assert goal.status == GoalStatus.ACTIVE
    assert result["dispatches"][0]["details"]["auto_activated"] == new_id
    assert set(goal.linked_node_ids) == {"a", "b"}
    assert goal.metadata["completion_criteria"]["coverage_threshold"] == 0.72
    (entry,) = engine.journal_entries()
    assert [op["op"] for op in entry.ops] == ["add_goal", "update_goal"]
    assert entry.ops[0]["goal"]["status"] == "proposed"


def test_propose_stays_proposed_without_auto_activation(graph: InMemoryGraph) -> None:
    graph.add_node(NodeRecord(id="a", content="billing outage", confidence=0.4, updated_at=NOW))
    add_goal(graph, "anchor", "stable billing", status=GoalStatus.COMPLETED)
    cfg = _config("act")
    cfg = cfg.with_overrides(
        governance=cfg.governance.model_copy(update={"auto_activate_proposed": False})
    )
    result = Engine(graph, cfg, clock=clock).run_cycle()
    (new_id,) = result["proposed_goal_ids"]
    assert graph.get_goal(new_id).status == GoalStatus.PROPOSED


def test_propose_is_skipped_when_gap_is_unrelated_to_user_goals(graph: InMemoryGraph) -> None:
    graph.add_node(
        NodeRecord(id="a", content="billing outage reports", confidence=0.4, updated_at=NOW)
    )
    add_goal(graph, "anchor", "garden watering", status=GoalStatus.COMPLETED)
    result = Engine(graph, _config("act"), clock=clock).run_cycle()
    assert result["proposed_goal_ids"] == []
    assert "coherence" in result["dispatches"][0]["reason"]


def _run_heartbeat(engine: Engine, until: Callable[[], bool], limit_s: float = 5.0) -> float:
    """Run the heartbeat until ``until()`` holds (or ``limit_s``); return the elapsed seconds."""

    async def main() -> float:
        loop = asyncio.get_running_loop()
        start = loop.time()
        engine.activate()
        while not until() and loop.time() - start < limit_s:
            await asyncio.sleep(0.005)
        elapsed = loop.time() - start
        engine.deactivate()
        await asyncio.sleep(0.02)
        return elapsed

    return asyncio.run(main())


def _triggers(engine: Engine) -> list[str]:
    seen: list[str] = []
    engine.subscribe(
        lambda e: seen.append(e.metadata["trigger"]) if e.name == "cycle_start" else None
    )
    return seen


def test_heartbeat_fires_at_configured_cadence(graph: InMemoryGraph) -> None:
    add_goal(graph, "g", "quantum widgets")
    engine = Engine(graph, EngineConfig(heartbeat_ms=20), clock=clock)
    triggers = _triggers(engine)
    elapsed = _run_heartbeat(engine, lambda: len(triggers) >= 3)
    assert len(triggers) >= 3
    assert triggers[0] == "start"
    assert set(triggers[1:]) == {"heartbeat"}
    # Never faster than the cadence: at most one beat per 20 ms of elapsed time.
    assert len(triggers) <= elapsed / 0.020 + 1


def test_deadline_trigger_fires_when_goal_deadline_approaches(graph: InMemoryGraph) -> None:
    real_now = datetime.now(UTC)
    add_goal(graph, "g", "quantum widgets")
    due = real_now + timedelta(seconds=60.05)
    graph.update_goal(graph.get_goal("g").model_copy(update={"due_at": due}))
    engine = Engine(graph, EngineConfig(heartbeat_ms=60_000, deadline_lead_ms=60_000))
    triggers = _triggers(engine)
    _run_heartbeat(engine, lambda: len(triggers) >= 2)
    assert triggers == ["start", "deadline"]


def test_external_event_triggers_a_cycle(graph: InMemoryGraph) -> None:
    cfg = EngineConfig(heartbeat_ms=60_000, first_cycle_at_start=False)
    engine = Engine(graph, cfg, clock=clock)
    triggers: list[str] = []
    engine.subscribe(
        lambda e: triggers.append(e.metadata["trigger"]) if e.name == "cycle_start" else None
    )

    async def main() -> None:
        engine.activate()
        await asyncio.sleep(0.02)
        assert engine.trigger_event("webhook")
        for _ in range(1000):
            if triggers:
                break
            await asyncio.sleep(0.005)
        engine.deactivate()

    asyncio.run(main())
    assert triggers == ["event"]


class _BrokenGraph(InMemoryGraph):
    def list_goals(self, status: GoalStatus | None = None) -> list:  # type: ignore[override]
        raise StoreError("disk on fire")


def test_serve_can_stop_on_the_first_failing_cycle() -> None:
    engine = Engine(_BrokenGraph(clock=clock), EngineConfig(heartbeat_ms=5), clock=clock)
    with pytest.raises(StoreError, match="disk on fire"):
        asyncio.run(engine.serve(stop_on_error=True))
    assert engine.status()["active"] is False


def test_heartbeat_logs_failing_cycles_and_keeps_beating(caplog: pytest.LogCaptureFixture) -> None:
    engine = Engine(_BrokenGraph(clock=clock), EngineConfig(heartbeat_ms=5), clock=clock)

    async def main() -> None:
        engine.activate()
        for _ in range(1000):
            if caplog.text.count("attention cycle (heartbeat) failed") >= 2:
                break
            await asyncio.sleep(0.005)
        engine.deactivate()

    asyncio.run(main())
    assert caplog.text.count("attention cycle (heartbeat) failed") >= 2


def test_deactivate_stops_heartbeat_but_engine_stays_usable(graph: InMemoryGraph) -> None:
    add_goal(graph, "g", "quantum widgets")
    engine = Engine(graph, EngineConfig(heartbeat_ms=10), clock=clock)
    _run_heartbeat(engine, lambda: engine.cycles_run >= 2)
    cycles = engine.cycles_run
    status = engine.status()
    assert status["active"] is False and status["heartbeat_running"] is False
    assert engine.survey()["status"] == "ok"
    engine.run_cycle()
    assert engine.cycles_run == cycles + 1


def test_telemetry_events_emitted_at_each_phase(graph: InMemoryGraph) -> None:
    _four_goals(graph)
    graph.add_node(NodeRecord(id="z", content="x", updated_at=NOW))
    engine = Engine(
        graph, _config("act", max_items_per_cycle=4), notifier=ListNotifier(), clock=clock
    )
    events: list[TelemetryEvent] = []
    engine.subscribe(events.append)
    engine.run_cycle()
    names = [e.name for e in events]
    assert names[0] == "cycle_start" and names[-1] == "cycle_complete"
    assert names.count("dispatch") == 4
    assert events[0].measurements["items_surveyed"] == 4
    assert events[-1].metadata["modes"]["escalate"] == 1
    dispatch = next(e for e in events if e.name == "dispatch")
    assert {"mode", "goal_id", "kappa", "coverage"} <= set(dispatch.metadata)


def test_goal_proposed_event_is_emitted(graph: InMemoryGraph) -> None:
    graph.add_node(NodeRecord(id="a", content="billing outage", confidence=0.3, updated_at=NOW))
    add_goal(graph, "anchor", "billing", status=GoalStatus.COMPLETED)
    engine = Engine(graph, _config("act"), clock=clock)
    events: list[TelemetryEvent] = []
    engine.subscribe(events.append)
    engine.run_cycle()
    proposed = [e for e in events if e.name == "goal_proposed"]
    assert len(proposed) == 1 and "coverage_at_proposal" in proposed[0].metadata


def test_run_cycle_works_as_manual_trigger(graph: InMemoryGraph) -> None:
    add_goal(graph, "g", "quantum widgets")
    engine = Engine(graph, clock=clock)
    result = engine.run_cycle()
    assert result["trigger"] == "manual"
    assert engine.cycles_run == 1
    assert engine.status()["last_cycle"]["cycle_id"] == result["cycle_id"]


def test_run_cycle_inside_a_running_loop_uses_a_helper_thread(graph: InMemoryGraph) -> None:
    add_goal(graph, "g", "quantum widgets")
    engine = Engine(graph, clock=clock)

    async def main() -> dict[str, object]:
        return engine.run_cycle()

    assert asyncio.run(main())["status"] == "ok"


SURVEY_ITEM_KEYS = {
    "goal_id",
    "goal_title",
    "attention_score",
    "dispatch_mode",
    "coverage_score",
    "coverage_decision",
    "decision_confidence",
    "max_kappa",
    "routing",
    "coverage_rationale",
    "attention_rationale",
}


def test_attention_survey_response_is_valid(graph: InMemoryGraph) -> None:
    _four_goals(graph)
    response = Engine(graph, clock=clock).survey(include_idle=False)
    assert response["status"] == "ok"
    assert response["autonomy_level"] == "observe"
    assert "next_heartbeat_in_ms" in response
    for item in response["attention_items"]:
        assert set(item) >= SURVEY_ITEM_KEYS
        assert isinstance(item["coverage_rationale"], list)
        assert isinstance(item["attention_rationale"], str)
    scores = [i["attention_score"] for i in response["attention_items"]]
    assert scores == sorted(scores, reverse=True)


def test_attention_survey_hides_idle_items_unless_asked(graph: InMemoryGraph) -> None:
    graph.add_node(NodeRecord(id="a", content="solid fact", confidence=0.49, updated_at=NOW))
    graph.add_node(NodeRecord(id="b", content="solid fact too", confidence=0.49, updated_at=NOW))
    graph.add_edge(EdgeRecord("a", "b", EdgeType.SUPPORTS))
    engine = Engine(graph, clock=clock)
    shown = engine.survey(include_idle=True)["attention_items"]
    hidden = engine.survey()["attention_items"]
    assert [i["dispatch_mode"] for i in shown] == ["idle"]
    assert hidden == []


def test_attention_run_cycle_response_triggers_one_cycle(graph: InMemoryGraph) -> None:
    _four_goals(graph)
    engine = Engine(graph, _config("observe"), clock=clock)
    response = engine.run_cycle(autonomy_override="observe")
    assert engine.cycles_run == 1
    assert response["status"] == "ok"
    assert {
        "cycle_id",
        "timestamp",
        "items_surveyed",
        "items_dispatched",
        "dispatches",
        "next_heartbeat_ms",
    } <= set(response)
    for dispatch in response["dispatches"]:
        assert {"mode", "result", "duration_ms"} <= set(dispatch)


def test_run_cycle_override_above_governance_maximum_is_refused(graph: InMemoryGraph) -> None:
    from heedful.engine.config import GovernanceConfig
    from heedful.errors import GovernanceError

    cfg = EngineConfig(governance=GovernanceConfig(max_level=AutonomyLevel.ADVISE))
    engine = Engine(graph, cfg, clock=clock)
    with pytest.raises(
        GovernanceError, match=r"exceeds the operator's autonomy ceiling 'advise'.*--max-autonomy"
    ):
        engine.run_cycle(autonomy_override="act")
    assert engine.cycles_run == 0
