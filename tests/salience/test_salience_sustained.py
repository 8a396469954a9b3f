from __future__ import annotations

import pytest

from heedful.salience import focus_durations, sustained_focus, topic_overlap


def test_first_turn_is_one() -> None:
    assert sustained_focus(None, 0, ["Docker"]) == 1


def test_full_overlap_increments() -> None:
    assert sustained_focus(["Docker"], 1, ["Docker", "networking"]) == 2


def test_no_overlap_resets_to_one() -> None:
    assert sustained_focus(["Docker", "networking"], 4, ["Nginx", "config"]) == 1


def test_exactly_half_overlap_resets() -> None:
    # "more than 50%": 1 of 2 previous topics recurring is not enough.
    assert sustained_focus(["Docker", "networking"], 3, ["Docker"]) == 1


def test_just_over_half_overlap_increments() -> None:
    assert sustained_focus(["a", "b", "c"], 3, ["a", "b"]) == 4


def test_overlap_ignores_case() -> None:
    assert topic_overlap(["Docker"], ["docker"]) == 1.0


def test_overlap_is_relative_to_previous_topics() -> None:
    # Many new topics do not dilute the overlap: the denominator is the previous turn's topics.
    assert topic_overlap(["Docker"], ["Docker", "a", "b", "c"]) == 1.0


def test_previous_turn_without_topics_resets() -> None:
    assert sustained_focus([], 5, []) == 1


def test_document_sequence_docker_docker_nginx() -> None:
    assert focus_durations([["Docker"], ["Docker", "networking"], ["Nginx", "config"]]) == [1, 2, 1]


def test_duration_keeps_growing_over_a_long_focus() -> None:
    assert focus_durations([["x"]] * 5) == [1, 2, 3, 4, 5]


def test_empty_conversation_has_no_durations() -> None:
    assert focus_durations([]) == []


@pytest.mark.parametrize(("previous", "current", "expected"), [(["A", "B"], ["b"], 0.5)])
def test_overlap_value(previous: list[str], current: list[str], expected: float) -> None:
    assert topic_overlap(previous, current) == expected
