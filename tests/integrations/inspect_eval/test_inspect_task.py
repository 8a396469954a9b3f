"""heedful inside inspect_ai: the registered tasks, the agent loop, the scorer, the log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import zipfile
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from heedful.bench.agents.contract import Agent, CallStats
from heedful.bench.agents.env import TrialEnv
from heedful.bench.agents.runner import run_agents_sync
from heedful.bench.suite import select_scenarios
from heedful.integrations.inspect import SCORE_KEYS
from heedful.model import load_scenario_set

# The mock model counts tokens with tiktoken when an output has no usage, and tiktoken downloads
# its encoding at run time: the tests give every output a usage, and the CLI run counts
# characters instead (this machine has no route to that download).
_OFFLINE_COUNT = """
import sys
import inspect_ai.model._model as model

async def _count(self, text):
    return max(1, len(text) // 4)

model.ModelAPI.count_text_tokens = _count
from inspect_ai._cli.main import main

sys.argv = ["inspect", *sys.argv[1:]]
main()
"""


def _usage(output: ModelOutput) -> ModelOutput:
    output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    return output


def _scripted(messages: list[Any], tools: list[Any], tool_choice: Any, config: Any) -> ModelOutput:
    """Inspect the first listed source, then take the first action (what _Twin does)."""
    by_name = {t.name: t for t in tools}
    read = sum(1 for m in messages if m.role == "tool")
    if read == 0 and "inspect_source" in by_name:
        first = by_name["inspect_source"].parameters.properties["source_id"].enum[0]
        return _usage(ModelOutput.for_tool_call("mockllm", "inspect_source", {"source_id": first}))
    action = by_name["decide"].parameters.properties["action"].enum[0]
    return _usage(ModelOutput.for_tool_call("mockllm", "decide", {"action": action, "beliefs": {}}))


class _Twin(Agent):
    """The bench agent that plays exactly what _scripted plays."""

    name = "inspect"

    async def play(self, env: TrialEnv) -> CallStats:
        env.call("inspect_source", {"source_id": env.view.source_ids[0]})
        env.call("decide", {"action": next(iter(env.view.actions)), "beliefs": {}})
        return CallStats(calls=2)


def _log_text(path: str) -> str:
    with zipfile.ZipFile(path) as archive:
        return "\n".join(archive.read(n).decode("utf-8", "replace") for n in archive.namelist())


def test_registered_family_scores_like_the_bench_agent_on_the_same_worlds(tmp_path) -> None:
    (log,) = inspect_eval(
        "heedful/family",
        task_args={"family": "G", "count": 2, "seed": 3, "adaptive": True},
        model=get_model("mockllm/model", custom_outputs=_scripted),
        epochs=2,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    scenarios, _, _ = select_scenarios(None, "G", 2, 3)
    bench = run_agents_sync(scenarios, [_Twin()], trials=2, seed=3, adaptive=True)
    expected = {(r.scenario_id, r.trial): r for r in bench}
    assert log.samples is not None and len(log.samples) == 4
    for sample in log.samples:
        (score,) = sample.scores.values()
        record = expected[(str(sample.id), sample.epoch - 1)]
        assert score.value["attention_score"] == pytest.approx(record.score)
        assert score.value["regret"] == pytest.approx(record.regret)
        assert score.value["net_utility"] == pytest.approx(record.net_utility)
        assert score.metadata["stage"] == (record.stage.value if record.stage else None)
        assert score.metadata["inspected"] == record.inspected
    results = log.results
    assert results is not None
    assert [s.name for s in results.scores] == list(SCORE_KEYS)
    attention = next(s for s in results.scores if s.name == "attention_score")
    # inspect reduces the epochs of a sample to their mean first, then averages the samples.
    by_scenario: dict[str, list[float]] = {}
    for r in bench:
        assert r.score is not None
        by_scenario.setdefault(r.scenario_id, []).append(r.score)
    mean = sum(sum(v) / len(v) for v in by_scenario.values()) / len(by_scenario)
    assert attention.metrics["heedful/mean"].value == pytest.approx(mean)


SCENARIO = """
format: heedful.scenario/v1
id: canary
task: Pick go or stop.
budget: 1
variables:
  x: {domain: ['p', 'q'], prior: [0.3141593, 0.6858407]}
actions:
  go:
    utility:
    - when: {x: 'p'}
      value: 1.0
    - {value: -1.0}
  stop:
    utility:
    - {value: 0.0}
sources:
- id: first
  reports: [x]
  authority: 0.9
  accuracy: 0.9123457
  render: 'TEMPLATE-ONE says {x}'
- id: second
  reports: [x]
  authority: 0.5
  accuracy: 0.8765432
  fails: 0.0123457
  render: 'TEMPLATE-TWO says {x}'
"""


def test_no_private_field_reaches_the_written_log(tmp_path) -> None:
    path = tmp_path / "canary.yaml"
    path.write_text(SCENARIO)
    (log,) = inspect_eval(
        "heedful/scenarios",
        task_args={"path": str(path), "adaptive": True},
        model=get_model("mockllm/model", custom_outputs=_scripted),
        epochs=3,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    text = _log_text(log.location)
    # The agent read "first" (its filled-in report is in the transcript, as the bench shows it).
    assert "TEMPLATE-ONE says" in text
    (scenario,) = load_scenario_set([path])
    private = ["0.3141593", "0.6858407", "0.9123457", "0.8765432", "0.0123457"]
    private += [t.render for t in scenario.truth.sources.values() if t.render]
    private += ["TEMPLATE-TWO", '"world"', "accuracy", '"prior']
    for value in private:
        assert value not in text, value


def test_inspect_eval_command_prints_heedfuls_score_with_the_mock_model(tmp_path) -> None:
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent(_OFFLINE_COUNT),
            "eval",
            "heedful/family",
            "-T",
            "family=G",
            "-T",
            "count=2",
            "--model",
            "mockllm/model",
            "--log-dir",
            str(tmp_path),
            "--display",
            "plain",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    for key in ("attention_score", "regret", "net_utility", "heedful/mean"):
        assert key in out, out
    (log_file,) = tmp_path.glob("*.eval")
    header = json.loads(zipfile.ZipFile(log_file).read("header.json"))
    names = [s["name"] for s in header["results"]["scores"]]
    assert "attention_score" in names
    # The mock model never calls decide: every trial is cut off at the turn limit.
    assert "turn_limit" in _log_text(str(log_file))


HIDDEN_SCENARIO = """
format: heedful.scenario/v1
id: hidden-live
task: Ship or hold.
budget: 2
cost_weight: 0.01
variables:
  state: {domain: [up, down], prior: [0.5, 0.5], volatility: high}
actions:
  ship:
    utility:
    - when: {state: up}
      value: 1.0
    - {value: -1.0}
  hold:
    utility:
    - {value: 0.0}
sources:
- {id: catalogue, reports: [], cost: {tool_calls: 0.1}}
- {id: noise, reports: [], cost: {tool_calls: 1}}
- {id: live-probe, reports: [state], accuracy: 0.99, authority: 0.95, revealed_by: catalogue}
"""


def _follow_links(
    messages: list[Any], tools: list[Any], tool_choice: Any, config: Any
) -> ModelOutput:
    """Read the first listed source, then any id the tools did not offer at first, then decide;
    record the ids offered on each turn."""
    by_name = {t.name: t for t in tools}
    offered = list(by_name["inspect_source"].parameters.properties["source_id"].enum)
    OFFERED.append(offered)
    read = sum(1 for m in messages if m.role == "tool")
    new = [i for i in offered if i not in OFFERED[0]]
    if read == 0:
        return _usage(
            ModelOutput.for_tool_call("mockllm", "inspect_source", {"source_id": "catalogue"})
        )
    if read == 1 and new:
        return _usage(ModelOutput.for_tool_call("mockllm", "inspect_source", {"source_id": new[0]}))
    return _usage(ModelOutput.for_tool_call("mockllm", "decide", {"action": "hold", "beliefs": {}}))


OFFERED: list[list[str]] = []


def test_a_hidden_source_joins_the_tools_in_inspect_once_revealed(tmp_path) -> None:
    OFFERED.clear()
    path = tmp_path / "hidden.yaml"
    path.write_text(HIDDEN_SCENARIO)
    (log,) = inspect_eval(
        "heedful/scenarios",
        task_args={"path": str(path), "adaptive": True},
        model=get_model("mockllm/model", custom_outputs=_follow_links),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    assert OFFERED[0] == ["catalogue", "noise"]  # never shown before its revealer is read
    assert OFFERED[1] == ["catalogue", "noise", "live-probe"]
    assert log.samples is not None
    (score,) = log.samples[0].scores.values()
    assert score.metadata["inspected"] == ["catalogue", "live-probe"]
