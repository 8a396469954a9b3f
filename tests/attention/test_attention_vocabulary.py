from __future__ import annotations

from heedful.model.candidate import EventType, FailureCode, Floor

APPENDIX_A = [
    "candidate_created",
    "candidate_updated",
    "candidate_expired",
    "candidate_selected",
    "candidate_skipped",
    "inspection_started",
    "inspection_succeeded",
    "inspection_failed",
    "belief_changed",
    "belief_unchanged",
    "decision_changed",
    "decision_unchanged",
    "switch_requested",
    "switch_accepted",
    "switch_rejected",
    "attention_budget_exhausted",
    "attention_terminated_negative_voc",
    "validator_violation",
    "validator_rescue",
]

APPENDIX_B = [
    "ATTN_CANDIDATE_MISSING",
    "ATTN_SELECTION_WRONG",
    "ATTN_SWITCH_WRONG",
    "ATTN_STARVATION",
    "ATTN_OVERINSPECTION",
    "ATTN_UNDERINSPECTION",
    "ATTN_SALIENCE_CAPTURE",
    "ATTN_SUMMARY_SUBSTITUTION",
    "ATTN_STALE_STATE",
    "ATTN_SOURCE_AUTHORITY_NEGLECT",
    "RETRIEVAL_FAILED",
    "EVIDENCE_IGNORED",
    "REASONING_FAILED",
    "VALIDATOR_RESCUED",
]


def test_event_types_are_appendix_a_then_the_documented_extensions() -> None:
    values = [e.value for e in EventType]
    assert values[: len(APPENDIX_A)] == APPENDIX_A
    assert values[len(APPENDIX_A) :] == [
        "resolved",
        "attention_terminated_no_candidates",
        "anomaly_raised",
    ]


def test_failure_codes_are_exactly_appendix_b() -> None:
    assert [c.value for c in FailureCode] == APPENDIX_B


def test_floor_precedence_follows_declaration_order() -> None:
    assert [f.rank for f in Floor] == list(range(len(Floor)))
