"""κ topology of a knowledge region (document 002 §2.1 survey step c, SPEC §6).

Pure calculator, no I/O. For a directed graph given as node ids and ``(source, target)`` edges it
finds the strongly connected components (iterative Tarjan, safe at any size) and, for every
component with at least two nodes, computes κ **exactly**:

    κ = min over bipartitions (A, B) of min(|A→B|, |B→A|)

which is the directed edge connectivity of the component, i.e. the minimum, over non-empty proper
subsets S, of the number of edges leaving S. Parallel edges between the same ordered pair count
once and self-loops are ignored (the adjacency is a set, as in Graphonomous' topology).

Algorithm (why it is exact): fix a vertex ``v`` and order the other vertices ``t1, t2, …``. Any
set S that contains ``v`` has a first vertex ``ti`` outside it, so S separates the source set
``{v, t1, …, t(i-1)}`` from ``ti``; conversely each such separation is a cut. Hence the minimum
over all S ∋ v is ``min_i maxflow({v, t1..t(i-1)} → ti)``; sets S ∌ v are handled by the same
sweep on the reversed graph. This is the classic "min over u of min(λ(v,u), λ(u,v))" reduction
with growing source sets (the ordering behind Hao–Orlin), solved with unit-capacity augmenting
paths that stop as soon as the flow reaches the best cut found so far. Growing the source set
makes almost every flow trivial (the sink's in-edges from the source set already saturate it),
so a 2,000-node component takes well under a second. The fault lines are the edges of one
minimum cut.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from heedful.engine.config import DeliberationBudgetConfig

Edge = tuple[str, str]


@dataclass(frozen=True)
class DeliberationBudget:
    """How much deliberation a component deserves, scaled by its κ (friction).

    Attributes:
        max_iterations: Focused passes the deliberator may run.
        agent_count: Parallel perspectives (one per side of each fault line, capped).
        timeout_multiplier: Factor applied to the base deliberation timeout.
        confidence_threshold: Confidence a conclusion needs before it crystallises.
    """

    max_iterations: int
    agent_count: int
    timeout_multiplier: float
    confidence_threshold: float

    def to_dict(self) -> dict[str, object]:
        """Return a JSON-able dict."""
        return {
            "max_iterations": self.max_iterations,
            "agent_count": self.agent_count,
            "timeout_multiplier": self.timeout_multiplier,
            "confidence_threshold": self.confidence_threshold,
        }


def deliberation_budget(
    kappa: int, config: DeliberationBudgetConfig | None = None
) -> DeliberationBudget:
    """Map κ to deliberation parameters (capped linear rules of ``DeliberationBudgetConfig``)."""
    cfg = config or DeliberationBudgetConfig()
    return DeliberationBudget(
        max_iterations=min(kappa + 1, cfg.max_iterations_cap),
        agent_count=min(kappa, cfg.agent_count_cap),
        timeout_multiplier=min(1.0 + cfg.timeout_step * kappa, cfg.timeout_multiplier_cap),
        confidence_threshold=round(
            min(cfg.confidence_base + cfg.confidence_step * kappa, cfg.confidence_cap), 4
        ),
    )


@dataclass(frozen=True)
class Component:
    """One strongly connected component of at least two nodes.

    Attributes:
        id: ``scc-<index>`` in the order of the components' smallest node id.
        nodes: Sorted node ids.
        kappa: Directed edge connectivity (≥ 1 for a component of two or more nodes).
        fault_lines: The κ edges of one minimum cut, ``(source, target)``, sorted.
        side_a: The side the fault lines leave (sorted node ids).
        side_b: The other side (sorted node ids).
        budget: Deliberation budget for this component.
    """

    id: str
    nodes: tuple[str, ...]
    kappa: int
    fault_lines: tuple[Edge, ...]
    side_a: tuple[str, ...]
    side_b: tuple[str, ...]
    budget: DeliberationBudget

    def to_dict(self) -> dict[str, object]:
        """Return a JSON-able dict."""
        return {
            "id": self.id,
            "nodes": list(self.nodes),
            "kappa": self.kappa,
            "fault_lines": [{"source": s, "target": t} for s, t in self.fault_lines],
            "partition": [list(self.side_a), list(self.side_b)],
            "deliberation_budget": self.budget.to_dict(),
        }


@dataclass(frozen=True)
class Topology:
    """Result of :func:`analyze`.

    Attributes:
        max_kappa: Largest κ over the components (0 when the region is a DAG).
        routing: ``"deliberate"`` when ``max_kappa > 0`` else ``"fast"``.
        sccs: Components with two or more nodes.
        dag_nodes: Nodes in no such component, sorted.
    """

    max_kappa: int
    routing: str
    sccs: tuple[Component, ...] = field(default_factory=tuple)
    dag_nodes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def scc_count(self) -> int:
        """Number of components with two or more nodes."""
        return len(self.sccs)

    def to_dict(self) -> dict[str, object]:
        """Return a JSON-able dict."""
        return {
            "max_kappa": self.max_kappa,
            "routing": self.routing,
            "scc_count": self.scc_count,
            "sccs": [c.to_dict() for c in self.sccs],
            "dag_nodes": list(self.dag_nodes),
        }


EMPTY_TOPOLOGY = Topology(max_kappa=0, routing="fast")


def strongly_connected_components(n: int, succ: Sequence[Sequence[int]]) -> list[list[int]]:
    """Tarjan's algorithm without recursion; returns every component (singletons included)."""
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    result: list[list[int]] = []
    counter = 0
    for root in range(n):
        if index[root] != -1:
            continue
        work: list[tuple[int, int]] = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            node, pos = work[-1]
            neighbours = succ[node]
            if pos < len(neighbours):
                work[-1] = (node, pos + 1)
                nxt = neighbours[pos]
                if index[nxt] == -1:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack[nxt] = True
                    work.append((nxt, 0))
                elif on_stack[nxt] and index[nxt] < low[node]:
                    low[node] = index[nxt]
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                if low[node] < low[parent]:
                    low[parent] = low[node]
            if low[node] == index[node]:
                comp: list[int] = []
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    comp.append(member)
                    if member == node:
                        break
                result.append(comp)
    return result


class _SweepResult:
    __slots__ = ("cut", "sink_side", "value")

    def __init__(self, value: int, cut: list[int], sink_side: list[int]) -> None:
        self.value = value
        self.cut = cut  # edge indices of the cut
        self.sink_side = sink_side


def _sweep(
    n: int,
    tails: list[int],
    heads: list[int],
    out_edges: list[list[int]],
    in_edges: list[list[int]],
    order: list[int],
    best: int,
) -> _SweepResult | None:
    """Min over i of maxflow(order[:i] → order[i]); returns a strictly better cut than ``best``.

    Unit capacities on edge indices; ``flow[e]`` is 0/1. Augmenting paths are found by a
    backward search from the sink that stops at the first source-set vertex reached.
    """
    in_source = [False] * n
    in_source[order[0]] = True
    flow = [0] * len(tails)
    mark = [0] * n
    stamp = 0
    parent_edge = [-1] * n
    found: _SweepResult | None = None
    for sink in order[1:]:
        touched: list[int] = []
        value = 0
        # Length-one paths: in-edges of the sink that start in the source set.
        for e in in_edges[sink]:
            if in_source[tails[e]]:
                flow[e] = 1
                touched.append(e)
                value += 1
                if value >= best:
                    break
        while value < best:
            stamp += 1
            mark[sink] = stamp
            frontier = [sink]
            hit = -1
            while frontier and hit < 0:
                nxt: list[int] = []
                for x in frontier:
                    # Residual arcs into x: unsaturated in-edges, and saturated out-edges reversed.
                    for e in in_edges[x]:
                        if flow[e] == 0:
                            y = tails[e]
                            if mark[y] != stamp:
                                mark[y] = stamp
                                parent_edge[y] = e
                                if in_source[y]:
                                    hit = y
                                    break
                                nxt.append(y)
                    if hit >= 0:
                        break
                    for e in out_edges[x]:
                        if flow[e] == 1:
                            y = heads[e]
                            if mark[y] != stamp:
                                mark[y] = stamp
                                parent_edge[y] = e
                                if in_source[y]:
                                    hit = y
                                    break
                                nxt.append(y)
                    if hit >= 0:
                        break
                frontier = nxt
            if hit < 0:
                # No augmenting path: the vertices marked in this search form the sink side.
                sink_side = [x for x in range(n) if mark[x] == stamp]
                side = [False] * n
                for x in sink_side:
                    side[x] = True
                cut = [e for x in sink_side for e in in_edges[x] if not side[tails[e]]]
                best = value
                found = _SweepResult(value, cut, sink_side)
                break
            # Walk the path from the source vertex back to the sink, flipping flows.
            y = hit
            while y != sink:
                e = parent_edge[y]
                if flow[e] == 0 and tails[e] == y:
                    flow[e] = 1
                    y = heads[e]
                else:
                    flow[e] = 0
                    y = tails[e]
                touched.append(e)
            value += 1
        for e in touched:
            flow[e] = 0
        in_source[sink] = True
        if best <= 1:
            break
    return found


def _bfs_order(n: int, succ: list[list[int]], start: int) -> list[int]:
    seen = [False] * n
    seen[start] = True
    order = [start]
    i = 0
    while i < len(order):
        for y in succ[order[i]]:
            if not seen[y]:
                seen[y] = True
                order.append(y)
        i += 1
    return order


def component_kappa(
    nodes: Sequence[str], edges: Iterable[Edge]
) -> tuple[int, list[Edge], list[str], list[str]]:
    """Exact κ of one strongly connected component.

    Args:
        nodes: The component's node ids (must be strongly connected, ≥ 2 nodes).
        edges: Directed edges; those with an endpoint outside ``nodes`` are ignored.

    Returns:
        ``(kappa, fault_lines, side_a, side_b)`` where the fault lines are the κ edges from
        ``side_a`` to ``side_b`` of one minimum cut.
    """
    ids = sorted(set(nodes))
    n = len(ids)
    if n < 2:
        return 0, [], list(ids), []
    pos = {node: i for i, node in enumerate(ids)}
    pairs = sorted({(pos[s], pos[t]) for s, t in edges if s != t and s in pos and t in pos})
    tails = [s for s, _ in pairs]
    heads = [t for _, t in pairs]
    out_edges: list[list[int]] = [[] for _ in range(n)]
    in_edges: list[list[int]] = [[] for _ in range(n)]
    for e, (s, t) in enumerate(pairs):
        out_edges[s].append(e)
        in_edges[t].append(e)

    # Upper bound from single-vertex cuts.
    best = len(pairs) + 1
    best_cut: list[int] = []
    best_side_a: set[int] = set()
    for x in range(n):
        if len(out_edges[x]) < best:
            best, best_cut, best_side_a = len(out_edges[x]), list(out_edges[x]), {x}
        if len(in_edges[x]) < best:
            best, best_cut, best_side_a = len(in_edges[x]), list(in_edges[x]), set(range(n)) - {x}

    if best > 1:
        succ = [[heads[e] for e in out_edges[x]] for x in range(n)]
        pred = [[tails[e] for e in in_edges[x]] for x in range(n)]
        # Sets S containing vertex 0: edges leaving S in G.
        forward = _sweep(n, tails, heads, out_edges, in_edges, _bfs_order(n, succ, 0), best)
        if forward is not None:
            best, best_cut = forward.value, forward.cut
            best_side_a = set(range(n)) - set(forward.sink_side)
        if best > 1:
            # Sets S not containing vertex 0: run the sweep on the reversed graph.
            backward = _sweep(n, heads, tails, in_edges, out_edges, _bfs_order(n, pred, 0), best)
            if backward is not None:
                best = backward.value
                # In the reversed graph the cut edges enter the sink side; in G they leave it.
                best_cut = backward.cut
                best_side_a = set(backward.sink_side)

    fault_lines = sorted((ids[tails[e]], ids[heads[e]]) for e in best_cut)
    side_a = sorted(ids[x] for x in best_side_a)
    side_b = sorted(ids[x] for x in range(n) if x not in best_side_a)
    return best, fault_lines, side_a, side_b


def analyze(
    node_ids: Iterable[str],
    edges: Iterable[Edge],
    *,
    budget_config: DeliberationBudgetConfig | None = None,
) -> Topology:
    """Analyse the κ topology of a region.

    Args:
        node_ids: The region's nodes; edges with an endpoint outside it are dropped.
        edges: Directed ``(source, target)`` pairs (typed edges should be passed as pairs).
        budget_config: Mapping from κ to deliberation budget.

    Returns:
        The region's :class:`Topology`.
    """
    ids = sorted(set(node_ids))
    if not ids:
        return EMPTY_TOPOLOGY
    pos = {node: i for i, node in enumerate(ids)}
    edge_list = [(s, t) for s, t in edges if s != t and s in pos and t in pos]
    if len(edge_list) < 2:
        # A component of two or more nodes needs a cycle, hence at least two edges. Most
        # regions of a large sparse graph have none: skip the decomposition.
        return Topology(max_kappa=0, routing="fast", dag_nodes=tuple(ids))
    succ_sets: list[set[int]] = [set() for _ in ids]
    for s, t in edge_list:
        succ_sets[pos[s]].add(pos[t])
    succ = [sorted(x) for x in succ_sets]
    comps = [c for c in strongly_connected_components(len(ids), succ) if len(c) > 1]
    member_of: dict[int, int] = {}
    for ci, comp in enumerate(comps):
        for x in comp:
            member_of[x] = ci
    comp_edges: list[list[Edge]] = [[] for _ in comps]
    for s, t in edge_list:
        owner = member_of.get(pos[s])
        if owner is not None and member_of.get(pos[t]) == owner:
            comp_edges[owner].append((s, t))
    named = sorted(
        ((sorted(ids[x] for x in comp), comp_edges[ci]) for ci, comp in enumerate(comps)),
        key=lambda pair: pair[0][0],
    )
    components: list[Component] = []
    for index, (members, cedges) in enumerate(named):
        kappa, fault_lines, side_a, side_b = component_kappa(members, cedges)
        components.append(
            Component(
                id=f"scc-{index}",
                nodes=tuple(members),
                kappa=kappa,
                fault_lines=tuple(fault_lines),
                side_a=tuple(side_a),
                side_b=tuple(side_b),
                budget=deliberation_budget(kappa, budget_config),
            )
        )
    in_scc = {node for c in components for node in c.nodes}
    max_kappa = max((c.kappa for c in components), default=0)
    return Topology(
        max_kappa=max_kappa,
        routing="deliberate" if max_kappa > 0 else "fast",
        sccs=tuple(components),
        dag_nodes=tuple(node for node in ids if node not in in_scc),
    )
