from __future__ import annotations

import pytest

from heedful.salience import AttentionState, AttentionSystem


def test_document_usage_first_turn() -> None:
    state = AttentionSystem().process("The server is down! Fix it immediately!")
    # Document 003's usage prints 0.25; the rule gives 2 matches / 7 words.
    assert state.urgency == pytest.approx(2 / 7)
    assert state.topics == ["server"]
    assert state.priority_tools == []
    assert state.focus_duration == 1


def test_document_usage_second_turn() -> None:
    attn = AttentionSystem()
    attn.process("The server is down! Fix it immediately!")
    state = attn.process("Check the server error logs")
    # The document prints topics ["server", "error", "logs"] and tools file_read/file_write
    # ("log-related"); by the orienting rules "logs" is not a topic, so there is no file topic.
    assert state.topics == ["server"]
    assert state.focus_duration == 2
    assert state.priority_tools == []
    assert state.context_filter == ["server"]


def test_context_filter_is_the_topics_lower_cased_as_missy_forms_it() -> None:
    state = AttentionSystem().process("Tell me about Redis with Sentinel")
    assert state.topics == ["Redis", "Sentinel"]
    assert state.context_filter == ["redis", "sentinel"]


def test_file_topic_reaches_priority_tools() -> None:
    state = AttentionSystem().process("open the config please")
    assert state.priority_tools == ["file_read", "file_write"]


def test_urgent_turn_reaches_priority_tools() -> None:
    state = AttentionSystem().process("urgent: broken!")
    assert state.urgency == 1.0
    assert state.priority_tools == ["shell_exec", "file_read"]


def test_focus_does_not_leak_across_instances() -> None:
    first, second = AttentionSystem(), AttentionSystem()
    first.process("Tell me about Docker")
    assert first.process("More about Docker").focus_duration == 2
    assert second.process("More about Docker").focus_duration == 1


def test_focus_resets_when_topic_changes() -> None:
    attn = AttentionSystem()
    durations = [
        attn.process(t).focus_duration
        for t in ["Set up the Docker", "Configure the Docker networking", "Now fix the Nginx"]
    ]
    assert durations == [1, 2, 1]


def test_empty_turn_resets_focus() -> None:
    attn = AttentionSystem()
    attn.process("about Docker")
    attn.process("about Docker")
    assert attn.process("").focus_duration == 1


def test_history_replays_the_conversation() -> None:
    state = AttentionSystem().process("about Docker", history=["about Docker", "about Docker"])
    assert state.focus_duration == 3


def test_history_call_neither_reads_nor_changes_instance_state() -> None:
    attn = AttentionSystem()
    attn.process("about Docker")
    assert attn.process("about Docker", history=[]).focus_duration == 1
    assert attn.process("about Docker").focus_duration == 2


def test_reset_starts_a_new_conversation() -> None:
    attn = AttentionSystem()
    attn.process("about Docker")
    attn.reset()
    assert not attn.started
    assert attn.process("about Docker").focus_duration == 1


def test_state_to_dict_is_json_ready() -> None:
    state = AttentionState(urgency=0.5, topics=["a"], focus_duration=2)
    assert state.to_dict() == {
        "urgency": 0.5,
        "topics": ["a"],
        "focus_duration": 2,
        "priority_tools": [],
        "context_filter": [],
    }


def test_mutating_returned_topics_does_not_affect_next_turn() -> None:
    attn = AttentionSystem()
    attn.process("about Docker").topics.clear()
    assert attn.process("about Docker").focus_duration == 2


def test_document_class_api_call_shapes() -> None:
    from heedful.salience import (
        AlertingAttention,
        ExecutiveAttention,
        OrientingAttention,
        SelectiveAttention,
        SustainedAttention,
    )

    # Document 003 §4 calls the filter on the class, with keywords.
    assert SelectiveAttention.filter(
        fragments=["Docker port mapping guide", "Python venv setup", "Docker compose networking"],
        topics=["Docker", "networking"],
    ) == ["Docker port mapping guide", "Docker compose networking"]
    assert AlertingAttention.score("urgent: broken!") == 1.0
    assert OrientingAttention.extract("Tell me about Redis") == ["Redis"]
    assert ExecutiveAttention.prioritize(0.2, ["config"]) == ["file_read", "file_write"]
    sustained = SustainedAttention()
    assert [sustained.update(["Docker"]), sustained.update(["Docker"])] == [1, 2]


def test_system_exposes_its_subsystems_and_keeps_focus_in_sustained() -> None:
    attn = AttentionSystem()
    attn.process("about Docker")
    attn.process("about Docker")
    assert attn.sustained.focus_duration == attn.focus_duration == 2
    state = attn.process("about Docker")
    assert attn.filter(["Docker ports", "venv"], state) == ["Docker ports"]
