"""``heedful learn``: train the supervised attention ranker (document 000 §20.1)."""

from __future__ import annotations

import typer

from heedful.cli._app import console
from heedful.cli._backend import address_option, backend_option, open_backend
from heedful.wording import count as count_of

learn_app = typer.Typer(
    help="Learn the attention policy: train the ranker behind voc-learned.",
    no_args_is_help=True,
)


@learn_app.command("train")
def learn_train(
    family: str = typer.Option(
        "G,B,C,E", "--family", help="Families to train on, e.g. G,B,C,E (or all)."
    ),
    count: int = typer.Option(
        100, "--count", help="Training scenarios per family (the default model's: 100)."
    ),
    seed: int = typer.Option(0, "--seed", help="Root seed of the training scenarios."),
    rounds: int = typer.Option(
        2, "--rounds", help="Collection rounds (round ≥ 2 adds the ranker's own states)."
    ),
    out: str = typer.Option(..., "--out", help="Model JSON file to write."),
    workers: int | None = typer.Option(
        None,
        "--workers",
        help="Processes collecting training rows (default: one per CPU core); same model.",
    ),
    backend: str = backend_option(),
    address: str | None = address_option(),
) -> None:
    """Train the ranker on training-stream scenarios and write a plain-JSON model file.

    --backend ray collects each scenario's rows as a Ray task (same model; docs/ray.md).
    """
    import shlex
    import sys
    from pathlib import Path

    from heedful.bench.parallel import resolve_workers
    from heedful.bench.run.backend import local_backend
    from heedful.bench.worlds.families import parse_family_list
    from heedful.errors import InvalidArgumentError
    from heedful.learn.train import train_model

    target = Path(out)
    if target.is_dir() or not target.parent.is_dir():
        raise InvalidArgumentError(f"--out {out}: needs a file path in an existing folder")
    codes = [f.code for f in parse_family_list(family)]
    command = "heedful learn train " + shlex.join(sys.argv[3:] if len(sys.argv) > 3 else [])
    n_workers = resolve_workers(workers)
    with open_backend(backend, address) as jobs:
        model = train_model(
            codes,
            count,
            seed,
            rounds=rounds,
            progress=sys.stderr.isatty(),
            command=command.strip(),
            backend=jobs or local_backend(n_workers),
        )
    model.save(target)
    man = model.manifest
    n_fam = len(codes)
    # Through the console: wrapped at the terminal's width.
    console().print(
        f"model: {target} ({count_of(man['rows'], 'row')} from {count_of(count, 'scenario')} × "
        f"{count_of(n_fam, 'family')}, {man['train_seconds']} s)",
        markup=False,
        highlight=False,
    )
    console().print(_selection_line(man), markup=False, highlight=False)


@learn_app.command("calibrate")
def learn_calibrate(
    family: str = typer.Option(
        "all", "--family", help="Inspection families to fit on, e.g. G,B (or all)."
    ),
    count: int = typer.Option(
        40, "--count", help="Training scenarios per family (the shipped map's: 40)."
    ),
    seed: int = typer.Option(0, "--seed", help="Root seed of the training scenarios."),
    out: str = typer.Option(..., "--out", help="Calibration JSON file to write."),
) -> None:
    """Fit the default estimator's predicted-VOC calibration on training-stream scenarios.

    The shipped map is src/heedful/attention/data/voc_calibration.json (issue 24).
    """
    import json
    import shlex
    import sys
    from pathlib import Path

    from heedful.bench.worlds.families import parse_family_list
    from heedful.errors import InvalidArgumentError
    from heedful.files import write_output
    from heedful.learn.voc_calibration import fit_voc_calibration

    target = Path(out)
    if target.is_dir() or not target.parent.is_dir():
        raise InvalidArgumentError(f"--out {out}: needs a file path in an existing folder")
    if count < 1:
        raise InvalidArgumentError(f"--count must be at least 1, got {count}")
    codes = [f.code for f in parse_family_list(family)]
    command = "heedful learn calibrate " + shlex.join(sys.argv[3:] if len(sys.argv) > 3 else [])
    cal, n = fit_voc_calibration(codes, count, seed, command=command.strip())
    write_output(target, json.dumps(cal.to_dict(), indent=1) + "\n", option="--out")
    console().print(
        f"calibration: {target} ({count_of(len(cal.knots_x), 'knot')} from "
        f"{count_of(n, 'positive prediction')})",
        markup=False,
        highlight=False,
    )


def _selection_line(manifest: dict[str, object]) -> str:
    """What the validation kept, in one sentence (``fit``, ``validation`` of the manifest)."""
    val = manifest.get("validation")
    if not isinstance(val, dict):
        return f"kept: {manifest.get('fit')}"
    regret = val.get("mean_regret", {})
    best = val.get("best_fit") or {}
    none = regret.get("none", float("nan"))
    n = val.get("scenarios")
    if val.get("selected", "none") == "none":
        why = (
            f"no fit beat it by more than {val.get('selection_z')} standard error on {n} "
            f"validation scenarios (best: {_fit_name(best.get('fit'))}, gain "
            f"{best.get('mean_gain', 0):+.4f} ± {best.get('se', 0):.4f})"
            if best
            else "nothing to compare"
        )
        return f"kept: no correction (voc-learned ranks as voc-model): {why}."
    chosen = str(val["selected"])
    return (
        f"kept: {_fit_name(chosen)}: validation regret "
        f"{regret.get(chosen, float('nan')):.4f} against "
        f"{none:.4f} without correction on {count_of(int(n or 0), 'scenario')} "
        f"(gain {best.get('mean_gain', 0):+.4f} "
        f"± {best.get('se', 0):.4f})."
    )


def _fit_name(fit: object) -> str:
    """``search`` → ``regret search``; a ridge penalty ``1000.0`` → ``ridge (penalty 1,000)``."""
    if fit == "search":
        return "regret search"
    try:
        return f"ridge (penalty {float(str(fit)):,.0f})"
    except ValueError:
        return str(fit)


def register(root: typer.Typer) -> None:
    """Add ``heedful learn`` to the root app."""
    root.add_typer(learn_app, name="learn")
