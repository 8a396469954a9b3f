from __future__ import annotations

from heedful.salience import selective_filter

DOC_FRAGMENTS = ["Docker port mapping guide", "Python venv setup", "Docker compose networking"]


def test_document_example() -> None:
    assert selective_filter(DOC_FRAGMENTS, ["Docker", "networking"]) == [
        "Docker port mapping guide",
        "Docker compose networking",
    ]


def test_no_topics_passes_everything() -> None:
    assert selective_filter(DOC_FRAGMENTS, []) == DOC_FRAGMENTS


def test_match_ignores_case() -> None:
    assert selective_filter(["DOCKER ports"], ["docker"]) == ["DOCKER ports"]


def test_match_strips_punctuation_from_fragment_words() -> None:
    assert selective_filter(["We use Docker, mostly."], ["docker"]) == ["We use Docker, mostly."]


def test_substring_is_not_a_match() -> None:
    assert selective_filter(["configuration notes"], ["config"]) == []


def test_order_and_duplicates_are_kept() -> None:
    assert selective_filter(["b x", "a x", "b x"], ["x"]) == ["b x", "a x", "b x"]


def test_no_fragment_matches_gives_empty() -> None:
    assert selective_filter(DOC_FRAGMENTS, ["Rust"]) == []


def test_empty_fragment_list() -> None:
    assert selective_filter([], ["Docker"]) == []
