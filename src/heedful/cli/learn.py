"""``heedful learn``: train the supervised attention ranker (document 000 §20.1)."""

from __future__ import annotations

import typer

from heedful.cli._backend import address_option, backend_option, open_backend

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

    from heedful.bench.backend import local_backend
    from heedful.bench.families import parse_family_list
    from heedful.bench.parallel import resolve_workers
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
    typer.echo(
        f"model: {target} ({man['rows']} rows from {count} scenarios × {len(codes)} families, "
        f"{man['train_seconds']} s)"
    )


def register(root: typer.Typer) -> None:
    """Add ``heedful learn`` to the root app."""
    root.add_typer(learn_app, name="learn")
