"""``heedful bench`` (run, oracle, report, scorecard, ablations) and the top-level
``heedful run``."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import shlex
from collections.abc import Iterator
from pathlib import Path

import typer

from heedful.cli._app import console, fail
from heedful.cli._backend import address_option, backend_option, open_backend
from heedful.cli.agent import DEFAULT_CACHE, build_agent_run

bench_app = typer.Typer(
    help="Run the benchmark, the exact oracle and reports.", no_args_is_help=True
)

_RUNS_HELP = "Output folder (default: a new runs/<timestamp>-<seed>/)."
_WORKERS_HELP = "Processes playing scenarios in parallel (default: one per CPU core); same results."


def _one_blas_thread() -> None:
    """One BLAS thread per process for a run, unless the environment says otherwise.

    A run's matrices are small and its parallelism is its worker processes (one per core):
    OpenBLAS's own threads only spin beside them (about 1 s of CPU on the default suite, more
    with several workers). Must precede numpy's import, which the commands do lazily.
    """
    import os

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def register(root: typer.Typer) -> None:
    """Add the ``bench`` group and the top-level ``run`` command to the root app."""
    root.add_typer(bench_app, name="bench")
    root.command("run")(run_default)


def _print_results(results: object) -> None:
    """The inspection tables, the D/J tables and the calibration table of a run's results."""
    from heedful.bench.report.page import print_tables
    from heedful.bench.results import Results

    assert isinstance(results, Results)
    kind_rows = results.aggregates.kind_rows()
    if results.aggregates.inspection_rows() or not kind_rows:
        print_tables(results, console())
    if kind_rows:
        from heedful.bench.report.kinds import print_kind_tables

        print_kind_tables(kind_rows, console())
    if results.calibration:
        from heedful.bench.report.calibration import calibration_table

        console().print(calibration_table(results.calibration))
    for line in endpoint_warnings(results):
        typer.echo(line, err=True)


def endpoint_warnings(results: object) -> list[str]:
    """One line per agent whose endpoint answered none of its calls: its trials all ended with
    an endpoint error, so its scores rate reading nothing, not a model's choices."""
    from heedful.bench.results import Results

    assert isinstance(results, Results)
    agents = results.aggregates.agents
    if agents is None:
        return []
    return [
        f"warning: {u.policy}: the endpoint answered none of its calls ({u.errors} errors in "
        f"{u.trials} trials), so its scores rate reading nothing, not the model — check "
        "--base-url and that the server is running"
        for u in agents.usage
        if u.calls == 0 and u.errors > 0
    ]


def _warn_if_dead(base_url: str) -> None:
    why = endpoint_answers(base_url)
    if why is not None:
        typer.echo(
            f"warning: nothing accepts connections at {base_url} ({why}): agent trials the "
            "response cache cannot answer will end with an endpoint error",
            err=True,
        )


def endpoint_answers(base_url: str, timeout_s: float = 2.0) -> str | None:
    """Why nothing accepts a connection at ``base_url``'s host and port (``None``: something
    does). Only a TCP connect — no request is sent, so nothing is spent at the endpoint."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(base_url)
    host = parts.hostname or ""
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None  # a malformed port: the client's own error names it
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return None
    except OSError as exc:
        return exc.strerror or type(exc).__name__


def _interval(ci: object) -> dict[str, float] | None:
    if ci is None:
        return None
    return {k: getattr(ci, k) for k in ("mean", "lo", "hi")}


def run_summary(output: object) -> dict[str, object]:
    """The ``--json`` summary of a run: where its files are, what ran, and each policy's
    numbers over every family (mean with its 95% interval; docs/metrics.md)."""
    from heedful.bench.results import ALL_FAMILIES
    from heedful.bench.suite import RunOutput

    assert isinstance(output, RunOutput)
    results, m = output.results, output.results.manifest
    inspection = results.aggregates.inspection_rows()
    rows = [r for r in inspection if r.family == ALL_FAMILIES]
    rows.sort(key=lambda r: -(r.score.mean if r.score is not None else float("-inf")))
    return {
        "folder": str(output.folder),
        "results": str(output.results_path),
        "report": str(output.report_path),
        "seed": m.seed,
        "trials": m.trials,
        "condition": m.condition,
        "scenarios": m.n_scenarios,
        "sealed": results.sealed,
        "families": sorted({r.family for r in inspection} - {ALL_FAMILIES}),
        "policies": [
            {
                "policy": r.policy,
                "score": _interval(r.score),
                "regret": _interval(r.regret),
                "net_utility": _interval(r.net_utility),
                "optimal": r.optimal.p,
                "trials": r.n_trials,
                # Agents (issue 34): how many trials ended in an accepted decide, and how many
                # were flagged with a protocol error (null for a policy the runner decides).
                **(
                    {
                        "decided": r.n_decided,
                        "agent_trials": r.n_agent_trials,
                        "protocol_errors": r.n_protocol_errors,
                        "rarely_decided": r.rarely_decided,
                    }
                    if r.n_decided is not None
                    else {}
                ),
            }
            for r in rows
        ],
        # Families D and J: each policy's numbers per family (their tables: `bench report`).
        "kind_families": [
            {
                "family": r.family,
                "kind": r.kind,
                "policy": r.policy,
                "score": _interval(r.score),
                "regret": _interval(r.regret),
            }
            for r in results.aggregates.kind_rows()
        ],
    }


def _print_run(output: object, *, as_json: bool = False) -> None:
    from heedful.bench.suite import RunOutput

    assert isinstance(output, RunOutput)
    if as_json:
        import json

        typer.echo(json.dumps(run_summary(output), ensure_ascii=False))
        return
    _print_results(output.results)
    typer.echo(f"results: {output.results_path}")
    typer.echo(f"report:  {output.report_path}")


@bench_app.command("oracle")
def bench_oracle(
    paths: list[str] = typer.Argument(
        ..., metavar="FILE...", help="Scenario files or directories."
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per scenario per line."),
    adaptive: bool = typer.Option(
        False, "--adaptive", help="Also compute the optimal adaptive value."
    ),
) -> None:
    """Exact oracle per scenario: V*, optimal sets, U_random, V(empty set), critical sources.

    Switching and schedule files (families D and J) get their own exact oracles: V*, U_random
    and the optimal answers.
    """
    import json

    from heedful.model import Scenario
    from heedful.model.kinds_io import load_any_scenario_set

    scenarios = load_any_scenario_set(paths)  # a bad file is refused before the oracle is imported

    from heedful.bench.kinds import get_kind, kind_of
    from heedful.bench.report.page import OracleRow, print_oracle
    from heedful.bench.report.table import kind_oracle_records
    from heedful.decision import adaptive_oracle, compile_problem, static_oracle

    rows: list[OracleRow] = []
    kinds: list[dict[str, object]] = []
    for sc in scenarios:
        if not isinstance(sc, Scenario):
            kinds.append(get_kind(kind_of(sc)).oracle_record(sc))
            if as_json:
                typer.echo(json.dumps(kinds[-1], ensure_ascii=False))
            continue
        problem = compile_problem(sc.view, sc.truth)
        result = static_oracle(problem, sc.view.budget)
        v_adaptive = adaptive_oracle(problem, sc.view.budget).v_adaptive if adaptive else None
        if as_json:
            record: dict[str, object] = {"id": sc.id, **result.as_dict()}
            if v_adaptive is not None:
                record["v_adaptive"] = v_adaptive
            typer.echo(json.dumps(record, ensure_ascii=False))
        rows.append((sc.id, result, v_adaptive))
    if as_json:
        return
    if rows:
        print_oracle(rows, console(), adaptive=adaptive)
    if kinds:
        console().print(kind_oracle_records(kinds))


#: The options of `bench run` a run folder keeps for ``--resume`` (in this order); the others
#: (--workers, --backend, --address, --json) do not change the results.
_KEPT = (
    "scenarios",
    "family",
    "count",
    "policies",
    "trials",
    "seed",
    "out",
    "adaptive",
    "holdout",
    "condition",
    "model",
    "base_url",
    "api_key_env",
    "concurrency",
    "mode",
    "temperature",
    "max_tokens",
    "timeout",
    "retries",
    "cache",
    "no_cache",
    "model_file",
    "shift",
    "trial_timeout",
    "max_reply_bytes",
    "max_turns",
    "protocol",
    "moves",
)


#: ``--timeout`` of a local model (``local:…``) when none is given: seconds per call.
LOCAL_TIMEOUT = 600.0


def _source(ctx: typer.Context, name: str) -> str:
    """Where an option's value came from: DEFAULT, COMMANDLINE, ENVIRONMENT …"""
    source = ctx.get_parameter_source(name)
    return getattr(source, "name", "DEFAULT")


@bench_app.command("run")
def bench_run(
    ctx: typer.Context,
    scenarios: list[str] = typer.Option(
        [], "--scenarios", help="Scenario file or folder (repeatable); default: generate."
    ),
    family: str | None = typer.Option(
        None,
        "--family",
        help="Families to generate or keep, e.g. G,B or C,E,F,I or D,J, or all (default: G,B).",
    ),
    count: int = typer.Option(20, "--count", help="Scenarios generated per family."),
    policies: str = typer.Option("all", "--policies", help="Comma-separated policy names."),
    trials: int = typer.Option(5, "--trials", help="Trials per scenario and policy."),
    seed: int = typer.Option(0, "--seed", help="Root seed of the whole run."),
    out: str | None = typer.Option(None, "--out", help=_RUNS_HELP),
    adaptive: bool = typer.Option(
        False, "--adaptive", help="Reveal each result before the next choice."
    ),
    holdout: str | None = typer.Option(
        None, "--holdout", help="Sealed hold-out directory outside the project: aggregates only."
    ),
    condition: str = typer.Option(
        "announced",
        "--condition",
        help="announced, unprompted (no budget or instruction in the task) or both (gap).",
    ),
    model: str | None = typer.Option(None, "--model", help="Agents: model name at the endpoint."),
    base_url: str | None = typer.Option(
        None,
        "--base-url",
        help="Agents: OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1.",
    ),
    api_key_env: str | None = typer.Option(
        None, "--api-key-env", help="Agents: environment variable holding the key (never stored)."
    ),
    concurrency: int = typer.Option(8, "--concurrency", help="Agents: trials in flight at once."),
    mode: str = typer.Option(
        "attention", "--mode", help="Agents: attention, production (claim validator on) or both."
    ),
    temperature: float = typer.Option(0.0, "--temperature", help="Agents: sampling temperature."),
    max_tokens: int = typer.Option(
        1024, "--max-tokens", help="Agents: completion tokens per call."
    ),
    timeout: float = typer.Option(
        60.0, "--timeout", help="Agents: wall-clock seconds per HTTP request, whole (a drip too)."
    ),
    trial_timeout: float | None = typer.Option(
        None,
        "--trial-timeout",
        help="Agents: wall-clock seconds per trial (default: timeout × turns).",
    ),
    max_reply_bytes: int = typer.Option(
        2_000_000, "--max-reply-bytes", help="Agents: largest reply body read."
    ),
    max_turns: int = typer.Option(16, "--max-turns", help="Agents: model calls per trial."),
    protocol: str = typer.Option(
        "tools", "--protocol", help="Agents: tools (native tool calls) or json (small models)."
    ),
    moves: str = typer.Option(
        "auto",
        "--moves",
        help="Agents: legal (each turn's schemas admit only the legal moves), all, or auto "
        "(legal for a local model and --protocol json).",
    ),
    retries: int = typer.Option(4, "--retries", help="Agents: retries on 429, 5xx and timeouts."),
    cache: str = typer.Option(DEFAULT_CACHE, "--cache", help="Agents: SQLite response cache."),
    no_cache: bool = typer.Option(
        False, "--no-cache", help="Agents: call the endpoint every time."
    ),
    model_file: str | None = typer.Option(
        None,
        "--model-file",
        help="Model JSON for voc-learned (from `heedful learn train`; default: the shipped one).",
    ),
    shift: float = typer.Option(
        1.0,
        "--shift",
        help="Distance of the hidden worlds from the controller's model (0 = its defaults).",
    ),
    workers: int | None = typer.Option(None, "--workers", help=_WORKERS_HELP),
    backend: str = backend_option(),
    address: str | None = address_option(),
    resume: str | None = typer.Option(
        None,
        "--resume",
        help="A killed run's folder: finish it, skipping the scenarios it finished (its own "
        "options are kept there; --workers, --backend, --address and --json may be given).",
    ),
    as_json: bool = typer.Option(
        False, "--json", help="Print a JSON summary on stdout instead of the tables."
    ),
) -> None:
    """Run policies on scenarios against the exact oracle; write results.json and report.html.

    Agents under test (--policies llm,llm-advised) need --model and --base-url.
    --backend ray runs scenarios and agent trials as Ray tasks (same results; docs/ray.md).
    """
    _one_blas_thread()
    from pathlib import Path

    from heedful.bench.run.checkpoint import Checkpoint
    from heedful.bench.run.spec import run_spec
    from heedful.bench.suite import run_to_folder
    from heedful.cli.agent import local_endpoint

    given = {k: v for k, v in ctx.params.items() if k in _KEPT}
    if resume is not None:
        extra = [k for k in given if _source(ctx, k) != "DEFAULT"]
        if extra:
            raise fail(
                "--resume finishes a run with its own options; do not give "
                + ", ".join("--" + k.replace("_", "-") for k in extra)
            )
        saved = Checkpoint(Path(resume)).load_args()
        given.update({k: v for k, v in saved.items() if k in given})
        (
            scenarios,
            family,
            count,
            policies,
            trials,
            seed,
            out,
            adaptive,
            holdout,
            condition,
            model,
            base_url,
            api_key_env,
            concurrency,
            mode,
            temperature,
            max_tokens,
            timeout,
            retries,
            cache,
            no_cache,
            model_file,
            shift,
            trial_timeout,
            max_reply_bytes,
            max_turns,
            protocol,
            moves,
        ) = (given[k] for k in _KEPT)

    with local_endpoint(model, base_url) as local_url:
        if local_url is not None:  # one model, one context: trials take turns
            base_url, concurrency = local_url, 1
            if _source(ctx, "timeout") == "DEFAULT" and resume is None:
                # A model computing on a loaded CPU is slow, not down: the first call of a
                # trial evaluates its whole prompt.
                timeout = LOCAL_TIMEOUT
        agent_run = build_agent_run(
            model=model,
            base_url=base_url,
            api_key_env=api_key_env,
            concurrency=concurrency,
            mode=mode,
            temperature=temperature,
            max_tokens=max_tokens,
            timeout=timeout,
            trial_timeout=trial_timeout,
            max_reply_bytes=max_reply_bytes,
            max_turns=max_turns,
            protocol=protocol,
            moves=moves,
            retries=retries,
            # A hold-out run keeps no default cache (it would hold the set's prompts and results);
            # an explicit --cache must lie outside the project (checked by run_to_folder).
            cache=None if no_cache or (holdout and cache == DEFAULT_CACHE) else cache,
            progress=None,
        )

        if agent_run is not None and local_url is None and backend == "local":
            # A dead endpoint would end every agent trial with an endpoint error: said before
            # the first trial (a warning, not a refusal — the response cache may answer them).
            agent_run = dataclasses.replace(
                agent_run,
                before_trials=functools.partial(_warn_if_dead, agent_run.settings.base_url),
            )
        with open_backend(backend, address) as jobs:
            spec = run_spec(
                scenario_paths=[Path(p) for p in scenarios],
                families=family,
                count=count,
                policies=policies,
                trials=trials,
                seed=seed,
                adaptive=adaptive,
                holdout=Path(holdout) if holdout else None,
                out=Path(out) if out else None,
                condition=condition,
                policy_params={"voc-learned": {"model_file": model_file}} if model_file else None,
                shift=shift,
                workers=workers,
            )
            with _interruptible(resumable=holdout is None) as seen:
                output = run_to_folder(
                    spec,
                    agent_run=agent_run,
                    backend=jobs,
                    resume=Path(resume) if resume is not None else None,
                    run_args=given,
                    on_folder=seen.append,
                )
    _print_run(output, as_json=as_json)


@bench_app.command("report")
def bench_report(
    results: str = typer.Argument(..., help="A results.json of `heedful bench run`."),
    out: str | None = typer.Option(
        None, "--out", help="HTML file to write (default: report.html beside RESULTS)."
    ),
    markdown: bool = typer.Option(
        False,
        "--markdown",
        help="Print only the score table as markdown (the README's first table); write no HTML.",
    ),
) -> None:
    """Print the ranked table of a results file and regenerate its report.html."""
    from pathlib import Path

    from heedful.bench.report.page import write_report
    from heedful.bench.report.table import markdown_scores
    from heedful.bench.results import load_results

    path = Path(results)
    loaded = load_results(path)
    if markdown:
        typer.echo(markdown_scores(loaded))
        return
    _print_results(loaded)
    typer.echo(
        f"report:  {write_report(loaded, Path(out) if out else path.with_name('report.html'))}"
    )


@bench_app.command("scorecard")
def bench_scorecard(
    base: str = typer.Argument(..., help="The baseline's results.json."),
    new: str = typer.Argument(..., help="The new run's results.json (may be the same file)."),
    policy: str | None = typer.Option(
        None, "--policy", help="Policy of both runs (default: voc-default, or the one they share)."
    ),
    base_policy: str | None = typer.Option(
        None, "--base-policy", help="The baseline's policy, when it differs from --policy."
    ),
    new_policy: str | None = typer.Option(
        None, "--new-policy", help="The new run's policy, when it differs from --policy."
    ),
    family: str | None = typer.Option(
        None, "--family", help="Families to pool, e.g. G,B (default: every inspection family)."
    ),
    markdown: bool = typer.Option(False, "--markdown", help="Print the table as markdown."),
) -> None:
    """Document 000 §29's v1 scorecard: eight metrics, baseline | new | Δ with paired CIs."""
    from heedful.bench.report.scorecard import scorecard_markdown, scorecard_text
    from heedful.bench.results import load_results
    from heedful.bench.score.scorecard import pick_policy, scorecard

    a, b = load_results(base), load_results(new)
    families = [f.strip() for f in family.split(",") if f.strip()] if family is not None else None
    if families is not None and not families:
        raise fail(f"--family names no family: {family!r}")
    pa = base_policy or policy or pick_policy(a, b)
    card = scorecard(a, b, base_policy=pa, new_policy=new_policy or policy or pa, families=families)
    typer.echo(scorecard_markdown(card) if markdown else scorecard_text(card))


@bench_app.command("ablations")
def bench_ablations(
    family: str = typer.Option(
        "G,B,D,J", "--family", help="Families to run the table on (codes, names or all)."
    ),
    count: int = typer.Option(20, "--count", help="Scenarios generated per family."),
    trials: int = typer.Option(5, "--trials", help="Trials per scenario and policy."),
    seed: int = typer.Option(0, "--seed", help="Root seed of the whole run."),
    out: str | None = typer.Option(None, "--out", help=_RUNS_HELP),
) -> None:
    """Run document 000 §21's ablation table; print each row's paired difference against voc."""
    from pathlib import Path

    from heedful.bench.ablations import load_bounds, print_ablations, run_ablations

    output = run_ablations(
        families=family, count=count, trials=trials, seed=seed, out=Path(out) if out else None
    )
    print_ablations(output.results, console(), bounds=load_bounds(output.folder))
    typer.echo(f"results: {output.results_path}")
    typer.echo(f"report:  {output.report_path}")


@bench_app.command("plan")
def bench_plan(
    results: str = typer.Argument(..., help="A pilot run's results.json."),
    min_diff: float = typer.Option(
        ..., "--min-diff", help="Smallest difference worth detecting, in the metric's units."
    ),
    metric: str = typer.Option("score", "--metric", help="score, regret or net_utility."),
    policies: str | None = typer.Option(
        None, "--policies", help="Policies to compare pairwise (default: all in the file)."
    ),
    family: str | None = typer.Option(None, "--family", help="Only this family label."),
    power: float = typer.Option(0.8, "--power", help="Power to detect --min-diff."),
) -> None:
    """How many scenarios a paired comparison needs (document 000 §23), from a pilot run."""
    from pathlib import Path

    from rich.table import Table

    from heedful.bench.results import load_results
    from heedful.bench.score.plan import plan_comparisons

    loaded = load_results(Path(results))
    names = [p.strip() for p in policies.split(",") if p.strip()] if policies else None
    rows = plan_comparisons(
        loaded, min_diff=min_diff, metric=metric, policies=names, family=family, power=power
    )
    table = Table(title=f"scenarios needed to separate {metric} by {min_diff:g}")
    for col in ("A − B", "pilot", "mean", "sd", "±now", "need"):
        table.add_column(col, justify="left" if col == "A − B" else "right")
    for r in rows:
        need = "any" if r.needed_scenarios is None else str(r.needed_scenarios)
        table.add_row(
            f"{r.policy_a} − {r.policy_b}",
            str(r.pilot_scenarios),
            f"{r.mean_diff:+.2f}",
            f"{r.sd:.2f}",
            f"{r.half_width_now:.2f}",
            need + ("" if r.enough else " ←"),
        )
    console().print(table)
    short = [r for r in rows if not r.enough]
    if short:
        worst = max(r.needed_scenarios or 0 for r in short)
        # Through the console: wrapped at the terminal's width, like the table above.
        console().print(
            f"{len(short)} comparison(s) need more scenarios than the pilot's "
            f"{rows[0].pilot_scenarios} (up to {worst}, at "
            f"{rows[0].trials_per_scenario:g} trials per scenario).",
            markup=False,
        )
    else:
        console().print(
            "the pilot already separates every comparison at this difference.", markup=False
        )


def run_default(
    seed: int = typer.Option(0, "--seed", help="Root seed of the whole run."),
    out: str | None = typer.Option(None, "--out", help=_RUNS_HELP),
    workers: int | None = typer.Option(None, "--workers", help=_WORKERS_HELP),
    as_json: bool = typer.Option(
        False, "--json", help="Print a JSON summary on stdout instead of the tables."
    ),
) -> None:
    """Run the default suite (families G and B, every policy) and print the ranked table."""
    _one_blas_thread()
    from pathlib import Path

    from heedful.bench.config import DEFAULT_CONFIG
    from heedful.bench.run.spec import run_spec
    from heedful.bench.suite import run_to_folder

    cfg = DEFAULT_CONFIG
    families = ",".join(cfg.suite_families)
    spec = run_spec(
        families=families,
        count=cfg.suite_count,
        trials=cfg.suite_trials,
        seed=seed,
        out=Path(out) if out else None,
        workers=workers,
    )
    # What `bench run --resume` needs to finish it: the same run, as bench run's options.
    same = {"family": families, "count": cfg.suite_count, "trials": cfg.suite_trials}
    with _interruptible(resumable=True) as seen:
        output = run_to_folder(
            spec, run_args={**same, "seed": seed, "out": out}, on_folder=seen.append
        )
    _print_run(output, as_json=as_json)


@contextlib.contextmanager
def _interruptible(*, resumable: bool) -> Iterator[list[Path]]:
    """Ctrl-C during a run: say where the run folder is and how to finish it, exit 130.

    The block appends the run folder to the yielded list once it is made.
    """
    seen: list[Path] = []
    try:
        yield seen
    except KeyboardInterrupt:
        if not seen:
            typer.echo("interrupted before the run folder was made: nothing to resume", err=True)
        elif not resumable:
            typer.echo(
                f"interrupted: a sealed hold-out run keeps no checkpoint; {seen[0]} holds "
                "nothing to resume — run it again",
                err=True,
            )
        else:
            folder = shlex.quote(str(seen[0]))
            typer.echo(
                f"interrupted: the run folder is {seen[0]}; finish it (finished scenarios are "
                f"not played again) with:\n  heedful bench run --resume {folder}",
                err=True,
            )
        raise typer.Exit(code=130) from None
