"""Speed of a local model (``--model local:…``): prompt and completion tokens per second, and the
prompt size of a real trial.

For each model: the opening prompt of a generated family-B scenario (what ``bench run`` sends
first, with the tools as the local server adds them) is tokenized by the model and evaluated
from an empty KV cache (prefill), then a constrained turn of ``--gen`` tokens is generated; the
next call resends the prompt plus one tool result and reuses the cached prefix. Printed: prompt
tokens, prefill and generation tokens per second, the tokens the second call reused, and, as the
baseline measured in the same run, the same prefill with two threads instead of one (the ratio
says what the default thread count buys on this machine).

Then whole trials per model, played by ``heedful bench run`` as the README's command plays them
(family G, 2 scenarios, ``llm`` and ``llm-advised`` taking turns, the default protocol and legal
moves, 6 turns at most): seconds per trial (wall time of the run over its trials, model load
included, and the model's own time per trial), and the prompt tokens the trials sent over all
their calls — what the model would evaluate if every call started from an empty cache — against
the tokens it actually evaluated, the rest coming from the KV cache and the saved system-message
prefix (``usage.prompt_tokens_details.cached_tokens``, read back from the run's response cache);
and, for the first call of each trial alone, the same two figures: there nothing of the trial is
cached yet, so what is reused is the system message another trial of the agent evaluated. A
retried call (a client timeout) would find its own prompt cached, so the trials run with a
timeout they never reach.

Needs the ``local`` extra. Run: ``.venv/bin/python benchmarks/local_model.py [--quick]``
(``--quick``: SmolLM2 only, 8 generated tokens).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from heedful.bench.agents.env import TrialEnv
from heedful.bench.policy import Observation
from heedful.bench.results import load_results
from heedful.bench.views import policy_view
from heedful.bench.worlds.families import generate_suite
from heedful.integrations.llm.local import LocalModel, local_model_path
from heedful.integrations.llm.prompt import render_messages
from heedful.integrations.llm.turns import (
    flatten_messages,
    schema_grammar,
    tools_prompt,
    turn_schema,
)


def _prompt() -> tuple[list[dict[str, str]], str]:
    scenario = generate_suite(["B"], count=1, seed=0)[0]
    view = policy_view(scenario)
    env = TrialEnv(view, lambda sid: Observation(sid), {}, adaptive=True)
    tools = [t.as_openai() for t in env.tools]
    turns = flatten_messages(render_messages(view, advised=False))
    turns[0] = {"role": "system", "content": turns[0]["content"] + "\n\n" + tools_prompt(tools)}
    return turns, schema_grammar(turn_schema(tools))


def _measure(name: str, threads: int, gen: int) -> dict[str, float]:
    turns, grammar = _prompt()
    model = LocalModel(local_model_path(name), n_ctx=8192, threads=threads)
    try:
        first = model.complete(turns, max_tokens=gen, grammar=grammar)
        turns = [
            *turns,
            {"role": "assistant", "content": first.text},
            {"role": "user", "content": "Result of inspect_source:\nnothing relevant reported"},
        ]
        start = time.perf_counter()
        second = model.complete(turns, max_tokens=1)
        second_s = time.perf_counter() - start
    finally:
        model.close()
    return {
        "prompt": first.prompt_tokens,
        "prefill": first.prompt_tokens / first.prefill_s,
        "gen": first.completion_tokens / first.generate_s if first.completion_tokens else 0.0,
        "reused": second.reused_tokens,
        "second_s": second_s,
        "first_s": first.prefill_s,
    }


def _trials(name: str) -> dict[str, float]:
    """Play the README's trials; their time and prompt tokens (see the module docstring)."""
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache.sqlite"
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "heedful.cli", "bench", "run", "--family", "G", "--count", "2",
             "--policies", "llm,llm-advised", "--trials", "1", "--model", name,
             "--max-turns", "6", "--max-tokens", "128", "--timeout", "3600", "--retries", "0",
             "--cache", str(cache), "--out", str(Path(tmp) / "run"), "--json"],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wall = time.perf_counter() - start
        trials = [t for t in load_results(Path(tmp) / "run" / "results.json").trials if t.usage]
        with contextlib.closing(sqlite3.connect(cache)) as db:
            rows = [
                (json.loads(q), json.loads(r)["usage"])
                for q, r in db.execute("SELECT request, response FROM responses ORDER BY rowid")
            ]
    sent = sum(u["prompt_tokens"] for _, u in rows)
    cached = sum(u.get("prompt_tokens_details", {}).get("cached_tokens", 0) for _, u in rows)
    # The first call of a trial: its request holds the opening messages only.
    firsts = [u for q, u in rows if len(q["messages"]) == 2]
    first_sent = sum(u["prompt_tokens"] for u in firsts)
    first_cached = sum(u.get("prompt_tokens_details", {}).get("cached_tokens", 0) for u in firsts)
    return {
        "trials": len(trials),
        "calls": len(rows),
        "wall_per_trial": wall / max(len(trials), 1),
        "model_per_trial": sum(t.usage.latency_s for t in trials if t.usage) / max(len(trials), 1),
        "sent": sent,
        "evaluated": sent - cached,
        "first_sent": first_sent,
        "first_evaluated": first_sent - first_cached,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="SmolLM2 only, 8 tokens")
    args = parser.parse_args()
    models = ["local:smollm2-135m"] if args.quick else ["local:smollm2-135m", "local:gemma3-270m"]
    gen = 8 if args.quick else 32
    for name in models:
        one = _measure(name, 1, gen)
        two = _measure(name, 2, gen)
        print(
            f"{name}: prompt {one['prompt']:.0f} tokens; 1 thread: prefill "
            f"{one['prefill']:.1f} tok/s, generation {one['gen']:.1f} tok/s; next turn reused "
            f"{one['reused']:.0f} tokens ({one['second_s']:.1f} s vs {one['first_s']:.1f} s "
            f"from empty); 2 threads (baseline): prefill {two['prefill']:.1f} tok/s, "
            f"generation {two['gen']:.1f} tok/s; 1-thread/2-thread prefill ratio "
            f"{one['prefill'] / two['prefill']:.2f}"
        )
        t = _trials(name)
        print(
            f"{name}: {t['trials']:.0f} trials (the README's command: family G, llm and "
            f"llm-advised, {t['calls']:.0f} calls): {t['wall_per_trial']:.1f} s of wall time per "
            f"trial ({t['model_per_trial']:.1f} s of it the model's); prompt tokens sent "
            f"{t['sent']:,.0f}, evaluated {t['evaluated']:,.0f} "
            f"({t['sent'] / max(t['evaluated'], 1):.1f}x fewer than from an empty cache); "
            f"first calls of the trials alone: sent {t['first_sent']:,.0f}, evaluated "
            f"{t['first_evaluated']:,.0f} (the saved system-message prefix)"
        )


if __name__ == "__main__":
    main()
