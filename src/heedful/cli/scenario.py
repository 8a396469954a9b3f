"""``heedful scenario``: validate, generate and describe scenario files."""

from __future__ import annotations

import typer

from heedful.cli._app import fail
from heedful.wording import count as count_of

scenario_app = typer.Typer(
    help="Validate, generate and describe scenario files.", no_args_is_help=True
)


def register(root: typer.Typer) -> None:
    """Add the ``scenario`` group to the root app."""
    root.add_typer(scenario_app, name="scenario")


@scenario_app.command("validate")
def scenario_validate(
    paths: list[str] = typer.Argument(
        ..., metavar="FILE...", help="Scenario files or directories (*.yaml, *.yml, *.json)."
    ),
) -> None:
    """Validate scenario files; print `ok FILE (N scenarios)` for each."""
    from heedful.model import scenario_files
    from heedful.model.kinds_io import load_any_scenarios

    for path in scenario_files(paths):
        n = len(load_any_scenarios(path))
        typer.echo(f"ok {path} ({n} scenario{'' if n == 1 else 's'})")


@scenario_app.command("schema")
def scenario_schema(
    markdown: bool = typer.Option(
        False,
        "--markdown",
        help="Print every field of every kind with its type, as markdown tables (the table of "
        "docs/scenario-format.md).",
    ),
) -> None:
    """Print the JSON Schema of scenario files, every kind.

    One schema for the three kinds (inspection, switching, schedule); docs/scenario-format.md
    lists every field with its type.
    """
    import json

    from heedful.model.kinds_io import all_scenario_json_schema

    if markdown:
        from heedful.model.schema_table import markdown_field_tables

        typer.echo(markdown_field_tables(all_scenario_json_schema()), nl=False)
        return
    typer.echo(json.dumps(all_scenario_json_schema(), indent=2, ensure_ascii=False))


@scenario_app.command("generate")
def scenario_generate(
    family: str = typer.Option(
        ..., "--family", help="Family code or name, e.g. G or budgeted (or D, J)."
    ),
    count: int = typer.Option(10, "--count", help="How many scenarios."),
    seed: int = typer.Option(0, "--seed", help="Root seed."),
    out: str | None = typer.Option(None, "--out", help="YAML file to write (default: stdout)."),
    holdout: bool = typer.Option(
        False, "--holdout", hidden=True, help="Retired: use `heedful holdout make`."
    ),
    unprompted: bool = typer.Option(
        False, "--unprompted", help="Generate the unprompted twins (SPEC §4.2)."
    ),
    shift: float = typer.Option(
        1.0,
        "--shift",
        help="Distance of the hidden worlds from the controller's model (0 = its defaults).",
    ),
) -> None:
    """Generate scenarios of one family as a YAML list."""

    import yaml

    from heedful.bench.seeds import Stream
    from heedful.bench.worlds.families import generate_family
    from heedful.model import Condition, scenario_to_dict

    if holdout:
        # A set drawn from a public seed can be re-derived by anything that reads the project.
        raise fail(
            "--holdout is retired: a hold-out from a public seed can be regenerated; "
            "use `heedful holdout make --family F --count N --key-file PATH --out DIR`"
        )
    stream = Stream.DEV
    cond = Condition.UNPROMPTED if unprompted else Condition.ANNOUNCED
    from heedful.bench.run.split import kind_code

    code = kind_code(family)
    if code is not None:  # families D and J: switching / schedule scenarios
        from heedful.bench.kinds import generate_kind_family
        from heedful.model.kinds_io import any_scenario_to_dict

        if unprompted:
            raise fail(f"family {code} has no unprompted twin (it is not an inspection family)")
        items = [any_scenario_to_dict(s) for s in generate_kind_family(code, count, seed)]
    else:
        from heedful.bench.kinds import kind_families
        from heedful.bench.worlds.families import FAMILIES, family_names
        from heedful.errors import UnknownNameError

        try:
            made = generate_family(family, count, seed, stream=stream, condition=cond, shift=shift)
        except UnknownNameError:
            # Every family this command generates, the D/J kinds included.
            known = [(c, FAMILIES[c].name) for c in family_names()]
            known += [(f.code, f.name) for f in kind_families().values()]
            listed = ", ".join(f"{c} ({n})" for c, n in sorted(known))
            raise fail(f"unknown family {family!r}; known families: {listed}") from None
        items = [scenario_to_dict(s) for s in made]
    text = yaml.safe_dump(items, sort_keys=False, allow_unicode=True)
    if out is None:
        typer.echo(text, nl=False)
    else:
        from heedful.files import write_output

        write_output(out, text, option="--out")
        typer.echo(f"wrote {count_of(len(items), 'scenario')} to {out}")
