"""``heedful list``: the policies, families and kinds a run can name, one line each."""

from __future__ import annotations

import os
import shutil
import sys
import textwrap

import typer

list_app = typer.Typer(
    help="List the policies, families and scenario kinds, one line each.", no_args_is_help=True
)


def register(root: typer.Typer) -> None:
    """Add the ``list`` group to the root app."""
    root.add_typer(list_app, name="list")


def _first_line(doc: str | None) -> str:
    text = (doc or "").strip().split("\n\n")[0]
    return " ".join(text.split()).replace("``", "`") or "(no description)"


def _join(docs: list[str]) -> str:
    """One description from the kinds' own (each once)."""
    return "; ".join(d.rstrip(".") for d in dict.fromkeys(docs)) + "."


#: Narrowest description column worth wrapping into; narrower, the description goes under.
_MIN_TEXT = 30
#: Indent of a description printed under its row.
_UNDER = 4


def _width() -> int | None:
    """The terminal's width: ``COLUMNS`` when set, else the terminal's own when stdout is one;
    ``None`` for a pipe (one line per row, for scripts)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


def _wrap(text: str, width: int) -> list[str]:
    """Lines of at most ``width`` characters, broken at spaces only (never inside a word such as
    ``self-prioritising`` or a name with hyphens)."""
    return textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False)


def _print(rows: list[tuple[str, ...]]) -> None:
    """Aligned columns, the last one free. Within a terminal's width the description wraps
    (continuation lines indented, so a row still starts at column 0); into a pipe, one line
    per row."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    width = _width()
    start = sum(widths) + 2 * len(widths)
    for row in rows:
        cells = [c.ljust(w) for c, w in zip(row, widths, strict=False)]
        head = "  ".join(cells)
        if width is None or len(head) + 2 + len(row[-1]) <= width:
            typer.echo(f"{head}  {row[-1]}".rstrip())
        elif width - start >= _MIN_TEXT:
            lines = _wrap(row[-1], width - start) or [""]
            typer.echo(f"{head}  {lines[0]}".rstrip())
            for line in lines[1:]:
                typer.echo(" " * start + line)
        else:
            typer.echo(head.rstrip())
            for line in _wrap(row[-1], max(width - _UNDER, _MIN_TEXT)):
                typer.echo(" " * _UNDER + line)


@list_app.command("policies")
def list_policies() -> None:
    """Every policy and agent: its name, the kinds it plays, whether `all` runs it, what it is."""
    from heedful.bench.agents.contract import agent_names
    from heedful.bench.policy import (
        kind_policy,
        kind_policy_names,
        other_kinds,
        policy_class,
        policy_names,
        suite_policy_names,
    )

    kinds = other_kinds()
    kind_names = {k: set(kind_policy_names(k)) for k in kinds}
    suite = set(suite_policy_names())
    rows: list[tuple[str, ...]] = []
    for name in policy_names():
        played = ["inspection", *(k for k in kinds if name in kind_names[k])]
        rows.append(
            (
                name,
                ",".join(played),
                "all" if name in suite else "named",
                _first_line(policy_class(name).__doc__),
            )
        )
    # Policies of D/J only (one name may serve both kinds: one line, its kinds listed).
    only = sorted({n for k in kinds for n in kind_names[k]} - set(policy_names()))
    for name in only:
        served = [k for k in kinds if name in kind_names[k]]
        docs = [_first_line(type(kind_policy(k, name)).__doc__) for k in served]
        rows.append((name, ",".join(served), "all", _join(docs)))
    for name in agent_names():
        rows.append((name, "inspection", "named", AGENTS.get(name, "an agent under test")))
    _print(rows)


#: What each built-in agent is (its module needs the `llm` extra, so it is not imported here).
AGENTS = {
    "llm": "an LLM at an OpenAI-compatible endpoint plays the trial (--model, --base-url)",
    "llm-prompted": "`llm` told to inspect authoritative live sources (§21 prompt only)",
    "llm-advised": "`llm` with the attention controller's advice (tool attention_next)",
}


@list_app.command("families")
def list_families() -> None:
    """Every scenario family: its code, name, kind, generator version and what it tests."""
    from heedful.bench.kinds import kind_families
    from heedful.bench.worlds.families import FAMILIES

    # What an inspection family's score measures (value of information only where it beats a
    # fitted authority/age/reports ranking by 15 points; heedful.bench.validity.ranking).
    rows: list[tuple[str, ...]] = [
        (
            f.code,
            f.name,
            "inspection",
            f.version,
            f.description + (f"; measures {f.measures}" if f.measures else ""),
        )
        for f in FAMILIES.values()
    ]
    rows += [(f.code, f.name, f.kind, f.version, f.description) for f in kind_families().values()]
    _print(sorted(rows))


#: What each scenario kind is (docs/scenario-format.md).
KINDS = {
    "inspection": "which sources to inspect under a budget before one decision (A-C, E-I, K)",
    "switching": "stay, queue or preempt as interruptions arrive mid-task (family D)",
    "schedule": "which obligation to work on: urgent now, important this hour or this week (J)",
}


@list_app.command("kinds")
def list_kinds() -> None:
    """Every scenario kind and what its scenarios ask."""
    from heedful.model import ScenarioKind

    _print([(k.value, KINDS[k.value]) for k in ScenarioKind])
