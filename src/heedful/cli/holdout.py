"""``heedful holdout make``: sealed hold-out sets from a secret key (document 000 §22)."""

from __future__ import annotations

import typer

from heedful.wording import count as count_of

holdout_app = typer.Typer(
    help="Make sealed hold-out sets that nothing in the project can regenerate.",
    no_args_is_help=True,
)


def register(root: typer.Typer) -> None:
    """Add the ``holdout`` group to the root app."""
    root.add_typer(holdout_app, name="holdout")


@holdout_app.command("make")
def holdout_make(
    family: str = typer.Option(..., "--family", help="Families, e.g. G,B or all."),
    count: int = typer.Option(..., "--count", help="Scenarios per family."),
    key_file: str = typer.Option(
        ...,
        "--key-file",
        help="Secret key file outside the project; created (256 random bits, mode 0600) if absent.",
    ),
    out: str = typer.Option(..., "--out", help="Empty folder outside the project to write to."),
    shift: float = typer.Option(
        1.0,
        "--shift",
        help="Distance of the hidden worlds from the controller's model (0 = its defaults).",
    ),
) -> None:
    """Generate a hold-out set: seeds derived from the key, opaque ids, no seed written."""
    from pathlib import Path

    from heedful.bench.worlds.families import parse_family_list
    from heedful.bench.worlds.holdout import make_holdout

    fams = [f.code for f in parse_family_list(family)]
    made = make_holdout(fams, count, Path(key_file), Path(out), shift=shift)
    if made.key_created:
        typer.echo(f"created a new key in {key_file} — keep it secret and outside the project")
    # Two lines: one of ~130 columns would wrap mid-path on an 80-column terminal.
    typer.echo(
        f"wrote {count_of(len(made.files), 'scenario')} to {made.directory}\n"
        f"key fingerprint {made.fingerprint}; run them with:\n"
        f"  heedful bench run --holdout {made.directory}"
    )
