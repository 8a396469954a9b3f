from __future__ import annotations

from typing import Any

import pytest

from heedful.errors import HeedfulError, InvalidArgumentError
from heedful.salience import AttentionSystem, history_texts, message_text


def test_issue_example_with_a_chat_message_history_runs() -> None:
    state = AttentionSystem().process("Tell me about Docker", [{"role": "user", "content": "hi"}])
    assert state.topics == ["Docker"]
    assert state.focus_duration == 1


def test_plain_string_history_still_works() -> None:
    state = AttentionSystem().process("about Docker", history=["about Docker", "about Docker"])
    assert state.focus_duration == 3


def test_user_messages_count_and_other_roles_are_skipped() -> None:
    history: list[Any] = [
        {"role": "system", "content": "You are helpful. Talk about Nginx."},
        {"role": "user", "content": "Tell me about Docker"},
        {"role": "assistant", "content": "Docker runs containers with Nginx inside."},
        {"role": "tool", "content": "about Nginx"},
    ]
    # Only the user turn counts: 'Docker' recurs, so focus continues; the assistant/tool
    # messages would have broken it (their topics are not the user's).
    assert AttentionSystem().process("More about Docker", history).focus_duration == 2


def test_assistant_message_without_content_is_skipped() -> None:
    history = [{"role": "assistant", "content": None, "tool_calls": []}, "about Redis"]
    assert history_texts(history) == ["about Redis"]


def test_content_as_a_list_of_text_parts() -> None:
    message = {
        "role": "user",
        "content": [
            {"type": "text", "text": "about Docker"},
            {"type": "image_url", "image_url": {"url": "data:..."}},
            "and Kubernetes",
        ],
    }
    assert history_texts([message]) == ["about Docker\nand Kubernetes"]


def test_mcp_style_single_content_part() -> None:
    message = {"role": "user", "content": {"type": "text", "text": "about Docker"}}
    assert AttentionSystem().process("about Docker", [message]).focus_duration == 2


def test_history_mixes_strings_and_messages_in_order() -> None:
    history: list[Any] = ["one", {"role": "user", "content": "two"}, "three"]
    assert history_texts(history) == ["one", "two", "three"]


def test_a_user_message_can_be_the_turn_itself() -> None:
    state = AttentionSystem().process({"role": "user", "content": "urgent: broken!"})
    assert state.urgency == 1.0


def test_assistant_message_as_the_turn_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="role 'user'"):
        AttentionSystem().process({"role": "assistant", "content": "hi"})


def test_stateless_history_leaves_instance_state_alone() -> None:
    attn = AttentionSystem()
    attn.process("about Docker", [{"role": "user", "content": "about Docker"}])
    assert not attn.started


def test_observe_advances_the_conversation() -> None:
    attn = AttentionSystem()
    attn.observe([{"role": "user", "content": "about Docker"}, "about Docker"])
    assert attn.focus_duration == 2
    assert attn.process("about Docker").focus_duration == 3


@pytest.mark.parametrize(
    ("history", "where"),
    [
        ([42], r"history\[0\]: must be a string or a chat message"),
        (["ok", {"content": "no role"}], r"history\[1\]\.role: a chat message needs"),
        ([{"role": "robot", "content": "x"}], r"history\[0\]\.role: unknown role 'robot'"),
        ([{"role": "user"}], r"history\[0\]\.content: a user message needs 'content'"),
        ([{"role": "user", "content": None}], r"history\[0\]\.content: must be a string"),
        ([{"role": "user", "content": [3]}], r"history\[0\]\.content\[0\]: a content part"),
        (
            [{"role": "user", "content": [{"type": "text"}]}],
            r"history\[0\]\.content\[0\]\.text: a text part needs",
        ),
        ([{"role": "user", "content": [{"type": 5}]}], r"history\[0\]\.content\[0\]\.type"),
        ("just a string", r"history: must be a list"),
        ({"role": "user", "content": "x"}, r"history: must be a list"),
    ],
)
def test_bad_history_items_are_named(history: Any, where: str) -> None:
    with pytest.raises(InvalidArgumentError, match=where):
        AttentionSystem().process("hello", history)


def test_bad_history_is_a_heedful_error_not_attribute_error() -> None:
    with pytest.raises(HeedfulError):
        AttentionSystem().process("hello", [{"role": "user", "content": 7}])


def test_bad_turn_type_is_named() -> None:
    with pytest.raises(InvalidArgumentError, match="user_input: must be a string"):
        AttentionSystem().process(7)  # type: ignore[arg-type]


def test_message_text_of_empty_parts_is_empty() -> None:
    assert message_text([]) == ""
