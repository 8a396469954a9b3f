"""κ topology: canonical graphs, exactness against brute force, scale."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from heedful.engine.topology import analyze, component_kappa, deliberation_budget


def _cycle(n: int) -> list[tuple[str, str]]:
    return [(f"n{i}", f"n{(i + 1) % n}") for i in range(n)]


def _brute_kappa(nodes: list[str], edges: set[tuple[str, str]]) -> int:
    best = None
    for r in range(1, len(nodes)):
        for subset in itertools.combinations(nodes, r):
            a = set(subset)
            ab = sum(1 for s, t in edges if s in a and t not in a)
            ba = sum(1 for s, t in edges if s not in a and t in a)
            value = min(ab, ba)
            best = value if best is None else min(best, value)
    return best or 0


def test_chain_has_kappa_zero_and_fast_routing() -> None:
    topo = analyze(["a", "b", "c"], [("a", "b"), ("b", "c")])
    assert topo.max_kappa == 0
    assert topo.routing == "fast"
    assert topo.sccs == ()
    assert topo.dag_nodes == ("a", "b", "c")


def test_three_cycle_has_kappa_one_and_deliberate_routing() -> None:
    topo = analyze(["a", "b", "c"], [("a", "b"), ("b", "c"), ("c", "a")])
    assert topo.max_kappa == 1
    assert topo.routing == "deliberate"
    assert len(topo.sccs) == 1
    assert topo.sccs[0].nodes == ("a", "b", "c")
    assert len(topo.sccs[0].fault_lines) == 1


def test_complete_bipartite_both_directions_has_kappa_two() -> None:
    left, right = ["l1", "l2"], ["r1", "r2"]
    edges = [(x, y) for x in left for y in right] + [(y, x) for x in left for y in right]
    topo = analyze(left + right, edges)
    assert topo.max_kappa == 2
    assert len(topo.sccs[0].fault_lines) == 2


def test_twenty_one_node_cycle_has_kappa_exactly_one() -> None:
    edges = _cycle(21)
    topo = analyze([f"n{i}" for i in range(21)], edges)
    assert topo.max_kappa == 1
    assert len(topo.sccs[0].nodes) == 21


def test_fault_lines_are_the_edges_leaving_side_a() -> None:
    # Two 2-cycles joined both ways by one edge: the bridge pair is the minimum cut.
    edges = [("a", "b"), ("b", "a"), ("c", "d"), ("d", "c"), ("b", "c"), ("c", "b")]
    kappa, fault_lines, side_a, side_b = component_kappa(["a", "b", "c", "d"], edges)
    assert kappa == 1
    a = set(side_a)
    assert all(s in a and t not in a for s, t in fault_lines)
    crossing = [(s, t) for s, t in edges if s in a and t in set(side_b)]
    assert sorted(crossing) == list(fault_lines)


def test_parallel_edges_and_self_loops_do_not_count() -> None:
    edges = [("a", "b"), ("a", "b"), ("b", "a"), ("a", "a")]
    assert analyze(["a", "b"], edges).max_kappa == 1


def test_edges_leaving_the_region_are_ignored() -> None:
    topo = analyze(["a", "b"], [("a", "b"), ("b", "x"), ("x", "a")])
    assert topo.max_kappa == 0


def test_separate_components_each_get_kappa() -> None:
    edges = [*_cycle(3), ("x", "y"), ("y", "x"), ("x", "z"), ("z", "x"), ("y", "z"), ("z", "y")]
    topo = analyze(["n0", "n1", "n2", "x", "y", "z"], edges)
    kappas = sorted(c.kappa for c in topo.sccs)
    assert kappas == [1, 2]
    assert topo.max_kappa == 2


def test_hundred_thousand_node_cycle_needs_no_recursion() -> None:
    n = 100_000
    topo = analyze([f"n{i}" for i in range(n)], _cycle(n))
    assert topo.max_kappa == 1
    assert len(topo.sccs[0].nodes) == n


def test_deliberation_budget_grows_with_kappa_and_is_capped() -> None:
    small, large = deliberation_budget(1), deliberation_budget(50)
    assert small.max_iterations == 2
    assert large.max_iterations == 4
    assert large.agent_count == 3
    assert large.timeout_multiplier == 3.5
    assert large.confidence_threshold == 0.95


@st.composite
def _strong_digraph(draw: st.DrawFn) -> tuple[list[str], set[tuple[str, str]]]:
    n = draw(st.integers(min_value=2, max_value=9))
    nodes = [f"v{i}" for i in range(n)]
    order = draw(st.permutations(range(n)))
    # A Hamiltonian cycle guarantees strong connectivity; extra edges vary κ.
    edges = {(nodes[order[i]], nodes[order[(i + 1) % n]]) for i in range(n)}
    extra = draw(
        st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=n * (n - 1))
    )
    edges |= {(nodes[a], nodes[b]) for a, b in extra if a != b}
    return nodes, edges


@settings(max_examples=150, deadline=None)
@given(_strong_digraph())
def test_kappa_matches_brute_force_bipartitions(
    graph: tuple[list[str], set[tuple[str, str]]],
) -> None:
    nodes, edges = graph
    kappa, fault_lines, side_a, side_b = component_kappa(nodes, edges)
    assert kappa == _brute_kappa(nodes, edges)
    assert len(fault_lines) == kappa
    a, b = set(side_a), set(side_b)
    assert a and b and not a & b
    assert sorted((s, t) for s, t in edges if s in a and t in b) == list(fault_lines)
    assert sum(1 for s, t in edges if s in b and t in a) >= kappa


def _reach(nodes: list[str], edges: set[tuple[str, str]], start: str) -> set[str]:
    seen, stack = {start}, [start]
    while stack:
        x = stack.pop()
        for s, t in edges:
            if s == x and t not in seen:
                seen.add(t)
                stack.append(t)
    return seen


@settings(max_examples=100, deadline=None)
@given(
    st.integers(min_value=1, max_value=8).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=n * 3),
        )
    )
)
def test_analyze_matches_brute_force_components_on_any_digraph(
    graph: tuple[int, set[tuple[int, int]]],
) -> None:
    n, raw = graph
    nodes = [f"v{i}" for i in range(n)]
    edges = {(nodes[a], nodes[b]) for a, b in raw if a != b}
    reach = {x: _reach(nodes, edges, x) for x in nodes}
    comps = {frozenset(y for y in nodes if y in reach[x] and x in reach[y]) for x in nodes}
    expected = {
        tuple(sorted(c)): _brute_kappa(sorted(c), {(s, t) for s, t in edges if s in c and t in c})
        for c in comps
        if len(c) > 1
    }
    topo = analyze(nodes, edges)
    assert {c.nodes: c.kappa for c in topo.sccs} == expected
    assert topo.max_kappa == max(expected.values(), default=0)
    assert set(topo.dag_nodes) == {x for c in comps if len(c) == 1 for x in c}
    assert topo.routing == ("deliberate" if expected else "fast")
