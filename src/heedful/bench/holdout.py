"""Sealed hold-out runs (SPEC §5; document 000 §22, Appendix C).

Hold-out scenarios live in a directory *outside* the project, are generated from their own seed
stream (``heedful scenario generate --holdout``), and a hold-out run publishes aggregates only:
no per-trial records, no scenario ids or text, no oracle answers — not in ``results.json``, not
in ``report.html``, not on the terminal, not in error messages.
"""

from __future__ import annotations

from pathlib import Path

import heedful
from heedful.bench.manifest import git_output
from heedful.errors import InvalidArgumentError, ScenarioError
from heedful.model import Scenario, load_scenario_set


def _git_toplevel(where: Path) -> Path | None:
    top = git_output(where, "rev-parse", "--show-toplevel")
    return Path(top).resolve() if top is not None else None


def project_roots(cwd: Path | None = None) -> list[Path]:
    """Directories a hold-out set must stay out of: the checkout holding heedful and the current
    working directory's checkout (or the working directory itself outside git)."""
    here = (cwd or Path.cwd()).resolve()
    roots = {_git_toplevel(Path(heedful.__file__).resolve().parent), _git_toplevel(here) or here}
    return sorted(r for r in roots if r is not None)


def load_holdout(directory: Path, *, cwd: Path | None = None) -> list[Scenario]:
    """Load a sealed hold-out set, refusing directories inside the project.

    Raises:
        InvalidArgumentError: missing directory, or one inside the project.
        ScenarioError: an invalid file — with the details withheld (they could quote the set).
    """
    d = directory.resolve()
    if not d.is_dir():
        raise InvalidArgumentError("the hold-out path is not a directory")
    for root in project_roots(cwd):
        if d == root or root in d.parents:
            raise InvalidArgumentError(
                "the hold-out directory must live outside the project "
                "(document 000 §22.1: hold-out cases stored outside readable repositories)"
            )
    try:
        return load_scenario_set([d])
    except ScenarioError:
        raise ScenarioError(
            "a hold-out scenario file is invalid; details are withheld from hold-out output — "
            "run `heedful scenario validate` on it from the evaluator side"
        ) from None
