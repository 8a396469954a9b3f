"""The prompt shows only what a view may show, and the two conditions differ only in the task."""

from __future__ import annotations

import json
from typing import Any

from heedful.bench.views import policy_view
from heedful.bench.worlds.families.unprompted import mentions_inspection
from heedful.integrations.llm import prompt_template_hash, render_messages
from heedful.integrations.llm.prompt import HEADINGS, view_payload
from heedful.model import scenario_from_dict


def _text(messages: list[dict[str, Any]]) -> str:
    return "\n".join(m["content"] for m in messages)


def test_no_private_field_id_or_condition_reaches_the_prompt(llm_scenario_raw: Any) -> None:
    raw = llm_scenario_raw(id="secret-scenario-42")
    raw["sources"][0]["accuracy"] = 0.123456
    text = _text(render_messages(policy_view(scenario_from_dict(raw)), advised=False))
    assert "secret-scenario-42" not in text
    assert "0.123456" not in text and "accuracy" not in text and "prior" not in text
    assert "Live probe: the service is up=" not in text  # the PRIVATE render template
    assert "echo" not in text and "fails" not in text and "world" not in text
    assert "announced" not in text and "unprompted" not in text and '"T"' not in text


def test_notes_sources_variables_and_actions_are_there_as_json(llm_scenario_raw: Any) -> None:
    view = policy_view(scenario_from_dict(llm_scenario_raw()))
    payload = view_payload(view)
    assert [s["id"] for s in payload[HEADINGS[0]]] == ["chatter", "summary", "probe"]
    assert payload[HEADINGS[1]] == [
        {"variable": "up", "value": "no", "from": "summary", "noted": "2.0 h ago",
         "age_s": 7200.0, "confidence": 1.0}
    ]  # fmt: skip
    user = render_messages(view, advised=False)[1]["content"]
    for heading in HEADINGS:
        block = user.split(f"{heading}:\n```json\n", 1)[1].split("\n```", 1)[0]
        assert json.loads(block) == json.loads(json.dumps(payload[heading]))


def test_unprompted_prompt_never_asks_to_inspect(llm_scenario_raw: Any) -> None:
    view = policy_view(scenario_from_dict(llm_scenario_raw(condition="unprompted")))
    messages = render_messages(view, advised=False)
    prose = [messages[0]["content"], messages[1]["content"].split("```", 1)[0]]
    prose.append(messages[1]["content"].rsplit("```", 1)[1])
    assert not any(mentions_inspection(p) for p in prose)
    announced = policy_view(scenario_from_dict(llm_scenario_raw()))
    assert mentions_inspection(render_messages(announced, advised=False)[1]["content"])


def test_only_the_advised_prompt_mentions_the_controller(llm_scenario_raw: Any) -> None:
    view = policy_view(scenario_from_dict(llm_scenario_raw()))
    plain = render_messages(view, advised=False)
    advised = render_messages(view, advised=True)
    assert "attention_next" in advised[0]["content"]
    assert "attention_next" not in plain[0]["content"]
    assert plain[1] == advised[1]  # the same task either way
    assert len(prompt_template_hash()) == 64
