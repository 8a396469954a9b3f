"""The package's import structure: no cycles, dependencies point down (ARCHITECTURE.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import heedful

SRC = Path(heedful.__file__).parent


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in SRC.rglob("*.py")}


def _imports(path: Path, modules: dict[str, Path], name: str) -> set[str]:
    """Every heedful module `path` imports, at any depth, ``if TYPE_CHECKING`` blocks included
    (a type-only import is still an arrow of design), except a package's own children."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    found.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in modules:
                    found.add(sub)
                elif base in modules:
                    found.add(base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    found.discard(name)
    # A package's __init__ re-exporting its children is not a cycle of design.
    return {m for m in found if not m.startswith(name + ".")}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(path, modules, name) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out


def test_cycle_finder_finds_a_planted_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


#: Cycles allowed. Empty since issue 27 item 4: the controller's parts (the candidate columns,
#: lifecycle, enforcement, outcome recording) are objects built from the collaborators they use
#: and the records they share (``attention.records``: turn, agenda, table notes, turn log); none
#: imports the facade, and only the facade (``attention.controller``) imports them all.
KNOWN_CYCLES: list[list[str]] = []

#: The controller's parts: built without a controller, so none may import the facade.
CONTROLLER_PARTS = (
    "heedful.attention.records",
    "heedful.attention.columns",
    "heedful.attention.column_select",
    "heedful.attention.column_estimate",
    "heedful.attention.lifecycle",
    "heedful.attention.enforcement",
    "heedful.attention.outcome",
)


def test_no_import_cycle_in_the_package_but_the_known_one() -> None:
    cycles = _cycles(_graph())
    assert all(any(set(c) <= set(k) for k in KNOWN_CYCLES) for c in cycles), cycles
    assert not KNOWN_CYCLES or cycles, "a known cycle is gone: remove it from KNOWN_CYCLES"
    assert all(not c.startswith("heedful.bench") for cycle in cycles for c in cycle)


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for t in graph[todo.pop()]:
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


def test_reach_follows_imports_through_other_modules() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": set(), "d": {"a"}}
    assert _reach(graph, "a") == {"b", "c"}
    assert "d" not in _reach(graph, "a")


def test_no_part_of_the_controller_reaches_the_facade() -> None:
    graph = _graph()
    assert all(p in graph for p in CONTROLLER_PARTS), "a part was renamed: update the list"
    up = {p for p in CONTROLLER_PARTS if "heedful.attention.controller" in _reach(graph, p)}
    assert up == set()
    assert set(CONTROLLER_PARTS) <= graph["heedful.attention.controller"] | _reach(
        graph, "heedful.attention.controller"
    )


def test_bench_never_imports_learn() -> None:
    graph = _graph()
    up = {
        (m, t)
        for m, targets in graph.items()
        if m.startswith("heedful.bench")
        for t in targets
        if t.startswith("heedful.learn")
    }
    assert up == set()


def test_bench_has_few_top_level_modules() -> None:
    bench = SRC / "bench"
    top = sorted(p.name for p in bench.glob("*.py") if p.name != "__init__.py")
    assert len(top) <= 12, top


#: The rooms of ``heedful.bench`` (its subpackages and top-level modules), bottom layer first:
#: a room imports only rooms of layers below its own (docs/architecture.md).
BENCH_LAYERS: tuple[tuple[str, ...], ...] = (
    ("config", "seeds", "stats", "registry", "parallel", "views"),
    ("policy", "results"),
    ("manifest",),
    ("worlds",),
    ("score",),
    ("kinds",),
    ("policies",),
    ("run", "report", "validity"),
    ("agents",),
    ("suite",),
    ("ablations",),
)


def _bench_rooms() -> set[str]:
    bench = SRC / "bench"
    modules = {p.stem for p in bench.glob("*.py") if p.name != "__init__.py"}
    return modules | {p.parent.name for p in bench.glob("*/__init__.py")}


def _room_arrows(graph: dict[str, set[str]], package: str) -> set[tuple[str, str]]:
    """(room, room it imports) for every import between two rooms of ``package``."""
    prefix = package + "."

    def room(module: str) -> str | None:
        return module[len(prefix) :].split(".")[0] if module.startswith(prefix) else None

    return {
        (a, b)
        for m, targets in graph.items()
        if (a := room(m)) is not None
        for t in targets
        if (b := room(t)) is not None and b != a
    }


def test_room_arrows_name_the_rooms_an_import_joins() -> None:
    graph = {
        "p.a.x": {"p.b", "p.a.y", "q.c"},
        "p.b": {"p.c.z"},
        "p": {"p.a.x"},  # the package's own face is no room
    }
    assert _room_arrows(graph, "p") == {("a", "b"), ("b", "c")}


def test_every_room_of_bench_has_one_layer() -> None:
    listed = [room for layer in BENCH_LAYERS for room in layer]
    assert len(listed) == len(set(listed))
    assert set(listed) == _bench_rooms()


def test_the_rooms_of_bench_are_layered_each_using_only_rooms_below_it() -> None:
    layer = {room: i for i, rooms in enumerate(BENCH_LAYERS) for room in rooms}
    up = sorted((a, b) for a, b in _room_arrows(_graph(), "heedful.bench") if layer[b] >= layer[a])
    assert up == []
