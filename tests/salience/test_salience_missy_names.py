"""Code written against Missy's ``missy/agent/attention.py`` runs on heedful's classes."""

from __future__ import annotations

from heedful.salience import (
    AlertingAttention,
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
