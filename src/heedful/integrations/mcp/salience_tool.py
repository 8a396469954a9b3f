"""The ``salience`` MCP tool: document 003's pipeline over one turn and its chat history.

Stateless: the agent passes the conversation it holds (strings or chat messages), so no
per-client state lives in the server. The pipeline is pure and never touches the store.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from heedful.integrations.mcp.arguments import ToolArgs
from heedful.salience import AttentionSystem, selective_filter

__all__ = ["SalienceArgs", "run_salience"]

#: Most history items and fragments one call accepts (keeps a call bounded).
MAX_ITEMS = 10_000


class SalienceArgs(ToolArgs):
    """Arguments of ``salience`` (document 003, ``AttentionSystem.process``)."""

    text: str = Field(description="This turn's user input.", max_length=1_000_000)
    history: list[str | dict[str, Any]] = Field(
        default_factory=list,
        max_length=MAX_ITEMS,
        description=(
            "Earlier turns, oldest first: strings (user turns) or chat messages "
            '{"role", "content"}; content is a string, a list of parts ({"type": "text", '
            '"text": ...}) or one part. Only role "user" counts as a turn; assistant, system, '
            "developer, tool and function messages are skipped."
        ),
    )
    fragments: list[str] | None = Field(
        default=None,
        max_length=MAX_ITEMS,
        description="Memory fragments to filter by this turn's topics (selective attention).",
    )


def run_salience(_backend: object, args: SalienceArgs) -> Mapping[str, Any]:
    """Run the pipeline on ``args.text`` after ``args.history``; filter fragments if given."""
    system = AttentionSystem()
    state = system.process(args.text, args.history)
    result: dict[str, Any] = {**state.to_dict(), "context_depth": system.context_depth(state)}
    if args.fragments is not None:
        result["fragments"] = selective_filter(args.fragments, state.context_filter)
    return result
