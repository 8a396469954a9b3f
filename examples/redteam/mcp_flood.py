"""Red team: a hostile client floods a real ``heedful mcp serve`` (stdio) with goals and sources.

    .venv/bin/python examples/redteam/mcp_flood.py [--goals 500] [--aliases 2100]

1. ``--goals`` goals, each with a 9,000-character description: prints the survey's time and size
   (the coverage rationale listed every missing word of a goal's text: 500 such goals made a
   5.0 MB survey in 1.37 s; it names at most 10 now).
2. ``--aliases`` low-authority sources for one claim registered before the authoritative one:
   prints which read ``attention_rank`` selects (with more aliases than a generator's quota of
   2,000 the first registered used to take every place, and ``alias-0`` was selected; the most
   authoritative are admitted first now). Everything runs in a temporary folder, removed after.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(goals: int, aliases: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "flood.db"
        serve = ["-m", "heedful.cli", "mcp", "serve", "--db", str(db)]
        params = StdioServerParameters(command=sys.executable, args=serve)
        async with Client(stdio_client(params)) as client:

            async def call(name: str, args: dict[str, Any]) -> Any:
                result = await client.call_tool(name, args)
                if result.is_error:
                    raise SystemExit(f"{name}: {result.content[0].text}")
                return result

            for i in range(goals):
                await call(
                    "attention_set_goal",
                    {"goal_id": f"g{i}", "title": f"goal {i}", "description": "x" * 9000},
                )
            start = time.perf_counter()
            survey = await call("attention_survey", {})
            size = sum(len(block.text) for block in survey.content)
            print(
                f"survey of {goals} goals: {time.perf_counter() - start:.2f} s, {size / 1e6:.2f} MB"
            )
            for i in range(aliases):
                await call(
                    "attention_register_source",
                    {"source_id": f"alias-{i}", "reports": ["dep"], "authority": 0.1},
                )
            await call(
                "attention_register_source",
                {"source_id": "registry", "reports": ["dep"], "authority": 0.99},
            )
            await call(
                "attention_record_belief",
                {
                    "claim_id": "dep",
                    "value": "a",
                    "domain": ["a", "b"],
                    "confidence": 0.6,
                    "age_s": 86400,
                },
            )
            rank = await call("attention_rank", {"budget": 1})
            step = rank.structured_content["next"]
            print(
                f"{aliases} aliases registered first: rank selects "
                f"{step.get('candidate', {}).get('target', step)}"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goals", type=int, default=500)
    parser.add_argument("--aliases", type=int, default=2100)
    ns = parser.parse_args()
    anyio.run(main, ns.goals, ns.aliases)
