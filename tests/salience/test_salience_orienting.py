from __future__ import annotations

from heedful.salience import orienting_topics


def test_document_example_docker_follows_the_rules() -> None:
    # Document 003 §2 shows ["Docker", "configuration", "Nginx"], but by its rules "the" follows
    # "about" (a topic), Docker is capitalised and follows "the", Nginx follows "for", and
    # "configuration" follows "Docker", which is not a topic preposition.
    assert orienting_topics("Tell me about the Docker configuration for Nginx") == [
        "the",
        "Docker",
        "Nginx",
    ]


def test_document_example_server_down() -> None:
    # "The" starts the sentence (so it is not a capitalised topic) but is a preposition; "Fix"
    # starts a new sentence after "down!".
    assert orienting_topics("The server is down! Fix it immediately!") == ["server"]


def test_document_example_check_logs_gives_only_server() -> None:
    # Document 003's usage shows ["server", "error", "logs"]; by the rules only "server" (after
    # "the") is a topic: nothing is capitalised past the first word.
    assert orienting_topics("Check the server error logs") == ["server"]


def test_first_word_is_not_a_capitalised_topic() -> None:
    assert orienting_topics("Docker is slow") == []


def test_capitalised_word_mid_sentence_is_a_topic() -> None:
    assert orienting_topics("we run Kubernetes now") == ["Kubernetes"]


def test_word_after_sentence_end_is_a_sentence_start() -> None:
    assert orienting_topics("it broke. Docker is slow? Redis too! Kafka") == []


def test_comma_does_not_end_a_sentence() -> None:
    assert orienting_topics("it broke, Docker is slow") == ["Docker"]


def test_sentence_end_before_closing_quote_still_ends_the_sentence() -> None:
    assert orienting_topics('he said "stop." Docker then') == []


def test_preposition_match_ignores_case() -> None:
    assert orienting_topics("Ask ABOUT pricing") == ["ABOUT", "pricing"]


def test_word_after_preposition_keeps_its_case() -> None:
    assert orienting_topics("help with caching") == ["caching"]


def test_preposition_does_not_reach_across_a_sentence_end() -> None:
    assert orienting_topics("what is it for? something else") == []


def test_topic_is_stripped_of_punctuation() -> None:
    assert orienting_topics("help with caching, please") == ["caching"]


def test_duplicates_removed_case_insensitively_first_spelling_wins() -> None:
    assert orienting_topics("ask about docker and Docker then DOCKER") == ["docker"]


def test_topics_keep_text_order() -> None:
    assert orienting_topics("see Zed with alpha and Beta") == ["Zed", "alpha", "Beta"]


def test_empty_input_has_no_topics() -> None:
    assert orienting_topics("") == []


def test_punctuation_only_words_are_skipped() -> None:
    assert orienting_topics("talk about ; Redis") == ["Redis"]


def test_ellipsis_ends_a_sentence() -> None:
    # "..." ends in "." so the next word starts a sentence (a documented limitation).
    assert orienting_topics("talk ... Redis") == []


def test_pronoun_i_mid_sentence_is_a_topic_by_the_rule() -> None:
    # The capitalisation rule has no stop-list, so "I" is an entity to it.
    assert orienting_topics("can I go") == ["I"]
