"""Tab completion of the names a command takes: policies (``--policies``, ``--policy``) and
families (``--family``: codes and names).

The names are exactly those ``heedful list policies`` / ``heedful list families`` print (their
rows' first columns), read by running those commands into a buffer, so a plugin's policy
completes once it is installed. A comma-separated value completes its last item
(``--policies voc,ra<TAB>`` → ``voc,random``), never offering a name already in it.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from typing import Any

__all__ = ["complete_names", "family_words", "policy_words"]


def _rows(command: Callable[[], None]) -> list[list[str]]:
    """The rows a ``heedful list`` command prints, split into words (continuation lines of a
    wrapped description start with a space and are skipped)."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        command()
    return [line.split() for line in buffer.getvalue().splitlines() if line[:1].strip()]


def policy_words() -> list[str]:
    """Every policy and agent name, then ``all``."""
    from heedful.cli.listing import list_policies

    return [*(row[0] for row in _rows(list_policies)), "all"]


def family_words() -> list[str]:
    """Every family code, then every family name, then ``all``."""
    from heedful.cli.listing import list_families

    rows = _rows(list_families)
    return [*(r[0] for r in rows), *(r[1] for r in rows if len(r) > 1), "all"]


def _comma_list(words: Callable[[], list[str]]) -> Callable[[Any, Any, str], list[str]]:
    def complete(ctx: Any, param: Any, incomplete: str) -> list[str]:
        head, comma, last = incomplete.rpartition(",")
        taken = set(head.split(",")) if comma else set()
        try:
            names = words()
        except Exception:  # a completion never breaks the shell: no names, no traceback
            return []
        prefix = f"{head}," if comma else ""
        return [prefix + n for n in dict.fromkeys(names) if n.startswith(last) and n not in taken]

    return complete


#: Long option name → what completes its value.
COMPLETERS: dict[str, Callable[[Any, Any, str], list[str]]] = {
    "--policies": _comma_list(policy_words),
    "--policy": _comma_list(policy_words),
    "--family": _comma_list(family_words),
}


def complete_names(group: Any) -> None:
    """Give every ``--policies``, ``--policy`` and ``--family`` option of ``group`` and its
    subcommands the completion of :data:`COMPLETERS` (unless it has its own)."""
    for command in getattr(group, "commands", {}).values():
        complete_names(command)
    for param in getattr(group, "params", []):
        if getattr(param, "param_type_name", "") != "option":
            continue
        found = next((COMPLETERS[o] for o in param.opts if o in COMPLETERS), None)
        if found is not None and getattr(param, "_custom_shell_complete", None) is None:
            # Click's own hook for a parameter's completion (Typer's vendored Click keeps it).
            param._custom_shell_complete = found
