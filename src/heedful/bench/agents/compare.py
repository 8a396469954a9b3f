"""Agents across models: the real-model table (``examples/real_models.py``, docs/llm.md).

Given the trial records of ``llm`` (no attention layer), ``llm-prompted`` (the prompt only,
document 000 §21), ``llm-advised`` (heedful) and the §26 revert run (``llm`` again, response
cache off: :data:`REVERT`) on several models (one run per model, the same generated
scenarios), :func:`compare_models` computes per model and agent the attention score, decision
accuracy, the spontaneous authoritative-inspection rate in the unprompted condition, the failure
split, the protocol-error rate, tokens and model time per trial; per model the paired lifts
``llm-prompted − llm`` and ``llm-advised − llm`` (same scenario, trial and world) and the §26
swap-and-revert steps (none → prompt → heedful → none again); and one cross-model comparison,
``small`` model with heedful (``llm-advised``) against ``large`` model without it (``llm``),
paired the same way. :func:`markdown_tables` prints them, with a plain verdict on each model
whose numbers say little (the rule is printed beside it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from heedful.bench.agents.aggregate import stage_of
from heedful.bench.config import DEFAULT_CONFIG, BenchConfig
from heedful.bench.results import TrialRecord
from heedful.bench.results.agents import STAGES
from heedful.bench.score.aggregate import cluster_diff, cluster_mean, informative_score
from heedful.bench.seeds import Stream, generator
from heedful.bench.stats import MeanCI, PairedDiff, Proportion, clustered_proportion

__all__ = [
    "REVERT",
    "AgentRow",
    "Comparison",
    "LiftRow",
    "ModelComparison",
    "SwapStep",
    "compare_models",
    "markdown_tables",
]

BASE, PROMPTED, ADVISED = "llm", "llm-prompted", "llm-advised"
#: The §26 revert run's ``llm`` (the same model and scenarios again, response cache off).
REVERT = "llm-revert"
#: A model's numbers "mean little" when, without heedful, fewer than this share of its trials
#: end in an accepted ``decide``, or at least this share end in a protocol error, or its
#: attention-score interval does not exclude random (0).
WEAK_PROTOCOL_SHARE = 0.5


@dataclass(frozen=True)
class AgentRow:
    """One agent on one model, over every trial of the run."""

    model: str
    policy: str
    n_trials: int
    decided: int  #: trials that ended in an accepted ``decide`` (the agent chose an action)
    score: MeanCI | None
    accuracy: Proportion
    authoritative: Proportion | None  #: unprompted trials only
    split: dict[str, int]
    protocol_errors: int
    error_codes: dict[str, int]
    prompt_tokens: float  #: per trial
    completion_tokens: float  #: per trial
    model_s: float  #: seconds the model took per trial (sum of its calls' latency)


@dataclass(frozen=True)
class Comparison:
    """Paired differences ``a − b`` over matched trials (scenario, trial, world)."""

    n_pairs: int
    score: PairedDiff | None
    accuracy: PairedDiff | None
    authoritative: PairedDiff | None  #: unprompted pairs only


@dataclass(frozen=True)
class LiftRow:
    """``agent − llm`` on one model (``agent``: ``llm-prompted`` or ``llm-advised``)."""

    model: str
    lift: Comparison
    agent: str = ADVISED


@dataclass(frozen=True)
class SwapStep:
    """One step of the §26 cross-component experiment on one model: the attention layer
    swapped from ``before`` to ``after`` (the model frozen), paired ``after − before``."""

    model: str
    before: str
    after: str
    change: Comparison


#: The §26 steps, in order: none → prompt → heedful → none again (the revert run, fresh calls),
#: and the revert against the first run of none (the movement reversed: about 0).
SWAPS = (
    (BASE, PROMPTED),
    (PROMPTED, ADVISED),
    (ADVISED, REVERT),
    (BASE, REVERT),
)


@dataclass
class ModelComparison:
    """Everything the real-model table prints."""

    rows: list[AgentRow] = field(default_factory=list)
    lifts: list[LiftRow] = field(default_factory=list)
    swaps: list[SwapStep] = field(default_factory=list)
    #: ``(small, large, small+heedful − large alone)`` when both models ran.
    cross: tuple[str, str, Comparison] | None = None
    weak: dict[str, str] = field(default_factory=dict)  #: model -> why its numbers mean little


def _unprompted(t: TrialRecord) -> bool:
    return t.initiation is not None and t.initiation.scenario_condition == "unprompted"


def _authoritative(t: TrialRecord) -> float | None:
    if not _unprompted(t):
        return None
    assert t.initiation is not None
    return 1.0 if t.initiation.authoritative_inspected else 0.0


def _row(model: str, policy: str, trials: list[TrialRecord], config: BenchConfig) -> AgentRow:
    rng = generator(0, Stream.STATS)
    unprompted = [t for t in trials if _unprompted(t)]
    split = Counter(stage_of(t) for t in trials)
    codes = Counter((t.protocol_error or "").split(":")[0] for t in trials if t.protocol_error)
    usages = [t.usage for t in trials if t.usage is not None]
    n = len(trials)
    return AgentRow(
        model=model,
        policy=policy,
        n_trials=n,
        decided=sum(1 for t in trials if t.action is not None),
        score=cluster_mean(trials, informative_score, rng, config),
        accuracy=clustered_proportion(
            [t.action_correct for t in trials], [t.scenario_id for t in trials], config.ci_level
        ),
        authoritative=clustered_proportion(
            [bool(_authoritative(t)) for t in unprompted],
            [t.scenario_id for t in unprompted],
            config.ci_level,
        )
        if unprompted
        else None,
        split={s: split.get(s, 0) for s in STAGES},
        protocol_errors=sum(codes.values()),
        error_codes=dict(codes.most_common()),
        prompt_tokens=sum(u.prompt_tokens for u in usages) / n if n else 0.0,
        completion_tokens=sum(u.completion_tokens for u in usages) / n if n else 0.0,
        model_s=sum(u.latency_s for u in usages) / n if n else 0.0,
    )


def _pairs(
    a: Sequence[TrialRecord], b: Sequence[TrialRecord]
) -> list[tuple[TrialRecord, TrialRecord]]:
    """Trials of ``a`` and ``b`` on the same scenario, trial and world, attention mode."""
    index = {(t.scenario_id, t.trial): t for t in b if t.mode == "attention"}
    out = []
    for t in a:
        other = index.get((t.scenario_id, t.trial))
        if t.mode == "attention" and other is not None and other.world == t.world:
            out.append((t, other))
    return out


def _compare(pairs: list[tuple[TrialRecord, TrialRecord]], config: BenchConfig) -> Comparison:
    rng = generator(0, Stream.STATS)
    return Comparison(
        n_pairs=len(pairs),
        score=cluster_diff(pairs, informative_score, rng, config),
        accuracy=cluster_diff(pairs, lambda t: float(t.action_correct), rng, config),
        authoritative=cluster_diff(pairs, _authoritative, rng, config),
    )


def _weakness(base: AgentRow) -> str | None:
    reasons = []
    if base.n_trials and base.decided / base.n_trials < WEAK_PROTOCOL_SHARE:
        reasons.append(
            f"alone it chose an action (an accepted decide) in {base.decided} of its "
            f"{base.n_trials} trials"
        )
    if base.n_trials and base.protocol_errors / base.n_trials >= WEAK_PROTOCOL_SHARE:
        reasons.append(
            f"{base.protocol_errors} of its {base.n_trials} trials alone end in a protocol "
            "error (it rarely follows the tool protocol)"
        )
    if base.score is None or base.score.lo <= 0.0:
        reasons.append("its score alone is not above random (the interval reaches 0 or below)")
    return "; ".join(reasons) or None


def compare_models(
    trials: Mapping[str, Sequence[TrialRecord]],
    *,
    small: str | None = None,
    large: str | None = None,
    config: BenchConfig = DEFAULT_CONFIG,
) -> ModelComparison:
    """The real-model table from each model's trial records (``{model: records}``).

    ``small`` and ``large`` name the cross comparison (``small``'s ``llm-advised`` against
    ``large``'s ``llm``); it is left out when either has no records.
    """
    out = ModelComparison()
    for model, records in trials.items():
        by_policy = {
            p: [t for t in records if t.policy == p] for p in (BASE, PROMPTED, ADVISED, REVERT)
        }
        for policy, theirs in by_policy.items():
            if theirs:
                out.rows.append(_row(model, policy, theirs, config))
        for agent in (PROMPTED, ADVISED):
            if by_policy[BASE] and by_policy[agent]:
                pairs = _pairs(by_policy[agent], by_policy[BASE])
                out.lifts.append(LiftRow(model, _compare(pairs, config), agent))
        for before, after in SWAPS:
            if by_policy[before] and by_policy[after]:
                pairs = _pairs(by_policy[after], by_policy[before])
                out.swaps.append(SwapStep(model, before, after, _compare(pairs, config)))
        base = next((r for r in out.rows if r.model == model and r.policy == BASE), None)
        if base is not None and (why := _weakness(base)) is not None:
            out.weak[model] = why
    if small is not None and large is not None and small in trials and large in trials:
        a = [t for t in trials[small] if t.policy == ADVISED]
        b = [t for t in trials[large] if t.policy == BASE]
        if a and b:
            out.cross = (small, large, _compare(_pairs(a, b), config))
    return out


# -- markdown ---------------------------------------------------------------------------


def _num(x: float, digits: int = 1) -> str:
    return f"{x:.{digits}f}".replace("-", "−")


def _ci(m: MeanCI | PairedDiff | None, *, signed: bool = False, pct: bool = False) -> str:
    if m is None:
        return "—"
    k = 100.0 if pct else 1.0
    mean = f"{m.mean * k:+.1f}" if signed else f"{m.mean * k:.1f}"
    return f"{mean} [{m.lo * k:.1f}, {m.hi * k:.1f}]".replace("-", "−")


def _prop(p: Proportion | None) -> str:
    if p is None or p.p is None:
        return "—"
    return f"{p.p * 100:.0f}% [{p.lo * 100:.0f}, {p.hi * 100:.0f}] ({p.k}/{p.n})"


def _verdict(d: PairedDiff | None, *, answer: bool = True) -> str:
    """``yes`` / ``no`` by the paired interval; ``answer=False``: only where the interval lies."""
    if d is None:
        return "not measured (no pairs)"
    if d.lo > 0:
        return "yes" if answer else "above 0"
    if d.hi < 0:
        return "no — it does worse" if answer else "below 0"
    return "not separated" if answer else "not separated from 0"


def _split(row: AgentRow) -> str:
    return " / ".join(str(row.split[s]) for s in STAGES)


_LAYER = {BASE: "none", PROMPTED: "prompt", ADVISED: "heedful", REVERT: "none again"}


def _moved(d: PairedDiff | None) -> str:
    return _verdict(d, answer=False)


def _answers(result: ModelComparison, names: Mapping[str, str]) -> list[str]:
    """Per model: does heedful lift the score, the unprompted authoritative reads and the
    decision accuracy? Does the prompt alone? (by the paired intervals)."""
    out = []
    for lr in result.lifts:
        c, who = lr.lift, "heedful" if lr.agent == ADVISED else "the prompt alone"
        weak = " (a model too weak for this to mean much, below)" if lr.model in result.weak else ""
        out.append(
            f"**{names.get(lr.model, lr.model)}, {who} (`{lr.agent}` − `llm`){weak}:** "
            f"score {_moved(c.score)}, spontaneous authoritative inspection when unprompted "
            f"{_moved(c.authoritative)}, decision accuracy {_moved(c.accuracy)} "
            f"({c.n_pairs} pairs)."
        )
        out.append("")
    return out


def _swap_lines(result: ModelComparison, names: Mapping[str, str]) -> list[str]:
    """Document 000 §26: the model frozen, the attention layer swapped none → prompt →
    heedful, then reverted (the revert run makes every call afresh); paired steps."""
    out = [
        "Document 000 [§26](design.md#d000-26), swap and revert: the model frozen, only the "
        "attention layer swapped "
        "(none → prompt → heedful), then reverted to none in a second run with the response "
        "cache off; each step paired by scenario, trial and world (points, 95% intervals):",
        "",
        "| model | step | pairs | score | decision accuracy | authoritative read (unprompted) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for step in result.swaps:
        c = step.change
        label = f"{_LAYER[step.before]} → {_LAYER[step.after]}"
        if (step.before, step.after) == (BASE, REVERT):
            label = "none again − none (the revert lands where it started)"
        out.append(
            f"| {names.get(step.model, step.model)} | {label} | {c.n_pairs} | "
            f"{_ci(c.score, signed=True)} | {_ci(c.accuracy, signed=True, pct=True)} | "
            f"{_ci(c.authoritative, signed=True, pct=True)} |"
        )
    out.append("")
    by = {(s.model, s.before, s.after): s.change for s in result.swaps}
    for model in dict.fromkeys(s.model for s in result.swaps):
        lift = next((r.lift for r in result.lifts if r.model == model and r.agent == ADVISED), None)
        back = by.get((model, ADVISED, REVERT))
        home = by.get((model, BASE, REVERT))
        if lift is None or back is None or home is None or lift.score is None:
            continue
        moved = lift.score.lo > 0 or lift.score.hi < 0
        landed = home.score is not None and home.score.lo <= 0 <= home.score.hi
        name = names.get(model, model)
        if home.n_pairs != lift.n_pairs or back.n_pairs != lift.n_pairs:
            verdict = (
                f"not judged: the revert run covers {home.n_pairs} of the {lift.n_pairs} pairs "
                "heedful was measured on"
            )
        elif not moved:
            verdict = (
                "heedful did not move the score (its interval covers 0), so there is no "
                "movement to reverse"
            )
        elif landed:
            verdict = "the movement reverses: the revert run is back where `llm` started"
        else:
            verdict = "the movement does not reverse: the revert run differs from `llm`"
        out += [f"**{name}, [§26](design.md#d000-26):** {verdict}.", ""]
    return out


def markdown_tables(result: ModelComparison, *, names: Mapping[str, str], full: bool) -> str:
    """The tables as markdown. ``names``: display name per model. ``full``: docs/llm.md's
    version (split, tokens, time, error codes); otherwise the README's short one."""
    lift_of = {(r.model, r.agent): r.lift for r in result.lifts}
    lines: list[str] = []
    if full:
        lines += [
            "| model | agent | trials | decided | score [95% CI] | decision accuracy | "
            "spontaneous authoritative inspection (unprompted) | lift in score (paired) | "
            "split: " + " / ".join(STAGES) + " | protocol errors | prompt tok/trial | "
            "completion tok/trial | model s/trial |",
            "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|",
        ]
    else:
        lines += [
            "| model | agent | decided | score [95% CI] | lift (paired) | decision accuracy | "
            "authoritative read, unprompted | protocol errors |",
            "|---|---|---:|---:|---:|---:|---:|---:|",
        ]
    for row in result.rows:
        name = names.get(row.model, row.model)
        lift = lift_of.get((row.model, row.policy))
        lift_text = _ci(lift.score, signed=True) if lift else ""
        errors = f"{row.protocol_errors}/{row.n_trials}"
        decided = f"{row.decided}/{row.n_trials}"
        if full:
            lines.append(
                f"| {name} | `{row.policy}` | {row.n_trials} | {decided} | {_ci(row.score)} | "
                f"{_prop(row.accuracy)} | {_prop(row.authoritative)} | {lift_text} | "
                f"{_split(row)} | {errors} | {row.prompt_tokens:,.0f} | "
                f"{row.completion_tokens:,.0f} | {row.model_s:,.0f} |"
            )
        else:
            lines.append(
                f"| {name} | `{row.policy}` | {decided} | {_ci(row.score)} | {lift_text} | "
                f"{_prop(row.accuracy)} | {_prop(row.authoritative)} | {errors} |"
            )
    lines.append("")
    if full:
        lines += [
            "Lifts over `llm` (the same model, no attention layer), paired by scenario, trial "
            "and world (95% bootstrap intervals over scenarios; accuracy and authoritative reads "
            "in points):",
            "",
            "| model | agent − `llm` | pairs | score | decision accuracy | "
            "authoritative read (unprompted) |",
            "|---|---|---:|---:|---:|---:|",
        ]
        for lr in result.lifts:
            c = lr.lift
            lines.append(
                f"| {names.get(lr.model, lr.model)} | `{lr.agent}` | {c.n_pairs} | "
                f"{_ci(c.score, signed=True)} | {_ci(c.accuracy, signed=True, pct=True)} | "
                f"{_ci(c.authoritative, signed=True, pct=True)} |"
            )
        lines.append("")
        lines += _answers(result, names)
        if result.swaps:
            lines += _swap_lines(result, names)
        codes = [
            f"{names.get(r.model, r.model)} `{r.policy}`: "
            + ", ".join(f"`{k}` {v}" for k, v in r.error_codes.items())
            for r in result.rows
            if r.error_codes
        ]
        if codes:
            lines += [
                "Protocol errors by code (the first per trial): " + "; ".join(codes) + ".",
                "",
            ]
    if result.cross is not None:
        small, large, c = result.cross
        s, g = names.get(small, small), names.get(large, large)
        caveat = ""
        if small in result.weak or large in result.weak:
            weak = [names.get(m, m) for m in (small, large) if m in result.weak]
            caveat = (
                "Not answerable on these models: "
                + " and ".join(weak)
                + (" is" if len(weak) == 1 else " are")
                + " too weak (below), so the paired figures are recorded, not a finding. "
            )
        answer = not caveat
        lines.append(
            f"**Does {s} with heedful beat {g} without it?** {caveat}Score: "
            f"{_verdict(c.score, answer=answer)} ({s} `llm-advised` − {g} `llm` = "
            f"{_ci(c.score, signed=True)}, {c.n_pairs} pairs); decision accuracy: "
            f"{_verdict(c.accuracy, answer=answer)} ({_ci(c.accuracy, signed=True, pct=True)} "
            "points)."
        )
        lines.append("")
    for model, why in result.weak.items():
        lines += [
            f"**{names.get(model, model)} is too weak for its numbers to mean much:** {why}.",
            "",
        ]
    return "\n".join(lines).rstrip() + "\n"
