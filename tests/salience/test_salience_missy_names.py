"""Code written against Missy's ``missy/agent/attention.py`` runs on heedful's classes."""

from __future__ import annotations

from heedful.salience import (
    AlertingAttention,
    AttentionState,
    AttentionSystem,
    ExecutiveAttention,
    OrientingAttention,
    SelectiveAttention,
    SustainedAttention,
)


def _missy_pipeline(text: str, sustained: SustainedAttention) -> dict[str, object]:
    """One turn, the way Missy's AttentionSystem.process composes its subsystems."""
    urgency = AlertingAttention().score(text)
    topics = OrientingAttention().extract_topics(text)
    focus = sustained.update(topics)
    tools = ExecutiveAttention.prioritise(urgency, topics)
    return {"urgency": urgency, "topics": topics, "focus": focus, "tools": tools}


def test_missy_method_names_are_aliases_of_heedfuls() -> None:
    assert OrientingAttention.extract_topics is OrientingAttention.extract
    assert ExecutiveAttention.prioritise is ExecutiveAttention.prioritize


def test_code_written_for_missy_gives_the_pipelines_answers() -> None:
    sustained = SustainedAttention()
    system = AttentionSystem()
    for text in ("The server is down! Fix it immediately!", "Check the server error logs"):
        missy = _missy_pipeline(text, sustained)
        state = system.process(text)
        assert missy == {
            "urgency": state.urgency,
            "topics": state.topics,
            "focus": state.focus_duration,
            "tools": state.priority_tools,
        }
    assert missy["focus"] == 2


def test_missy_calls_on_instances_and_classes() -> None:
    topics = OrientingAttention().extract_topics("Tell me about the Docker configuration for Nginx")
    assert {"Docker", "Nginx"} <= set(topics)
    assert ExecutiveAttention().prioritise(0.9, ["logs"]) == [
        "shell_exec",
        "file_read",
        "file_write",
    ]
    assert ExecutiveAttention.prioritise(0.1, []) == []
    assert SelectiveAttention.filter(
        fragments=["Docker port mapping guide", "Python venv setup"], topics=["Docker"]
    ) == ["Docker port mapping guide"]


def test_process_takes_missys_keyword_user_input() -> None:
    state = AttentionSystem().process(user_input="Tell me about Docker", history=None)
    assert state.topics == ["Docker"]
    assert state.focus_duration == 1


def test_missys_context_filter_feeds_selective_attention_unchanged() -> None:
    state = AttentionSystem().process(user_input="Deploy with Kubernetes")
    assert state.context_filter == ["kubernetes"]
    kept = SelectiveAttention.filter(["Kubernetes pods", "Python venv"], state.context_filter)
    assert kept == ["Kubernetes pods"]


def test_attention_state_has_missys_defaults() -> None:
    state = AttentionState()
    assert (state.urgency, state.topics, state.focus_duration) == (0.0, [], 1)
    assert state.priority_tools == state.context_filter == []
