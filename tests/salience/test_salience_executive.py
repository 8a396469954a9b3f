from __future__ import annotations

from heedful.salience import executive_tools


def test_high_urgency_prioritises_shell_and_read() -> None:
    assert executive_tools(0.51, []) == ["shell_exec", "file_read"]


def test_urgency_of_exactly_half_does_not_trigger() -> None:
    assert executive_tools(0.5, []) == []


def test_file_topic_prioritises_read_and_write() -> None:
    assert executive_tools(0.0, ["logs"]) == ["file_read", "file_write"]


def test_file_topic_match_ignores_case() -> None:
    assert executive_tools(0.0, ["Config"]) == ["file_read", "file_write"]


def test_file_topic_is_a_whole_word() -> None:
    assert executive_tools(0.0, ["configuration"]) == []


def test_both_conditions_give_the_union_in_order() -> None:
    assert executive_tools(0.9, ["file"]) == ["shell_exec", "file_read", "file_write"]


def test_neither_condition_gives_no_override() -> None:
    assert executive_tools(0.2, ["server"]) == []
