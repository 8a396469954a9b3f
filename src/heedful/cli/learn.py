"""``heedful learn``: train the supervised attention ranker (document 000 §20.1)."""

from __future__ import annotations

import typer

learn_app = typer.Typer(
    help="Learn the attention policy: train the ranker behind voc-learned.",
    no_args_is_help=True,
)


@learn_app.command("train")
def learn_train(
    family: str = typer.Option(
        "G,B,C,E", "--family", help="Families to train on, e.g. G,B,C,E (or all)."
    ),
    count: int = typer.Option(30, "--count", help="Training scenarios per family."),
    seed: int = typer.Option(0, "--seed", help="Root seed of the training scenarios."),
    rounds: int = typer.Option(
        2, "--rounds", help="Collection rounds (round ≥ 2 adds the ranker's own states)."
    ),
    out: str = typer.Option(..., "--out", help="Model JSON file to write."),
) -> None:
    """Train the ranker on training-stream scenarios and write a plain-JSON model file."""
    import shlex
    import sys
    from pathlib import Path

    from heedful.bench.families import parse_family_list
    from heedful.errors import InvalidArgumentError
    from heedful.learn.train import train_model

    target = Path(out)
    if target.is_dir() or not target.parent.is_dir():
        raise InvalidArgumentError(f"--out {out}: needs a file path in an existing folder")
    codes = [f.code for f in parse_family_list(family)]
    command = "heedful learn train " + shlex.join(sys.argv[3:] if len(sys.argv) > 3 else [])
    model = train_model(
        codes,
        count,
        seed,
        rounds=rounds,
        progress=sys.stderr.isatty(),
        command=command.strip(),
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
