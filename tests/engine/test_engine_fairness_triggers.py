"""Fair budget use (aging, yielding), escalate_when, triggers (start, surprise), reflect reach."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from engine_builders import NOW, add_act_region, add_goal, clock

from heedful.engine import Engine, EngineConfig, InMemoryGraph
from heedful.engine.config import AutonomyLevel, BudgetConfig, EscalateWhen, GovernanceConfig
from heedful.engine.ports import ActionRequest, ActionResult
from heedful.engine.records import NodeRecord, OutcomeRecord
from heedful.engine.telemetry import TelemetryEvent
from heedful.model import OutcomeStatus
from heedful.model.goal import GoalPriority


class _Ok:
    def execute(self, request: ActionRequest) -> ActionResult:
        return ActionResult(OutcomeStatus.SUCCESS, detail="done")


def test_aging_serves_every_waiting_goal_under_a_tight_budget(graph: InMemoryGraph) -> None:
    # The probe: 40 goals, 2 items per cycle; greedy selection served the same 2.
    for k in range(40):
        add_goal(graph, f"g{k:02d}", f"topic{k} unknown", days=1 + k / 10)

    def served(bonus: float) -> list[str]:
        budget = BudgetConfig(max_items_per_cycle=2, aging_bonus=bonus)
        engine = Engine(
            graph,
            EngineConfig(
                autonomy="advise",
                budget=budget,
                governance=GovernanceConfig(max_level=AutonomyLevel("advise")),
            ),
            clock=clock,
        )
        return [d["goal_id"] for _ in range(30) for d in engine.run_cycle()["dispatches"]]

    assert len(set(served(0.0))) == 2  # greedy: the same two goals every cycle
    aged = served(0.05)
    assert len(set(aged)) >= 15
    assert aged[:2] == ["g00", "g01"]  # the first cycle is still greedy


def test_aging_never_changes_the_reported_attention_score(graph: InMemoryGraph) -> None:
    for k in range(5):
        add_goal(graph, f"g{k}", f"topic{k} unknown")
    engine = Engine(
        graph,
        EngineConfig(
            autonomy=AutonomyLevel.ADVISE,
            governance=GovernanceConfig(max_level=AutonomyLevel.ADVISE),
        ),
        clock=clock,
    )
    before = engine.survey()["attention_items"]
    engine.run_cycle()
    assert engine.survey()["attention_items"] == before


def test_item_deferred_repeatedly_yields_its_slot(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    # No plan: always deferred at act. Ranked first (critical, due now).
    add_goal(graph, "g-stuck", "deploy", days=0.01, priority=GoalPriority.CRITICAL)
    add_goal(graph, "g-other", "quantum widgets", days=6.9, priority=GoalPriority.LOW)
    cfg = EngineConfig(
        autonomy=AutonomyLevel.ACT,
        budget=BudgetConfig(max_items_per_cycle=1, yield_after_deferrals=2, aging_bonus=0.0),
        governance=GovernanceConfig(max_level=AutonomyLevel.ACT),
    )
    engine = Engine(graph, cfg, clock=clock)
    firsts = [engine.run_cycle()["dispatches"][0]["goal_id"] for _ in range(3)]
    assert firsts[:2] == ["g-stuck", "g-stuck"] and firsts[2] == "g-other"


def test_escalate_when_confidence_below_turns_an_act_into_an_escalation(
    graph: InMemoryGraph,
) -> None:
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g", "deploy")
    cfg = EngineConfig(
        autonomy=AutonomyLevel.ACT,
        governance=GovernanceConfig(
            max_level=AutonomyLevel.ACT, escalate_when=EscalateWhen(confidence_below=0.99)
        ),
    )
    engine = Engine(graph, cfg, actions=_Ok(), clock=clock)
    (item,) = engine.survey()["attention_items"]
    assert item["dispatch_mode"] == "escalate"
    assert "escalate_when: confidence" in item["attention_rationale"]
    assert engine.run_cycle()["dispatches"][0]["result"] == "escalated"


def test_escalate_when_cost_exceeds_uses_the_goal_estimate(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "cheap", "deploy", metadata={"estimated_cost_usd": 10})
    add_goal(graph, "dear", "deploy", metadata={"estimated_cost_usd": 5000})
    cfg = EngineConfig(
        governance=GovernanceConfig(escalate_when=EscalateWhen(cost_exceeds_usd=1000))
    )
    modes = {
        i["goal_id"]: i["dispatch_mode"]
        for i in Engine(graph, cfg, clock=clock).survey()["attention_items"]
    }
    assert modes == {"cheap": "act", "dear": "escalate"}


def test_failed_action_triggers_an_immediate_surprise_cycle(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g", "deploy", metadata={"plan": [{"do": "nope"}]})
    cfg = EngineConfig(
        autonomy=AutonomyLevel.ACT,
        heartbeat_ms=60_000,
        governance=GovernanceConfig(max_level=AutonomyLevel.ACT),
    )
    engine = Engine(graph, cfg, clock=clock)
    triggers: list[str] = []
    engine.subscribe(
        lambda e: triggers.append(e.metadata["trigger"]) if e.name == "cycle_start" else None
    )

    async def main() -> None:
        engine.activate()
        for _ in range(400):
            if len(triggers) >= 2:
                break
            await asyncio.sleep(0.01)
        engine.deactivate()

    asyncio.run(main())
    # The start cycle's failed plan step is a surprising outcome: the next cycle runs at once
    # (well before the one-minute heartbeat), and a surprise cycle does not chain another.
    assert triggers == ["start", "surprise"]


def test_reported_surprising_outcome_wakes_the_heartbeat(graph: InMemoryGraph) -> None:
    graph.add_node(NodeRecord(id="n", content="cache", updated_at=NOW))
    engine = Engine(
        graph, EngineConfig(heartbeat_ms=60_000, first_cycle_at_start=False), clock=clock
    )
    triggers: list[str] = []
    engine.subscribe(
        lambda e: triggers.append(e.metadata["trigger"]) if e.name == "cycle_start" else None
    )

    async def main() -> None:
        engine.activate()
        await asyncio.sleep(0.02)
        engine.record_outcome(OutcomeRecord(OutcomeStatus.SUCCESS, 1.0, node_ids=("n",)))
        engine.record_outcome(OutcomeRecord(OutcomeStatus.FAILURE, 0.9, node_ids=("n",)))
        for _ in range(400):
            if triggers:
                break
            await asyncio.sleep(0.01)
        engine.deactivate()

    asyncio.run(main())
    assert triggers == ["surprise"]


def test_dispatch_events_come_before_reflect_writes(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    add_goal(
        graph, "g", "deploy", metadata={"plan": [{"do": "add_node", "id": "r", "content": "x"}]}
    )
    engine = Engine(
        graph,
        EngineConfig(
            autonomy=AutonomyLevel.ACT, governance=GovernanceConfig(max_level=AutonomyLevel.ACT)
        ),
        clock=clock,
    )
    seen: list[tuple[str, bool]] = []

    def spy(event: TelemetryEvent) -> None:
        seen.append((event.name, bool(graph.get_nodes(["r"]))))

    engine.subscribe(spy)
    engine.run_cycle()
    assert ("dispatch", False) in seen  # emitted before reflect wrote the node
    assert seen[-1] == ("cycle_complete", True)


def test_reflect_resurveys_other_goals_reached_by_a_write(graph: InMemoryGraph) -> None:
    add_act_region(graph, "d", "deploy")
    plan = [{"do": "add_node", "id": "r", "content": "deploy released", "supports": ["d0"]}]
    add_goal(graph, "g", "deploy", metadata={"plan": plan})
    low = GoalPriority.LOW
    add_goal(graph, "watcher", "released pipeline", days=6.9, priority=low)  # d0 in its region
    add_goal(graph, "unrelated", "quantum widgets", days=6.9, priority=low)
    cfg = EngineConfig(
        autonomy=AutonomyLevel.ACT,
        budget=BudgetConfig(max_items_per_cycle=1),
        governance=GovernanceConfig(max_level=AutonomyLevel.ACT),
    )
    result = Engine(graph, cfg, clock=clock).run_cycle()
    ids = [r["goal_id"] for r in result["resurveyed"]]
    assert "watcher" in ids and "unrelated" not in ids
    watcher = next(r for r in result["resurveyed"] if r["goal_id"] == "watcher")
    assert watcher["coverage_after"] != watcher["coverage_before"]


def test_start_if_enabled_follows_the_config(graph: InMemoryGraph) -> None:
    async def main(enabled: bool) -> bool:
        engine = Engine(graph, EngineConfig(enabled=enabled, heartbeat_ms=60_000), clock=clock)
        started = engine.start_if_enabled()
        running = engine.status()["heartbeat_running"]
        engine.deactivate()
        await asyncio.sleep(0)
        return started and running

    assert asyncio.run(main(True)) is True
    assert asyncio.run(main(False)) is False


def test_deadline_lead_is_measured_from_the_clock(graph: InMemoryGraph) -> None:
    add_goal(graph, "g", "quantum widgets", days=0.01)
    engine = Engine(graph, EngineConfig(), clock=clock)
    nxt = engine._next_deadline(NOW)
    assert nxt is not None and nxt[0] < 0  # inside the default one-hour lead: fire now
    assert timedelta(days=0.01).total_seconds() < 3600
