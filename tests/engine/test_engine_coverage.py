"""Coverage calculator: components, decision bands, configuration as data."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from heedful.engine.config import CoverageConfig, CoverageWeights
from heedful.engine.coverage import assess, terms
from heedful.engine.records import EdgeRecord, NodeRecord, OutcomeRecord
from heedful.model import EdgeType, OutcomeStatus

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _node(i: str, content: str, conf: float = 0.95, age_h: float = 1.0) -> NodeRecord:
    return NodeRecord(
        id=i, content=content, confidence=conf, updated_at=NOW - timedelta(hours=age_h)
    )


def _strong_region() -> tuple[list[NodeRecord], list[EdgeRecord]]:
    nodes = [
        _node("a", "deploy pipeline green"),
        _node("b", "pipeline release checklist"),
        _node("c", "deploy window approved"),
    ]
    edges = [EdgeRecord("a", "b", EdgeType.SUPPORTS), EdgeRecord("b", "c", EdgeType.SUPPORTS)]
    return nodes, edges


def test_strong_fresh_consistent_region_acts() -> None:
    nodes, edges = _strong_region()
    outcomes = [
        OutcomeRecord(OutcomeStatus.SUCCESS, 1.0),
        OutcomeRecord(OutcomeStatus.SUCCESS, 0.9),
    ]
    cov = assess("deploy pipeline", nodes, edges, outcomes, now=NOW)
    assert cov.decision == "act"
    assert cov.coverage_score >= 0.72
    assert cov.uncertainty_score <= 0.35
    assert cov.risk_score <= 0.45


def test_empty_region_escalates_and_says_why() -> None:
    cov = assess("reduce churn", [], [], [], now=NOW)
    assert cov.decision == "escalate"
    assert any("no knowledge" in r for r in cov.rationale)
    assert "unknown: churn" in cov.gaps


def test_partial_knowledge_falls_in_learn_band() -> None:
    nodes = [_node("a", "churn rose in march", 0.8), _node("b", "churn survey", 0.7)]
    cov = assess(
        "reduce churn pricing", nodes, [EdgeRecord("a", "b", EdgeType.SUPPORTS)], [], now=NOW
    )
    assert cov.decision == "learn"
    assert "unknown: pricing" in cov.gaps


def test_contradictions_lower_consistency_and_raise_risk() -> None:
    nodes, edges = _strong_region()
    calm = assess("deploy pipeline", nodes, edges, [], now=NOW)
    contested = assess(
        "deploy pipeline", nodes, [*edges, EdgeRecord("a", "c", EdgeType.CONTRADICTS)], [], now=NOW
    )
    assert contested.components["consistency"] < calm.components["consistency"]
    assert contested.risk_score > calm.risk_score
    assert any(g.startswith("contested:") for g in contested.gaps)


def test_stale_nodes_lower_freshness() -> None:
    fresh = assess("deploy", [_node("a", "deploy", age_h=1)], [], [], now=NOW)
    stale = assess("deploy", [_node("a", "deploy", age_h=24 * 90)], [], [], now=NOW)
    assert stale.components["freshness"] < fresh.components["freshness"]
    assert "stale: a" in stale.gaps


def test_failed_outcomes_lower_reliability_and_raise_risk() -> None:
    nodes, edges = _strong_region()
    good = assess("deploy", nodes, edges, [OutcomeRecord(OutcomeStatus.SUCCESS)], now=NOW)
    bad = assess("deploy", nodes, edges, [OutcomeRecord(OutcomeStatus.FAILURE)], now=NOW)
    assert bad.components["outcome_reliability"] < good.components["outcome_reliability"]
    assert bad.risk_score > good.risk_score


def test_weights_are_configuration_data() -> None:
    nodes, edges = _strong_region()
    only_semantic = CoverageConfig(
        weights=CoverageWeights(
            semantic=1.0, consistency=0.0, freshness=0.0, graph_support=0.0, outcome_reliability=0.0
        )
    )
    cov = assess("deploy zebra", nodes, edges, [], now=NOW, config=only_semantic)
    assert cov.coverage_score == cov.components["semantic"]


def test_terms_drop_stopwords_and_short_words() -> None:
    assert terms("Increase the Q2 market share of our app") == [
        "increase",
        "market",
        "share",
        "app",
    ]


_conf = st.floats(min_value=0.0, max_value=1.0)


@settings(max_examples=60, deadline=None)
@given(
    confs=st.lists(_conf, max_size=6),
    ages=st.lists(st.floats(min_value=0, max_value=5000), min_size=6, max_size=6),
    n_contra=st.integers(0, 3),
    statuses=st.lists(st.sampled_from(list(OutcomeStatus)), max_size=4),
)
def test_scores_stay_in_unit_interval_and_match_weighted_sum(
    confs: list[float], ages: list[float], n_contra: int, statuses: list[OutcomeStatus]
) -> None:
    nodes = [_node(f"n{i}", f"deploy item{i}", c, ages[i]) for i, c in enumerate(confs)]
    edges = [
        EdgeRecord(f"n{i}", f"n{i + 1}", EdgeType.CONTRADICTS)
        for i in range(min(n_contra, len(nodes) - 1))
    ]
    cov = assess("deploy", nodes, edges, [OutcomeRecord(s) for s in statuses], now=NOW)
    for value in (
        cov.coverage_score,
        cov.uncertainty_score,
        cov.risk_score,
        cov.decision_confidence,
    ):
        assert 0.0 <= value <= 1.0
    w = CoverageWeights()
    c = cov.components
    expected = (
        w.semantic * c["semantic"]
        + w.consistency * c["consistency"]
        + w.freshness * c["freshness"]
        + w.graph_support * c["graph_support"]
        + w.outcome_reliability * c["outcome_reliability"]
    )
    assert abs(cov.coverage_score - expected) < 1e-5
    assert cov.decision in {"act", "learn", "escalate"}


def test_the_rationale_names_a_bounded_number_of_missing_terms() -> None:
    # A goal's text may be long (and hostile): the line listing its missing terms must not
    # grow with it — the survey returns it for every goal.
    words = " ".join(f"word{i:04d}" for i in range(2000)) + " " + "x" * 9000
    result = assess(words, [], [], [], now=datetime(2026, 1, 1, tzinfo=UTC))
    line = next(r for r in result.rationale if "goal terms known" in r)
    assert line.startswith("0 of 2001 goal terms known (missing: word0000, word0001")
    assert line.endswith(" and 1991 more)")
    assert len(line) < 300
    assert sum(len(r) for r in result.rationale) < 1000
