"""Agent aggregates: failure split per mode, rescue rate, the controller's lift, usage.

* **modes** — per (family label, policy, mode): attention score, decision accuracy, net utility
  of the agent's own action, and the failure split (first failing stage, document 000 §13);
* **rescue** — per (family label, agent) run in both modes: ``P(production correct ∧
  attention-only wrong)`` over the pairs sharing scenario, trial and world (document 000 §17.3),
  with a Wilson interval clustered by scenario;
* **lift** — ``llm-advised − llm`` (every ``X-advised`` agent against ``X``) on matched trials:
  attention score, decision accuracy and the spontaneous authoritative-inspection rate;
* **usage** — calls, cached calls, tokens, errors, mean latency and flagged trials per agent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from heedful.bench.config import BenchConfig
from heedful.bench.results import ALL_FAMILIES, TrialRecord
from heedful.bench.results.agents import (
    PRODUCTION_SUFFIX,
    STAGES,
    AgentAggregates,
    LiftRow,
    ModeRow,
    RescueRow,
    UsageRow,
)
from heedful.bench.score.aggregate import cluster_diff, cluster_mean, informative_score
from heedful.bench.seeds import Stream, generator
from heedful.bench.stats import clustered_proportion

__all__ = ["ENDPOINT_ERRORS", "agent_aggregates", "stage_of"]

#: Protocol errors meaning the endpoint, not the model, failed (a trial with one and no action
#: is in the split's ``endpoint`` bucket: the model never answered).
ENDPOINT_ERRORS = ("endpoint_error", "endpoint_timeout", "endpoint_down", "bad_response")


def stage_of(record: TrialRecord) -> str:
    """The split bucket of a trial: its first failing stage, ``endpoint`` when the model never
    answered (no action, the endpoint failed), or ``pass``."""
    error = record.protocol_error or ""
    if record.action is None and error.startswith(ENDPOINT_ERRORS):
        return "endpoint"
    return record.stage.value if record.stage is not None else "pass"


def _groups(trials: Sequence[TrialRecord]) -> list[tuple[str, list[TrialRecord]]]:
    families = sorted({t.family for t in trials})
    # "all" is always there (with one family it repeats it) so a report can always ask for it.
    return [(f, [t for t in trials if t.family == f]) for f in families] + [
        (ALL_FAMILIES, list(trials))
    ]


def _mode_row(
    family: str, policy: str, mode: str, trials: list[TrialRecord], config: BenchConfig, seed: int
) -> ModeRow:
    rng = generator(seed, Stream.STATS)
    score = cluster_mean(trials, informative_score, rng, config)
    net = cluster_mean(trials, lambda t: t.net_utility, rng, config)
    assert net is not None
    split = Counter(stage_of(t) for t in trials)
    return ModeRow(
        family=family,
        policy=policy,
        mode=mode,
        n_trials=len(trials),
        score=score,
        action_correct=clustered_proportion(
            [t.action_correct for t in trials], [t.scenario_id for t in trials], config.ci_level
        ),
        net_utility=net,
        protocol_errors=sum(1 for t in trials if t.protocol_error is not None),
        decided=sum(1 for t in trials if t.action is not None),
        forced_reads=sum(len(t.forced_inspections) for t in trials),
        split={s: split.get(s, 0) for s in STAGES},
    )


def _rescue_row(
    family: str, policy: str, trials: list[TrialRecord], config: BenchConfig, seed: int
) -> RescueRow | None:
    by_mode = {(t.mode, t.scenario_id, t.trial): t for t in trials}
    pairs = [
        (t, by_mode[("production", t.scenario_id, t.trial)])
        for t in trials
        if t.mode == "attention" and ("production", t.scenario_id, t.trial) in by_mode
    ]
    if not pairs:
        return None
    clusters = [a.scenario_id for a, _ in pairs]
    level = config.ci_level
    rng = generator(seed, Stream.STATS)
    return RescueRow(
        family=family,
        policy=policy,
        n_pairs=len(pairs),
        rescue=clustered_proportion(
            [p.action_correct and not a.action_correct for a, p in pairs], clusters, level
        ),
        attention_correct=clustered_proportion(
            [a.action_correct for a, _ in pairs], clusters, level
        ),
        production_correct=clustered_proportion(
            [p.action_correct for _, p in pairs], clusters, level
        ),
        net_utility=cluster_diff([(p, a) for a, p in pairs], lambda t: t.net_utility, rng, config),
    )


def _authoritative(t: TrialRecord) -> float | None:
    if t.initiation is None:
        return None
    return 1.0 if t.initiation.authoritative_inspected else 0.0


def _lift_row(
    family: str,
    mode: str,
    base: str,
    advised: str,
    trials: list[TrialRecord],
    config: BenchConfig,
    seed: int,
) -> LiftRow | None:
    key = {(t.policy, t.scenario_id, t.trial): t for t in trials if t.mode == mode}
    pairs = [
        (t, key[(base, t.scenario_id, t.trial)])
        for t in trials
        if t.mode == mode and t.policy == advised and (base, t.scenario_id, t.trial) in key
    ]
    if not pairs:
        return None
    rng = generator(seed, Stream.STATS)
    return LiftRow(
        family=family,
        mode=mode,
        base=base,
        advised=advised,
        n_pairs=len(pairs),
        score=cluster_diff(pairs, informative_score, rng, config),
        action_correct=cluster_diff(pairs, lambda t: float(t.action_correct), rng, config),
        authoritative_rate=cluster_diff(pairs, _authoritative, rng, config),
    )


def _usage_row(policy: str, trials: list[TrialRecord]) -> UsageRow:
    usages = [t.usage for t in trials if t.usage is not None]
    calls = sum(u.calls for u in usages)
    live = calls - sum(u.cached_calls for u in usages)
    latency = sum(u.latency_s for u in usages)
    return UsageRow(
        policy=policy,
        trials=len(trials),
        calls=calls,
        cached_calls=sum(u.cached_calls for u in usages),
        prompt_tokens=sum(u.prompt_tokens for u in usages),
        completion_tokens=sum(u.completion_tokens for u in usages),
        errors=sum(u.errors for u in usages),
        mean_latency_s=latency / live if live else None,
        flagged=sum(1 for t in trials if t.protocol_error is not None),
    )


def agent_aggregates(
    trials: Sequence[TrialRecord], agents: Sequence[str], config: BenchConfig, seed: int
) -> AgentAggregates:
    """Aggregate the records of the agents ``agents`` (other records are ignored)."""
    # Production-mode trials may carry the table suffix (``llm@production``); their mode says it.
    mine = [
        t.model_copy(update={"policy": t.policy.removesuffix(PRODUCTION_SUFFIX)})
        for t in trials
        if t.policy.removesuffix(PRODUCTION_SUFFIX) in agents
    ]
    out = AgentAggregates()
    if not mine:
        return out
    modes = sorted({t.mode for t in mine})
    for family, group in _groups(mine):
        for policy in agents:
            theirs = [t for t in group if t.policy == policy]
            for mode in modes:
                in_mode = [t for t in theirs if t.mode == mode]
                if in_mode:
                    out.modes.append(_mode_row(family, policy, mode, in_mode, config, seed))
            if (row := _rescue_row(family, policy, theirs, config, seed)) is not None:
                out.rescue.append(row)
        for advised in agents:
            base = advised.removesuffix("-advised")
            if base == advised or base not in agents:
                continue
            for mode in modes:
                lift = _lift_row(family, mode, base, advised, group, config, seed)
                if lift is not None:
                    out.lift.append(lift)
    out.usage = [_usage_row(p, [t for t in mine if t.policy == p]) for p in agents]
    return out
