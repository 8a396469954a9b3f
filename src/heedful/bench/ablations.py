"""Document 000 §21's ablation table as named policies, run on a family set, each row reported as
its paired score difference against full VOC (``voc``) with a bootstrap interval.

Rows that need an LLM are listed with the reason instead of a number. The learned ranker and
the bandit arrive by name through the policy registry (``heedful.policies`` entry points: the
bench never imports ``heedful.learn``). The upper-bound row is no policy: the forced-read bound
of :mod:`heedful.bench.score.bounds`, paired with ``voc``'s trials.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.padding import Padding
from rich.text import Text

from heedful.bench.config import DEFAULT_CONFIG
from heedful.bench.report.layout import terminal_table
from heedful.bench.results import ALL_FAMILIES, Results
from heedful.bench.run.split import split_families
from heedful.bench.score.aggregate import cluster_diff, cluster_mean, informative_score
from heedful.bench.score.bounds import forced_read_scores
from heedful.bench.seeds import Stream, generator
from heedful.bench.stats import (
    MeanCI,
    PairedDiff,
    Proportion,
    clustered_proportion,
    paired_difference,
)
from heedful.bench.suite import RunOutput, run_to_folder, select_scenarios

__all__ = [
    "ABLATIONS",
    "INERT",
    "PRODUCTION",
    "UPPER_BOUND",
    "Ablation",
    "ProductionReport",
    "ablation_differences",
    "bound_difference",
    "load_bounds",
    "print_ablations",
    "production_report",
    "production_text",
    "run_ablations",
]

REFERENCE = "voc"
#: The row of the forced-read upper bound: not a policy, computed per scenario
#: (:mod:`heedful.bench.score.bounds`) and paired with ``voc``'s trials.
UPPER_BOUND = "upper-bound"
#: The bound's scores, written into the run folder beside ``results.json``.
BOUNDS_FILE = "upper_bound.json"
#: The production system of Appendix D: ``voc`` asserting claims, validator in production mode.
PRODUCTION = "voc-production"


@dataclass(frozen=True)
class ProductionReport:
    """Document 000 Appendix D for the controller: ``voc-production`` against ``voc`` (validator
    disabled) on the same trials — attention and production score, decision accuracy in each
    mode, the rescue rate ``P(production correct ∧ attention-only wrong)`` and the forced reads."""

    n_pairs: int
    attention_score: MeanCI | None
    production_score: MeanCI | None
    attention_correct: Proportion
    production_correct: Proportion
    rescue: Proportion
    harmed: Proportion
    forced_per_trial: float
    net_utility: PairedDiff | None


def production_report(results: Results, seed: int = 0) -> ProductionReport | None:
    """Pair every inspection trial of ``voc-production`` with ``voc``'s (``None``: not run)."""
    ref = {(t.scenario_id, t.trial): t for t in results.trials if t.policy == REFERENCE}
    pairs = [
        (t, ref[(t.scenario_id, t.trial)])
        for t in results.trials
        if t.policy == PRODUCTION and (t.scenario_id, t.trial) in ref
    ]
    if not pairs:
        return None
    level = DEFAULT_CONFIG.ci_level
    clusters = [p.scenario_id for p, _ in pairs]
    rng = generator(seed, Stream.STATS)
    prods = [p for p, _ in pairs]
    return ProductionReport(
        n_pairs=len(pairs),
        attention_score=cluster_mean(prods, informative_score, rng, DEFAULT_CONFIG),
        production_score=cluster_mean(prods, lambda t: t.production_score, rng, DEFAULT_CONFIG),
        attention_correct=clustered_proportion(
            [a.action_correct for _, a in pairs], clusters, level
        ),
        production_correct=clustered_proportion(
            [p.action_correct for p, _ in pairs], clusters, level
        ),
        rescue=clustered_proportion(
            [p.action_correct and not a.action_correct for p, a in pairs], clusters, level
        ),
        harmed=clustered_proportion(
            [a.action_correct and not p.action_correct for p, a in pairs], clusters, level
        ),
        forced_per_trial=sum(len(p.forced_inspections) for p in prods) / len(prods),
        net_utility=cluster_diff(pairs, lambda t: t.net_utility, rng, DEFAULT_CONFIG),
    )


#: The cell of a row that cannot differ from the reference in a group (see ``Ablation.inert``).
INERT = "cannot differ\nhere (inert)"


@dataclass(frozen=True)
class Ablation:
    """One row of the table: the §21 condition, the policy that runs it, or why it cannot run."""

    condition: str
    policy: str | None
    needs: str = ""
    #: Groups (``inspection`` or a D/J family code) where the ablated part never acts, so the
    #: row cannot differ from ``voc`` there by construction: printed as that, never as a result.
    inert: tuple[str, ...] = ()


ABLATIONS: tuple[Ablation, ...] = (
    Ablation("Current Piper", None, "an LLM agent (issue: LLM agents under test)"),
    Ablation('Prompt only: "inspect important evidence"', None, "an LLM agent"),
    Ablation("Random candidate selection", "random"),
    Ablation("Recency heuristic", "recency"),
    Ablation("Urgency heuristic", "urgency-first"),
    Ablation("Loudness (keyword urgency)", "loudness"),
    Ablation("Goal relevance only", "goal-only"),
    Ablation("Risk only", "risk-only"),
    Ablation("Staleness only", "staleness-only"),
    Ablation("Heuristic VOC controller (= full controller, validator disabled)", REFERENCE),
    Ablation("VOC minus staleness", "voc-no-staleness"),
    Ablation("VOC minus source authority", "voc-no-authority"),
    # A switch cost is estimated only for interruptions while a focus is held (the estimator's
    # switch_cost); inspection candidates declare none, so the term is 0 on every inspection trial.
    Ablation("VOC minus switching cost", "voc-no-switch-cost", inert=("inspection",)),
    Ablation("VOC minus hysteresis (§11.4)", "voc-no-hysteresis"),
    Ablation("VOC minus aging and minimum service (§11.5)", "voc-no-aging"),
    Ablation("VOC minus goal relevance", "voc-no-goal"),
    Ablation("VOC minus cost term", "voc-no-cost"),
    Ablation(
        "Authority-first forced read (a baseline, not a bound: reads by authority alone)",
        "forced-authoritative",
    ),
    Ablation(
        "Forced authoritative read (upper bound: the oracle with the authoritative reads free)",
        UPPER_BOUND,
    ),
    Ablation("Full controller + validator (production; Appendix D below)", PRODUCTION),
    Ablation("Learned ranker (§20.1)", "voc-learned"),
    Ablation("Bandit (§20.2; warmed up on training scenarios, then frozen)", "voc-bandit"),
    Ablation("Oracle (reference)", "oracle"),
)


def run_ablations(
    *,
    families: str = "G,B,D,J",
    count: int = 20,
    trials: int = 5,
    seed: int = 0,
    out: Path | None = None,
    progress: bool | None = None,
) -> RunOutput:
    """Run every runnable row of the table on the families (one run folder, as ``bench run``);
    the forced-read upper bound of each inspection scenario goes to ``upper_bound.json``."""
    names = [a.policy for a in ABLATIONS if a.policy not in (None, UPPER_BOUND)]
    output = run_to_folder(
        families=families,
        count=count,
        policies=",".join(n for n in names if n is not None),
        trials=trials,
        seed=seed,
        out=out,
        progress=progress,
    )
    inspection, _ = split_families(families)
    if inspection is not None:
        scenarios, _, _ = select_scenarios(None, inspection, count, seed)
        bounds = forced_read_scores(scenarios)
        (output.folder / BOUNDS_FILE).write_text(json.dumps(bounds, indent=1), encoding="utf-8")
    return output


def load_bounds(folder: Path) -> dict[str, float] | None:
    """The bound scores a run of :func:`run_ablations` wrote (``None``: none)."""
    path = folder / BOUNDS_FILE
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return {str(k): float(v) for k, v in data.items()}


def bound_difference(
    results: Results, bounds: dict[str, float], seed: int = 0
) -> PairedDiff | None:
    """The bound's score minus ``voc``'s, paired per ``voc`` trial, clustered by scenario."""
    pairs = [
        (bounds[t.scenario_id], t.score, t.scenario_id)
        for t in results.trials
        if t.policy == REFERENCE and t.score is not None and t.scenario_id in bounds
    ]
    if not pairs:
        return None
    a, b, clusters = zip(*pairs, strict=True)
    return paired_difference(
        list(a), list(b), generator(seed, Stream.STATS), clusters=list(clusters)
    )


def ablation_differences(results: Results) -> dict[str, dict[str, PairedDiff | None]]:
    """Policy → group → paired score difference (policy − voc); groups: ``inspection``
    (every inspection family pooled) and each D/J family code."""
    out: dict[str, dict[str, PairedDiff | None]] = {}

    def put(policy: str, group: str, diff: PairedDiff | None, sign: float) -> None:
        if diff is not None and sign < 0:
            diff = diff.reversed()
        out.setdefault(policy, {})[group] = diff

    for p in results.aggregates.inspection_paired():
        if p.family == ALL_FAMILIES and REFERENCE in (p.policy_a, p.policy_b):
            other, sign = (p.policy_b, -1.0) if p.policy_a == REFERENCE else (p.policy_a, 1.0)
            put(other, "inspection", p.score, sign)
    for k in results.aggregates.kind_paired():
        if REFERENCE in (k.policy_a, k.policy_b):
            other, sign = (k.policy_b, -1.0) if k.policy_a == REFERENCE else (k.policy_a, 1.0)
            put(other, k.family, k.score, sign)
    return out


def _groups(results: Results) -> list[str]:
    groups = ["inspection"] if results.aggregates.inspection_rows() else []
    return groups + sorted({r.family for r in results.aggregates.kind_rows()})


def _reference_scores(results: Results) -> dict[str, str]:
    out: dict[str, str] = {}
    for r in results.aggregates.inspection_rows():
        if r.policy == REFERENCE and r.family == ALL_FAMILIES and r.score is not None:
            out["inspection"] = f"{r.score.mean:.1f}\n[{r.score.lo:.1f}, {r.score.hi:.1f}]"
    for k in results.aggregates.kind_rows():
        if k.policy == REFERENCE and k.score is not None:
            out[k.family] = f"{k.score.mean:.1f}\n[{k.score.lo:.1f}, {k.score.hi:.1f}]"
    return out


def _pct(p: Proportion) -> str:
    if p.p is None:
        return "—"
    return f"{100 * p.p:.1f}% [{100 * p.lo:.1f}, {100 * p.hi:.1f}] ({p.k}/{p.n})"


def _ci(m: MeanCI | None) -> str:
    return "—" if m is None else f"{m.mean:.1f} [{m.lo:.1f}, {m.hi:.1f}]"


def production_text(r: ProductionReport) -> str:
    """Appendix D's two scores and the rescue rate, as lines for an 80-column terminal."""
    net = (
        "—"
        if r.net_utility is None
        else f"{r.net_utility.mean:+.4f} [{r.net_utility.lo:+.4f}, {r.net_utility.hi:+.4f}]"
    )
    return "\n".join(
        [
            f"Appendix D — {PRODUCTION} vs {REFERENCE} (validator disabled),",
            f"{r.n_pairs} matched trials:",
            f"  attention score   {_ci(r.attention_score)}",
            f"  production score  {_ci(r.production_score)}",
            f"  right action, attention-only  {_pct(r.attention_correct)}",
            f"  right action, production      {_pct(r.production_correct)}",
            f"  rescued (production right, attention-only wrong) {_pct(r.rescue)}",
            f"  harmed (production wrong, attention-only right)  {_pct(r.harmed)}",
            f"  forced reads per trial {r.forced_per_trial:.2f}",
            f"  net utility, production − attention {net}",
        ]
    )


def print_ablations(
    results: Results, console: Console | None = None, bounds: dict[str, float] | None = None
) -> None:
    """Print the table: each row's score difference against ``voc`` per family group.

    Laid out for an 80-column terminal: the policy heads each row with its §21 condition under
    it, each interval sits under its difference, and the rows that cannot run are listed after
    the table with what they need — nothing is cut.
    """
    con = console or Console(width=None if sys.stdout.isatty() else 160, markup=False)
    groups = _groups(results)
    diffs = ablation_differences(results)
    if bounds is not None and "inspection" in groups:
        diffs[UPPER_BOUND] = {"inspection": bound_difference(results, bounds)}
    ref = _reference_scores(results)
    table = terminal_table(
        "Ablations (document 000 §21): score difference against voc, paired, 95% CI\n"
        "(* = interval excludes 0; n/a = no version of the policy for this kind;\n"
        "inert = the ablated part never acts in these scenarios)",
    )
    width = max(len(a.policy) for a in ABLATIONS if a.policy is not None)
    table.add_column("policy / §21 condition", overflow="fold", min_width=width)
    for g in groups:
        table.add_column(
            "inspection families" if g == "inspection" else f"family {g}",
            justify="right",
            overflow="fold",
        )
    for a in ABLATIONS:
        if a.policy is None or (a.policy == UPPER_BOUND and bounds is None):
            continue
        cells = []
        for g in groups:
            if a.policy == REFERENCE:
                cells.append(f"score {ref.get(g, '—')}")
                continue
            d = diffs.get(a.policy, {}).get(g)
            if g in a.inert:
                cells.append(INERT)
            elif d is None:
                cells.append("n/a")
            elif d.a_better == d.b_better == 0:
                cells.append("identical on\nevery trial")
            else:
                star = "*" if d.lo > 0 or d.hi < 0 else ""
                cells.append(f"{d.mean:+.1f}{star}\n[{d.lo:+.1f}, {d.hi:+.1f}]")
        table.add_row(Text.assemble(a.policy, "\n", (a.condition, "dim")), *cells)
    con.print(table)
    report = production_report(results)
    if report is not None:
        con.print(Text(production_text(report)))
    con.print("Not run here:", highlight=False)
    if bounds is None:
        con.print(Padding(Text("the forced-read upper bound — needs run_ablations"), (0, 0, 0, 2)))
    for a in ABLATIONS:
        if a.policy is None:
            con.print(Padding(Text(f"{a.condition} — needs {a.needs}"), (0, 0, 0, 2)))
