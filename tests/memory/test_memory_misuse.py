"""Any sequence of API calls either works or raises a HeedfulError — never a raw sqlite error —
and leaves the store consistent."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heedful.errors import HeedfulError
from heedful.memory import Edge, Node, Store
from heedful.model.claim import (
    Claim,
    Evidence,
    Justification,
    JustificationKind,
    Outcome,
    OutcomeStatus,
    SourceRecord,
)
from heedful.model.goal import Goal, GoalStatus

ids = st.sampled_from(["a", "b", "c"])
values = st.sampled_from(["x", "y", 1, None])
times = st.floats(0, 1e6)

Op = Callable[[Store], object]


def _ops() -> st.SearchStrategy[Op]:
    claim = st.builds(
        lambda i, v, dom, src, t: (
            lambda s: s.add_claim(
                Claim(
                    id=i,
                    subject=i,
                    value=v,
                    domain=("x", "y") if dom else None,
                    source_id=src,
                    observed_at=t,
                )
            )
        ),
        ids,
        values,
        st.booleans(),
        st.none() | ids,
        times,
    )
    source = st.builds(
        lambda i, cost: lambda s: s.add_source(SourceRecord(id=i, cost=cost, trusted=True)),
        ids,
        st.floats(-2, 2),
    )
    evidence = st.builds(
        lambda c, src, v, t, adopt: (
            lambda s: s.add_evidence(
                Evidence(claim_id=c, source_id=src, value=v, observed_at=t), adopt=adopt
            )
        ),
        ids,
        ids,
        values,
        times,
        st.booleans(),
    )
    justification = st.builds(
        lambda a, k, b: lambda s: s.add_justification(Justification(subject=a, kind=k, object=b)),
        ids,
        st.sampled_from(list(JustificationKind)),
        ids,
    )
    simple = st.sampled_from(
        [
            lambda s: s.mark_changed("a", "r"),
            lambda s: s.mark_dirty("b", "r"),
            lambda s: s.clear_dirty("c"),
            lambda s: s.delete_claim("a"),
            lambda s: s.update_claim("b", value="y", observed_at=5.0),
            lambda s: s.update_claim("c", value=7, observed_at=5.0),
            lambda s: s.add_goal(Goal(id="g", title="goal a b")),
            lambda s: s.set_goal_status("g", GoalStatus.ACTIVE),
            lambda s: s.set_goal_status("g", GoalStatus.COMPLETED),
            lambda s: s.set_goal_progress("g", 1.0),
            lambda s: s.delete_goal("g"),
            lambda s: s.add_node(Node(id="a", content="alpha a")),
            lambda s: s.add_node(Node(id="b", content="beta b")),
            lambda s: s.add_edge(Edge(src="a", dst="b")),
            lambda s: s.delete_node("a"),
            lambda s: s.add_outcome(Outcome(status=OutcomeStatus.SUCCESS, node_ids=("a",), at=1.0)),
            lambda s: s.add_outcome(Outcome(status=OutcomeStatus.FAILURE, goal_id="g", at=1.0)),
            lambda s: s.search('a" OR b*'),
            lambda s: s.goal_region("g"),
            lambda s: s.append_trace("e", {"k": [1]}),
            lambda s: s.p_stale("a", now=10.0),
            lambda s: s.learned_hazard_per_hour("a"),
        ]
    )
    return st.one_of(claim, source, evidence, justification, simple)


@settings(max_examples=60, deadline=None)
@given(ops=st.lists(_ops(), max_size=25))
def test_api_raises_only_heedful_errors_and_stays_consistent(ops: list[Op]) -> None:
    with Store.open() as store:
        for op in ops:
            with contextlib.suppress(HeedfulError):
                op(store)
        conn = store._conn
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        for claim in store.dirty_claims():
            assert claim.dirty_reason is not None
        assert not conn.in_transaction


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
