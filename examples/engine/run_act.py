"""Run the attention engine in act mode for ten cycles and show what changed and why.

Copy this folder and edit ``act_seed.yaml`` (goals, knowledge, plans) and ``act_config.yaml``.

    .venv/bin/python examples/engine/run_act.py              # a fresh store in a temp folder
    .venv/bin/python examples/engine/run_act.py --db act.db  # keep it (and act.db.journal.jsonl)

Document 002 §5's cycle on three goals: "Reduce churn" has little coverage → EXPLORE (links what
the graph knows around it); "Increase market share" sits on a feedback loop (κ = 1) → FOCUS
(the deliberator crystallises a conclusion and κ drops to 0); "Ship feature X" is ready →
ACT (the default executor runs one step of the goal's plan per cycle; the last step completes
it). Every write is journaled; the script ends by undoing the newest action.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

from heedful.engine import Notice, load_engine_config, open_engine
from heedful.engine.seed import load_seed_file

HERE = Path(__file__).parent
WIDTH = shutil.get_terminal_size().columns


def say(line: str, indent: int = 4) -> None:
    """Print ``line`` wrapped to the terminal, continuation lines indented."""
    lead = len(line) - len(line.lstrip())
    print(textwrap.fill(line, WIDTH, subsequent_indent=" " * (lead + indent)))


class PrintNotifier:
    """The engine's notifier port: escalations and proposals, in line with their cycle."""

    def notify(self, notice: Notice) -> None:
        say(f"  ! {notice.kind} ({notice.mode}): {notice.message}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="store file (default: a fresh one in a temporary folder)")
    parser.add_argument("--cycles", type=int, default=10)
    args = parser.parse_args()
    db = Path(args.db or Path(tempfile.mkdtemp()) / "act.db")
    fresh = not db.exists()

    # Simulated time: one hour passes per cycle, so cooldowns and freshness move.
    now = [datetime.now(UTC)]
    config = load_engine_config(HERE / "act_config.yaml")
    engine = open_engine(
        db,
        config,
        clock=lambda: now[0],
        notifier=PrintNotifier(),
    )
    try:
        if fresh:
            counts = load_seed_file(engine.graph, HERE / "act_seed.yaml")
            print(f"loaded {counts} into\n  {db}")
        for n in range(1, args.cycles + 1):
            cycle = engine.run_cycle(autonomy_override="act")
            print(f"\ncycle {n} ({cycle['trigger']}): {cycle['items_surveyed']} goal(s) surveyed")
            for d in cycle["dispatches"]:
                after = d["coverage_after"]
                cov = f"{d['coverage_before']:.2f}" + (f"→{after:.2f}" if after is not None else "")
                kappa = f"{d['kappa_before']}" + (
                    f"→{d['kappa_after']}" if d["kappa_after"] is not None else ""
                )
                say(
                    f"  {d['mode']:<8} {d['goal_title']!r:<26} {d['result']:<9} "
                    f"coverage {cov:<10} κ {kappa}"
                )
                if d["reason"]:
                    say(f"           {d['reason']}")
            for entry_id in cycle["journal_entry_ids"]:
                entry = next(e for e in engine.journal_entries() if e.id == entry_id)
                for line in entry.describe():
                    say(f"      {entry_id}  {line}", indent=14)
            for r in cycle["resurveyed"]:
                print(f"  re-surveyed {r['goal_id']}: coverage {r['coverage_after']:.2f}")
            now[0] += timedelta(hours=1)
        print("\ngoals:")
        for goal in engine.graph.list_goals():
            status = f"{goal.status.value:<10} progress {goal.progress:.2f}"
            say(f"  {goal.id:<14} {status}  {goal.title}")
        acts = [e for e in engine.journal_entries() if e.undone_at is None and e.mode == "act"]
        if acts:
            newest = acts[-1]
            engine.undo(newest.id)
            goal = engine.graph.get_goal(newest.goal_id or "")
            print()
            say(f"undid {newest.id}: {newest.summary}")
            print(f"  {goal.id} is {goal.status.value} again, progress {goal.progress:.2f}")
            print(f"journal: {len(engine.journal_entries())} entries in\n  {engine.journal.path}")
    finally:
        engine.close()


if __name__ == "__main__":
    main()
