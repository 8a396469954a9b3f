"""The ``heedful.results/v2`` file: manifest, per-scenario oracle summary, trials, aggregates."""

from __future__ import annotations

import gzip
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    SerializeAsAny,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)

from heedful.bench.results._trial import ScoredTrial, TrialKey
from heedful.bench.results.agents import AgentAggregates
from heedful.bench.results.calibration import CalibrationRow
from heedful.bench.results.kinds import KindPairedRow, KindResults, KindRow, kind_records
from heedful.bench.stats import MeanCI, PairedDiff, Proportion, Transitions
from heedful.errors import InputError, InvalidArgumentError
from heedful.model.documents import RESULTS_LIMITS, read_bounded, read_document

RESULTS_FORMAT: Literal["heedful.results/v2"] = "heedful.results/v2"
#: Older formats that still load (v1 kept the D/J rows in ``kinds``; they move to ``aggregates``).
READABLE_FORMATS = ("heedful.results/v1", RESULTS_FORMAT)
ALL_FAMILIES = "all"
#: gzip level of the trial records file: 6 is within a few % of 9's size at a fraction of its time.
_GZIP_LEVEL = 6


class FailureCode(StrEnum):
    """The failure codes of document 000 Appendix B (definitions: docs/metrics.md)."""

    CANDIDATE_MISSING = "ATTN_CANDIDATE_MISSING"
    SELECTION_WRONG = "ATTN_SELECTION_WRONG"
    SWITCH_WRONG = "ATTN_SWITCH_WRONG"
    STARVATION = "ATTN_STARVATION"
    OVERINSPECTION = "ATTN_OVERINSPECTION"
    UNDERINSPECTION = "ATTN_UNDERINSPECTION"
    SALIENCE_CAPTURE = "ATTN_SALIENCE_CAPTURE"
    SUMMARY_SUBSTITUTION = "ATTN_SUMMARY_SUBSTITUTION"
    STALE_STATE = "ATTN_STALE_STATE"
    SOURCE_AUTHORITY_NEGLECT = "ATTN_SOURCE_AUTHORITY_NEGLECT"
    RETRIEVAL_FAILED = "RETRIEVAL_FAILED"
    EVIDENCE_IGNORED = "EVIDENCE_IGNORED"
    REASONING_FAILED = "REASONING_FAILED"
    VALIDATOR_RESCUED = "VALIDATOR_RESCUED"


class Stage(StrEnum):
    """The stage of document 000 §13 (with §18's generation/selection split) a trial failed at.

    Stages are judged in this order and the first failure wins.
    """

    INITIATION = "initiation"
    SELECTION = "selection"
    RETRIEVAL = "retrieval"
    EVIDENCE = "evidence"
    REASONING = "reasoning"


class AgentUsage(BaseModel):
    """Model usage of one agent trial (LLM agents; ``None`` for programmatic policies).

    The agents count into it as a trial runs (``CallStats`` of
    :mod:`heedful.bench.agents.contract` is this record) and a run's totals are sums of it.
    """

    model_config = ConfigDict(extra="forbid")

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    errors: int = 0
    cached_calls: int = 0

    def add(self, other: AgentUsage) -> None:
        """Accumulate ``other`` into this record."""
        self.calls += other.calls
        self.cached_calls += other.cached_calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.latency_s += other.latency_s
        self.errors += other.errors


class Violation(StrEnum):
    """Ways a policy can break the protocol; the runner stops it and flags the trial."""

    OVER_BUDGET = "over_budget"
    UNKNOWN_SOURCE = "unknown_source"
    REPEATED_SOURCE = "repeated_source"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PolicySpec(_Model):
    """A policy by registered name and constructor parameters."""

    name: str
    params: dict[str, Any] = Field(default_factory=dict)


class Manifest(_Model):
    """Everything needed to reproduce or audit a run (document 000 §22.2)."""

    heedful_version: str
    git_commit: str | None
    git_dirty: bool | None
    python: str
    numpy: str
    pydantic: str
    platform: str
    created_utc: str
    seed: int
    condition: Literal["static", "adaptive"]
    trials: int
    policies: list[PolicySpec]
    policy_config_hash: str
    scenario_source: str
    generator_versions: dict[str, str]
    scenario_set_hash: str
    n_scenarios: int
    config: dict[str, Any]
    #: Agents under test (SPEC §5.1): per agent its model, endpoint host, sampling settings,
    #: prompt-template and tool-schema hashes; the validator mode(s). Never a key.
    agent: dict[str, Any] | None = None
    #: The :class:`~heedful.bench.run.spec.RunSpec` of the run (without its config, above).
    run_spec: dict[str, Any] | None = None


class ScenarioSummary(_Model):
    """The oracle's view of one scenario, computed once per run."""

    id: str
    family: str
    n_sources: int
    budget: int
    v_star: float
    u_random: float
    v_empty: float
    critical: list[str]
    n_optimal_sets: int
    uninformative: bool
    adaptive_v_star: float | None = None


class InitiationMetrics(_Model):
    """Document 000 §15.2 metrics of one trial, judged on the evaluator side (docs/metrics.md).

    ``authoritative`` is derived from the scenario's PRIVATE truth (the most accurate sources
    reporting a state-sensitive variable); it is written here, never shown to a policy.
    """

    scenario_condition: Literal["announced", "unprompted"]
    state_variables: list[str]
    authoritative: list[str]
    authoritative_inspected: bool
    inspections_before_authoritative: int | None
    cost_before_authoritative: float | None
    claimed: dict[str, str]
    claim_correct: bool
    summary_contradicted: bool
    summary_substituted: bool
    evidence_age_s: float | None


class _InspectionHead(TrialKey):
    """The fields an inspection trial record has before its score (in the file too)."""

    condition: Literal["static", "adaptive"]
    mode: Literal["attention", "production"] = "attention"
    world: dict[str, str]
    inspected: list[str]
    failed_inspections: list[str]
    violation: Violation | None


class TrialRecord(ScoredTrial, _InspectionHead):
    """One policy on one scenario in one trial (see docs/metrics.md for every field).

    In the adaptive condition ``value``, ``v_star``, ``regret``, ``score`` and ``optimal`` are the
    adaptive ones (the policy as a policy, against ``V*_adaptive``); the static valuation of the
    realized set is kept in the ``static_*`` fields. Bases in this order keep the file's field
    order: the key and the inspection head, then the score, then the fields below (see
    :mod:`heedful.bench.results._trial`).
    """

    #: ``exact`` (static set value, or a deterministic policy's exact adaptive value), ``set``
    #: (adaptive, a randomised policy blind to its observations: V(S) of its realized set, exact
    #: given its choices) or ``estimate`` (adaptive, randomised: the trial's posterior value).
    value_kind: Literal["exact", "set", "estimate"] = "exact"
    static_value: float | None = None
    static_regret: float | None = None
    static_score: float | None = None
    #: Who chose the final action: the runner (Bayes-best on the posterior) or the agent.
    decided_by: Literal["runner", "agent"] = "runner"
    action: str | None
    utility: float
    inspection_cost: float
    #: Unweighted Σ scalar cost (tool_calls + tokens/1000 + latency_ms/1000) of the inspections.
    inspection_compute: float | None = None
    net_utility: float
    action_correct: bool
    #: The action is the Bayes-best action given what the agent observed.
    action_rational: bool = True
    beliefs: dict[str, str] | None = None
    forced_inspections: list[str] = Field(default_factory=list)
    #: Production mode (document 000 Appendix D): the static score of every read, spontaneous
    #: and validator-forced, ``100·(V(S ∪ F) − U_random)/(V* − U_random)`` (forced reads are
    #: outside the budget, so it may exceed 100); ``None`` in attention mode or uninformative.
    production_score: float | None = None
    protocol_error: str | None = None
    critical_recall: float | None
    closest_optimal_set: list[str] = Field(default_factory=list)
    missing_critical: list[str]
    precision: float | None
    first_critical_at: int | None
    distractor_inspections: int
    #: Controller policies: sources that became an inspection candidate (``None``: not known).
    candidates: list[str] | None = None
    candidate_recall: float | None = None
    selected_given_generated: float | None = None
    stage: Stage | None = None
    failure: FailureCode | None
    codes: list[FailureCode] = Field(default_factory=list)
    rescued: bool = False
    adaptive_value: float | None = None
    adaptive_regret: float | None = None
    initiation: InitiationMetrics | None = None
    usage: AgentUsage | None = None


_AGENT_COUNTS = ("n_agent_trials", "n_decided", "n_protocol_errors")


class AggregateRow(_Model):
    """Aggregates of one policy on one family (``family == "all"``: every family)."""

    kind: Literal["inspection"] = "inspection"
    family: str
    policy: str
    n_trials: int
    n_informative: int
    n_uninformative: int
    n_violations: int
    score: MeanCI | None
    regret: MeanCI
    optimal: Proportion
    action_correct: Proportion
    critical_recall: MeanCI | None
    precision: MeanCI | None
    distractor_rate: float | None
    net_utility: MeanCI
    utility_per_compute: float | None
    adaptive_regret: MeanCI | None
    failures: dict[str, int]
    #: Trials per first failing stage, and per code (every code that applied).
    stages: dict[str, int] = Field(default_factory=dict)
    codes: dict[str, int] = Field(default_factory=dict)
    #: Adaptive condition: the static score of the realized sets (extra column).
    static_score: MeanCI | None = None
    #: Document 000 §17 metrics with their intervals (docs/metrics.md).
    utility_per_compute_ci: MeanCI | None = None
    distractor_ci: MeanCI | None = None
    first_critical_at: MeanCI | None = None
    overinspection: Proportion | None = None
    underinspection: Proportion | None = None
    stale_belief_reuse: Proportion | None = None
    candidate_recall: MeanCI | None = None
    selected_given_generated: MeanCI | None = None
    evidence_utilisation: Proportion | None = None
    reasoning_given_evidence: Proportion | None = None
    decided_by: Literal["runner", "agent", "mixed"] = "runner"
    #: Trials decided by an agent: how many ended in an accepted ``decide``, and how many were
    #: flagged with a protocol error (``None``: no agent trial in the row).
    n_agent_trials: int | None = None
    n_decided: int | None = None
    n_protocol_errors: int | None = None

    @model_serializer(mode="wrap")
    def _without_agent_counts(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A row without agent trials is written as before these counts existed.
        data: dict[str, Any] = handler(self)
        for key in _AGENT_COUNTS:
            if data.get(key, 0) is None:
                del data[key]
        return data

    @property
    def rarely_decided(self) -> bool:
        """An agent row whose agent decided in fewer than half of its trials: its score rates
        what it read, not a decision (marked in the ranked table)."""
        return self.n_decided is not None and 2 * self.n_decided < (self.n_agent_trials or 0)


class PairedRow(_Model):
    """Policy ``a`` against policy ``b`` on matched (scenario, trial) pairs."""

    kind: Literal["inspection"] = "inspection"
    family: str
    policy_a: str
    policy_b: str
    score: PairedDiff | None
    regret: PairedDiff
    optimal: Transitions


class InitiationRow(_Model):
    """Unprompted-condition metrics (document 000 §15.2) of one policy on one family label.

    ``authoritative_rate`` is the *spontaneous* authoritative inspection rate on an unprompted
    family label (``B/unprompted``); ``summary_substitution`` counts substitutions out of the
    trials where the authoritative source would have contradicted the summary.
    """

    family: str
    policy: str
    n_trials: int
    authoritative_rate: Proportion
    inspections_before_authoritative: MeanCI | None
    claim_accuracy: Proportion
    summary_substitution: Proportion
    evidence_age_s: MeanCI | None


class InitiationGapRow(_Model):
    """Initiation gap (document 000 §15.3): announced minus unprompted, on matched trials.

    ``reads_task`` is False for a policy whose choices never depend on the task text: its gap is
    0 by construction, so the differences are left out (None) and the tables say "n/a — reads no
    task text" (issue 23).
    """

    family: str
    policy: str
    n_pairs: int
    score: PairedDiff | None
    net_utility: PairedDiff | None
    claim_accuracy: PairedDiff | None
    reads_task: bool = True


def _any_row(value: Any) -> AggregateRow | KindRow:
    if isinstance(value, AggregateRow | KindRow):
        return value
    kind = value.get("kind", "inspection") if isinstance(value, dict) else None
    if kind == "inspection":
        return AggregateRow.model_validate(value)
    if not isinstance(kind, str):
        raise ValueError("a row needs a kind")
    return kind_records(kind).row.model_validate(value)


def _any_paired(value: Any) -> PairedRow | KindPairedRow:
    if isinstance(value, PairedRow | KindPairedRow):
        return value
    kind = value.get("kind", "inspection") if isinstance(value, dict) else None
    if kind == "inspection":
        return PairedRow.model_validate(value)
    if not isinstance(kind, str):
        raise ValueError("a paired row needs a kind")
    kind_records(kind)  # an unknown kind fails here
    return KindPairedRow.model_validate(value)


#: A row of any scenario kind: inspection rows, or another kind's (read by its ``kind`` with
#: that kind's row model; written with every field of its own model).
AnyRow = Annotated[SerializeAsAny[AggregateRow | KindRow], PlainValidator(_any_row)]
#: A paired row of any scenario kind.
AnyPairedRow = Annotated[SerializeAsAny[PairedRow | KindPairedRow], PlainValidator(_any_paired)]


class Aggregates(_Model):
    """Every aggregate of a run (the initiation lists are empty unless a run measured them).

    ``rows`` and ``paired`` hold every family of every kind; ``kind`` tells an inspection row
    (:class:`AggregateRow`) from another kind's (a :class:`KindRow` of that kind's model).
    """

    rows: list[AnyRow]
    paired: list[AnyPairedRow]
    initiation: list[InitiationRow] = Field(default_factory=list)
    initiation_gap: list[InitiationGapRow] = Field(default_factory=list)
    #: Agents under test: failure split per mode, rescue rate, lift, usage (docs/llm.md).
    agents: AgentAggregates | None = None

    def inspection_rows(self) -> list[AggregateRow]:
        """The rows of the inspection families (and their pooled ``all`` rows)."""
        return [r for r in self.rows if isinstance(r, AggregateRow)]

    def kind_rows(self) -> list[KindRow]:
        """The rows of the families of every kind but inspection (D, J, …)."""
        return [r for r in self.rows if isinstance(r, KindRow)]

    def inspection_paired(self) -> list[PairedRow]:
        """The paired rows of the inspection families."""
        return [p for p in self.paired if isinstance(p, PairedRow)]

    def kind_paired(self) -> list[KindPairedRow]:
        """The paired rows of the families of every kind but inspection."""
        return [p for p in self.paired if isinstance(p, KindPairedRow)]

    def row(self, policy: str, family: str = ALL_FAMILIES) -> AggregateRow | KindRow:
        """Return the row of one policy and family, of any kind (KeyError if absent)."""
        for r in self.rows:
            if r.policy == policy and r.family == family:
                return r
        raise KeyError((policy, family))


class Results(_Model):
    """A whole ``heedful.results/v2`` document (a ``v1`` file loads and is upgraded).

    ``sealed`` results come from a hold-out run (SPEC §5, document 000 §22): they carry the
    manifest and the aggregates only — no scenario summaries, no per-trial records.
    """

    format: Literal["heedful.results/v2"] = RESULTS_FORMAT
    sealed: bool = False
    manifest: Manifest
    scenarios: list[ScenarioSummary]
    trials: list[TrialRecord]
    aggregates: Aggregates
    #: On disk only: the trial records are in this gzip JSON Lines file beside the summary
    #: (``trials`` is then empty in the file; :func:`load_results` fills it back).
    trials_file: str | None = None
    trials_count: int | None = Field(default=None, ge=0)
    #: Trials of the kinds other than inspection (D, J, …), when the run had any.
    kinds: KindResults | None = None
    #: Predicted-VOC calibration of the controller policies (empty for sealed runs).
    calibration: list[CalibrationRow] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _upgrade_v1(cls, data: Any) -> Any:
        # heedful.results/v1 kept the D/J aggregate and paired rows in ``kinds``.
        if not isinstance(data, dict) or data.get("format") != "heedful.results/v1":
            return data
        data = {**data, "format": RESULTS_FORMAT}
        kinds, aggregates = data.get("kinds"), data.get("aggregates")
        if isinstance(kinds, dict) and isinstance(aggregates, dict):
            kinds = dict(kinds)
            rows, paired = kinds.pop("rows", []) or [], kinds.pop("paired", []) or []
            kind_of = {r.get("family"): r.get("kind") for r in rows if isinstance(r, dict)}
            paired = [
                {"kind": kind_of.get(p.get("family")), **p} if isinstance(p, dict) else p
                for p in paired
            ]
            data["kinds"] = kinds
            data["aggregates"] = {
                **aggregates,
                "rows": [*(aggregates.get("rows") or []), *rows],
                "paired": [*(aggregates.get("paired") or []), *paired],
            }
        return data

    @model_validator(mode="after")
    def _sealed_means_aggregates_only(self) -> Results:
        if self.sealed and (self.scenarios or self.trials or self.trials_file):
            raise ValueError("sealed (hold-out) results must not hold scenarios or trials")
        return self


def trials_path(results_path: str | Path) -> Path:
    """Where the trial records of a results file go: ``<stem>.trials.jsonl.gz`` beside it."""
    p = Path(results_path)
    return p.with_name(f"{p.stem}.trials.jsonl.gz")


def write_results(results: Results, path: str | Path) -> Path:
    """Write the summary as indented JSON and the trial records beside it; return the path.

    The summary (manifest, scenarios, aggregates) is ``path``; the per-trial records, one JSON
    object per line, go to :func:`trials_path` compressed with gzip (no timestamp in the gzip
    header, so equal results give equal bytes). Sealed results have no records and no such file.
    """
    p = Path(path)
    summary = results
    if results.trials:
        tp = trials_path(p)
        with (
            tp.open("wb") as raw,
            gzip.GzipFile(
                filename="", mode="wb", fileobj=raw, compresslevel=_GZIP_LEVEL, mtime=0
            ) as gz,
        ):
            for t in results.trials:
                gz.write(t.model_dump_json().encode("utf-8") + b"\n")
        summary = results.model_copy(
            update={"trials": [], "trials_file": tp.name, "trials_count": len(results.trials)}
        )
    p.write_text(summary.model_dump_json(indent=1) + "\n", encoding="utf-8")
    return p


def _read_trials(path: Path, expected: int | None) -> list[TrialRecord]:
    """Read a gzip JSON Lines file of trial records (errors name the file and the line)."""
    out: list[TrialRecord] = []
    try:
        raw = read_bounded(path, RESULTS_LIMITS.from_env())
    except InputError as exc:
        raise InvalidArgumentError(f"{path}: cannot read the trial records: {exc.detail}") from None
    for n, line in enumerate(raw.splitlines(), start=1):
        try:
            out.append(TrialRecord.model_validate_json(line))
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(x) for x in err["loc"])
            raise InvalidArgumentError(
                f"{path}: line {n}: {where + ': ' if where else ''}{err['msg']}"
            ) from None
    if expected is not None and len(out) != expected:
        raise InvalidArgumentError(f"{path}: {len(out)} trial records, the summary says {expected}")
    return out


def load_results(path: str | Path) -> Results:
    """Read and validate a results file, with its trial records file if it names one.

    Both layouts load: the summary with ``trials_file`` (written by :func:`write_results`) and
    the older single ``results.json`` holding ``trials`` inline. The returned results always hold
    the records inline (``trials_file`` is ``None``).

    Raises:
        InvalidArgumentError: unreadable file, not JSON, wrong ``format`` or invalid content.
    """
    p = Path(path)
    data = read_document(p, limits=RESULTS_LIMITS, json_only=True)
    fmt = data.get("format") if isinstance(data, dict) else None
    if fmt not in READABLE_FORMATS:
        known = " or ".join(repr(f) for f in READABLE_FORMATS)
        raise InvalidArgumentError(f"{p}: format must be {known}, got {fmt!r}")
    try:
        results = Results.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        raise InvalidArgumentError(f"{p}:{where}: {err['msg']}") from None
    if results.trials_file is None:
        return results
    name = results.trials_file
    if results.trials or Path(name).name != name or name in ("", ".", ".."):
        raise InvalidArgumentError(
            f"{p}:trials_file: must be a file name beside the summary, with trials empty"
        )
    trials = _read_trials(p.with_name(name), results.trials_count)
    return results.model_copy(update={"trials": trials, "trials_file": None, "trials_count": None})
