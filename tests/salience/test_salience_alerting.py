from __future__ import annotations

import pytest

from heedful.salience import SalienceConfig, alerting_urgency, urgency_counts


def test_document_example_server_down_is_two_of_seven() -> None:
    # Document 003 §1 says "~0.25 (2 matches out of 8 words)", but the sentence has 7
    # whitespace-separated words (The/server/is/down!/Fix/it/immediately!); the rule gives 2/7.
    assert alerting_urgency("The server is down! Fix it immediately!") == pytest.approx(2 / 7)


def test_counts_report_matches_and_words() -> None:
    assert urgency_counts("The server is down! Fix it immediately!") == (2, 7)


def test_empty_input_has_zero_urgency() -> None:
    assert alerting_urgency("") == 0.0


def test_whitespace_only_input_has_zero_urgency() -> None:
    assert alerting_urgency("  \n\t ") == 0.0


def test_keyword_match_ignores_case() -> None:
    assert alerting_urgency("URGENT Critical") == 1.0


@pytest.mark.parametrize(
    "word", ["error!", "error.", "error,", "error?", "error;", "error:", ":error!?"]
)
def test_listed_punctuation_is_stripped_at_both_ends(word: str) -> None:
    assert urgency_counts(f"an {word}") == (1, 2)


def test_other_punctuation_is_not_stripped() -> None:
    # Only ! . , ? ; : are stripped; quotes and brackets stay, so the word no longer matches.
    assert urgency_counts('"error" (down)') == (0, 2)


def test_inner_punctuation_blocks_a_match() -> None:
    assert urgency_counts("error-prone shut.down") == (0, 2)


def test_repeated_keyword_counts_every_occurrence() -> None:
    assert urgency_counts("error error error ok") == (3, 4)
    assert alerting_urgency("error error error ok") == pytest.approx(0.75)


def test_all_keywords_gives_one() -> None:
    text = "error critical urgent broken down failed security immediately asap emergency"
    assert alerting_urgency(text) == 1.0


def test_punctuation_only_token_counts_as_a_word() -> None:
    # "!!!" strips to nothing but is still a whitespace-separated word in the denominator.
    assert urgency_counts("down !!!") == (1, 2)


def test_keywords_are_whole_words_not_substrings() -> None:
    assert urgency_counts("errors downtime") == (0, 2)


def test_cap_applies_from_config() -> None:
    config = SalienceConfig(urgency_cap=0.5)
    assert alerting_urgency("error error", config=config) == 0.5


def test_exactly_ten_keywords_configured() -> None:
    assert len(SalienceConfig().urgency_keywords) == 10
