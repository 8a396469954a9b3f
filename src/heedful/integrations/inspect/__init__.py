"""heedful inside inspect_ai (the ``inspect`` extra; docs/inspect.md).

Registered through inspect_ai's entry point, so with the extra installed::

    inspect eval heedful/family -T family=G -T count=5 --model openai/gpt-4o-mini
    inspect eval heedful/scenarios -T path=examples/scenarios --model mockllm/model

Each sample is one scenario, each epoch one trial; the model plays with the bench agent's
prompt and tools and :func:`heedful_scorer` scores it against the exact oracle (attention score,
regret, net utility, and the four-stage failure split in the score's metadata). No private
scenario field reaches a sample, the transcript or the log.
"""

from __future__ import annotations

from heedful.integrations.inspect._play import SCORE_KEYS, heedful_agent, heedful_scorer
from heedful.integrations.inspect.tasks import family, heedful_task, scenarios

__all__ = ["SCORE_KEYS", "family", "heedful_agent", "heedful_scorer", "heedful_task", "scenarios"]
