"""A killed run resumes from the response cache; a rerun replays without calling the endpoint."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from heedful.bench.agents.contract import get_agent
from heedful.bench.agents.runner import AgentProgress, run_agents_sync
from heedful.bench.config import BenchConfig
from heedful.integrations.llm import ResponseCache
from heedful.model import scenario_from_dict

FAST = BenchConfig(bootstrap_resamples=100)


class Killed(Exception):
    """Stands for the process being killed half way through a run."""


def _scenarios(raw: Any) -> list[Any]:
    return [
        scenario_from_dict(raw(id=f"s{i}", world={"up": "yes" if i % 2 else "no"}))
        for i in range(3)
    ]


def _summary(records: list[Any]) -> list[tuple[Any, ...]]:
    return [(r.scenario_id, r.trial, r.inspected, r.action, r.stage) for r in records]


def test_a_killed_run_resumes_from_the_cache(
    scripted: Any, settings_for: Any, llm_scenario_raw: Any, tmp_path: Path
) -> None:
    server = scripted("careful")
    cache = str(tmp_path / "cache.sqlite")
    scenarios = _scenarios(llm_scenario_raw)
    run = {"trials": 2, "seed": 0, "adaptive": True, "concurrency": 1, "config": FAST}

    def kill_after_three(p: AgentProgress) -> None:
        if p.done == 3:
            raise Killed

    with pytest.raises(Killed):
        run_agents_sync(
            scenarios,
            [get_agent("llm", settings_for(server, cache=cache))],
            on_progress=kill_after_three,
            **run,
        )
    asked_before_kill = server.requests
    stored = len(ResponseCache(cache))
    # Three trials of two calls were answered and stored (the fourth may have begun).
    assert stored >= 6 and asked_before_kill - stored <= 1  # a cut-off call is never stored
    resumed = run_agents_sync(
        scenarios, [get_agent("llm", settings_for(server, cache=cache))], **run
    )
    total_calls = 12  # 3 scenarios × 2 trials × 2 calls
    assert server.requests - asked_before_kill == total_calls - stored  # only what was missing
    assert sum(r.usage.cached_calls for r in resumed if r.usage) == stored

    fresh_server = scripted("careful")
    fresh = run_agents_sync(scenarios, [get_agent("llm", settings_for(fresh_server))], **run)
    assert _summary(resumed) == _summary(fresh)

    before = server.requests
    replay = run_agents_sync(
        scenarios, [get_agent("llm", settings_for(server, cache=cache))], **run
    )
    assert server.requests == before  # a full replay asks the endpoint nothing
    assert _summary(replay) == _summary(fresh)
