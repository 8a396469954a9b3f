"""Speed of a local model (``--model local:…``): prompt and completion tokens per second, and the
prompt size of a real trial.

For each model: the opening prompt of a generated family-B scenario (what ``bench run`` sends
first, with the tools as the local server adds them) is tokenized by the model and evaluated
from an empty KV cache (prefill), then a constrained turn of ``--gen`` tokens is generated; the
next call resends the prompt plus one tool result and reuses the cached prefix. Printed: prompt
tokens, prefill and generation tokens per second, the tokens the second call reused, and, as the
baseline measured in the same run, the same prefill with two threads instead of one (the ratio
says what the default thread count buys on this machine).

Needs the ``local`` extra. Run: ``.venv/bin/python benchmarks/local_model.py [--quick]``
(``--quick``: SmolLM2 only, 8 generated tokens).
"""

from __future__ import annotations

import argparse
import time

from heedful.bench.agents.env import TrialEnv
from heedful.bench.policy import Observation
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


if __name__ == "__main__":
    main()
