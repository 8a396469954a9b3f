"""Truth maintenance: justifications and dirty propagation (document 000 §4.6)."""

from __future__ import annotations

from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.memory import Store
from heedful.model.claim import Claim, Justification, JustificationKind


def _add(store: Store, *ids: str) -> None:
    for cid in ids:
        store.add_claim(Claim(id=cid, subject=cid, value=0, observed_at=0.0))


def _j(subject: str, kind: str, obj: str) -> Justification:
    return Justification(subject=subject, kind=JustificationKind(kind), object=obj)


def test_derived_claim_is_dirtied_when_its_basis_changes(store: Store) -> None:
    _add(store, "a", "b")
    store.add_justification(_j("b", "derived_from", "a"))
    assert store.mark_changed("a", "source changed") == {"b"}
    b = store.get_claim("b")
    assert (b.dirty, b.dirty_reason, b.dirty_cause) == (True, "source changed", "a")


def test_basis_is_not_dirtied_when_derived_claim_changes(store: Store) -> None:
    _add(store, "a", "b")
    store.add_justification(_j("b", "derived_from", "a"))
    assert store.mark_changed("b", "x") == set()


def test_supported_claim_is_dirtied_when_supporter_changes(store: Store) -> None:
    _add(store, "a", "b")
    store.add_justification(_j("a", "supports", "b"))
    assert store.mark_changed("a", "x") == {"b"}
    assert store.mark_changed("b", "x") == set()


def test_contradiction_does_not_propagate_but_is_listed(store: Store) -> None:
    _add(store, "a", "b")
    store.add_justification(_j("a", "contradicts", "b"))
    assert store.mark_changed("a", "x") == set()
    assert store.contradictions("b") == ["a"]
    assert store.contradictions("a") == ["b"]


def test_propagation_is_transitive(store: Store) -> None:
    _add(store, "a", "b", "c", "d")
    store.add_justifications([_j("b", "derived_from", "a"), _j("b", "supports", "c")])
    store.add_justification(_j("d", "derived_from", "c"))
    assert store.mark_changed("a", "x") == {"b", "c", "d"}


def test_propagation_terminates_on_cycles_and_skips_the_root(store: Store) -> None:
    _add(store, "a", "b", "c")
    store.add_justifications(
        [_j("a", "supports", "b"), _j("b", "supports", "c"), _j("c", "supports", "a")]
    )
    assert store.mark_changed("a", "x") == {"b", "c"}
    assert not store.get_claim("a").dirty


def test_mark_dirty_includes_the_claim_itself(store: Store) -> None:
    _add(store, "a", "b")
    store.add_justification(_j("b", "derived_from", "a"))
    assert store.mark_dirty("a", "expired") == {"a", "b"}
    assert [c.id for c in store.dirty_claims()] == ["a", "b"]


def test_clear_dirty_cleans_one_claim(store: Store) -> None:
    _add(store, "a", "b")
    store.add_justification(_j("b", "derived_from", "a"))
    store.mark_changed("a", "x")
    store.clear_dirty("b")
    b = store.get_claim("b")
    assert (b.dirty, b.dirty_reason, b.dirty_cause) == (False, None, None)


def test_dependents_is_read_only(store: Store) -> None:
    _add(store, "a", "b")
    store.add_justification(_j("b", "derived_from", "a"))
    assert store.dependents("a") == {"b"}
    assert store.dirty_claims() == []


def test_justification_to_unknown_claim_is_rejected(store: Store) -> None:
    _add(store, "a")
    with pytest.raises(UnknownNameError, match="ghost"):
        store.add_justification(_j("a", "supports", "ghost"))


def test_self_justification_is_rejected(store: Store) -> None:
    _add(store, "a")
    with pytest.raises(InvalidArgumentError, match="itself"):
        store.add_justification(_j("a", "supports", "a"))


def test_mark_changed_on_unknown_claim_raises(store: Store) -> None:
    with pytest.raises(UnknownNameError):
        store.mark_changed("ghost", "x")


def test_justification_is_idempotent_and_updates_weight(store: Store) -> None:
    _add(store, "a", "b")
    store.add_justification(_j("a", "supports", "b"))
    store.add_justification(Justification(subject="a", kind="supports", object="b", weight=0.3))
    assert [j.weight for j in store.justifications("a")] == [0.3]


edges_strategy = st.lists(
    st.tuples(
        st.integers(0, 7),
        st.sampled_from(["derived_from", "supports", "contradicts"]),
        st.integers(0, 7),
    ).filter(lambda e: e[0] != e[2]),
    max_size=20,
)


@settings(max_examples=40, deadline=None)
@given(edges=edges_strategy, root=st.integers(0, 7))
def test_dirty_set_equals_reachability_in_the_dependency_graph(
    edges: list[tuple[int, str, int]], root: int
) -> None:
    with Store.open() as store:
        ids = [f"n{i}" for i in range(8)]
        _add(store, *ids)
        downstream: dict[int, set[int]] = {i: set() for i in range(8)}
        for s, kind, o in edges:
            store.add_justification(_j(f"n{s}", kind, f"n{o}"))
            if kind == "derived_from":
                downstream[o].add(s)
            elif kind == "supports":
                downstream[s].add(o)
        seen: set[int] = set()
        queue = deque([root])
        while queue:
            for nxt in downstream[queue.popleft()]:
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        seen.discard(root)
        assert store.mark_changed(f"n{root}", "x") == {f"n{i}" for i in seen}
        assert {c.id for c in store.dirty_claims()} == {f"n{i}" for i in seen}
