from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from heedful.salience import (
    AttentionSystem,
    alerting_urgency,
    orienting_topics,
    selective_filter,
)

WORDS = st.sampled_from(
    ["the", "about", "Docker", "error", "down!", "logs", "Fix.", "with", "a", "URGENT", "!!", "x,"]
)
TEXTS = st.lists(WORDS, max_size=12).map(" ".join)


@settings(max_examples=60)
@given(st.text(max_size=60))
def test_urgency_is_within_unit_interval(text: str) -> None:
    assert 0.0 <= alerting_urgency(text) <= 1.0


@settings(max_examples=60)
@given(TEXTS)
def test_topics_are_unique_ignoring_case_and_come_from_the_text(text: str) -> None:
    topics = orienting_topics(text)
    assert len({t.lower() for t in topics}) == len(topics)
    assert all(t and t in text for t in topics)


@settings(max_examples=60)
@given(st.lists(TEXTS, max_size=6), st.lists(WORDS, max_size=4))
def test_filter_keeps_a_subsequence(fragments: list[str], topics: list[str]) -> None:
    kept = selective_filter(fragments, topics)
    it = iter(fragments)
    assert all(any(k == f for f in it) for k in kept)


@settings(max_examples=40)
@given(st.lists(TEXTS, min_size=1, max_size=5))
def test_history_call_matches_a_stateful_session(turns: list[str]) -> None:
    attn = AttentionSystem()
    states = [attn.process(t) for t in turns]
    replayed = AttentionSystem().process(turns[-1], history=turns[:-1])
    assert replayed == states[-1]


@settings(max_examples=40)
@given(st.lists(TEXTS, min_size=1, max_size=5))
def test_focus_grows_by_one_or_resets(turns: list[str]) -> None:
    attn = AttentionSystem()
    durations = [attn.process(t).focus_duration for t in turns]
    assert durations[0] == 1
    assert all(b in (1, a + 1) for a, b in itertools.pairwise(durations))
