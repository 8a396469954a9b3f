"""A replaced port without its method is refused when it is handed in, not at its first dispatch."""

from __future__ import annotations

import types
from pathlib import Path

import pytest
from engine_builders import add_act_region, add_goal, clock

from heedful.engine import Engine, EngineConfig, InMemoryGraph, LogNotifier, Notice, open_engine
from heedful.engine.config import AutonomyLevel, DispatchMode
from heedful.engine.governance import GovernanceConfig
from heedful.engine.ports import PORT_METHODS
from heedful.errors import InvalidArgumentError

# Act, but every act needs approval: the dispatch becomes a `proposal` notice.
ASK_FIRST = EngineConfig(
    autonomy=AutonomyLevel.ACT,
    governance=GovernanceConfig(
        max_level=AutonomyLevel.ACT, require_approval_for=(DispatchMode.ACT,)
    ),
)


def _alert(notice: Notice) -> None:
    raise AssertionError("never called: the engine refuses it before any cycle")


def test_open_engine_refuses_a_bare_function_as_notifier_before_opening_the_store(
    tmp_path: Path,
) -> None:
    db = tmp_path / "m.db"
    with pytest.raises(InvalidArgumentError) as caught:
        open_engine(db, notifier=_alert)
    message = str(caught.value)
    assert message.startswith("notifier must be an object with a method notify(notice)")
    assert "'_alert'" in message and "types.SimpleNamespace(notify=_alert)" in message
    assert "\n" not in message
    assert not db.exists()  # refused before anything was created


@pytest.mark.parametrize("name", sorted(PORT_METHODS))
def test_engine_refuses_any_port_without_its_method(graph: InMemoryGraph, name: str) -> None:
    method = PORT_METHODS[name][0].split("(")[0]
    with pytest.raises(InvalidArgumentError, match=rf"^{name} must be .* method {method}\("):
        Engine(graph, **{name: lambda *args: None})  # type: ignore[arg-type]


def test_a_port_class_instead_of_an_instance_is_named(graph: InMemoryGraph) -> None:
    with pytest.raises(InvalidArgumentError, match=r"the class 'LogNotifier' \(pass an instance\)"):
        Engine(graph, notifier=LogNotifier)  # type: ignore[arg-type]


def test_open_engine_names_an_unknown_port() -> None:
    with pytest.raises(
        InvalidArgumentError, match=r"unknown port\(s\) 'notifer'; known: .*notifier"
    ):
        open_engine(":memory:", notifier=None, notifer=LogNotifier())


def test_a_function_wrapped_as_the_message_says_receives_the_notices(
    graph: InMemoryGraph,
) -> None:
    received: list[Notice] = []
    add_act_region(graph, "d", "deploy")
    add_goal(graph, "g", "deploy")
    engine = Engine(
        graph, ASK_FIRST, notifier=types.SimpleNamespace(notify=received.append), clock=clock
    )
    (dispatch,) = engine.run_cycle()["dispatches"]
    assert dispatch["result"] != "error", dispatch
    assert [(n.kind, n.goal_id) for n in received] == [("proposal", "g")]
