"""A run's finished scenarios on disk, so a killed ``heedful bench run`` resumes (``--resume``).

While a run plays, each finished scenario's outcome goes to one JSON file in the run folder's
``.partial/`` (written to a temporary name, then renamed: a kill mid-write leaves no half file):
an inspection scenario's summary and trial records in ``scenario-<index>.json``
(:data:`SCENARIOS`), a switching or schedule scenario's trials in ``kind-<index>.json``
(``KIND_KEPT`` of :mod:`heedful.bench.run.kinds`); :func:`heedful.bench.run.driver.drive` keeps
and reads them for every kind. A resumed run reads them instead of playing those scenarios
again — a scenario's outcome is a function of the scenario, its world key and the run's settings
only (see :func:`heedful.bench.run.runner._run_scenario` and
:class:`heedful.bench.run.kinds.KindTask`), so the results are those of one uninterrupted run.
When ``results.json`` is written the folder is removed. A sealed hold-out run keeps no
checkpoint (its trial records never reach the disk).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from heedful.bench.results import ScenarioSummary, TrialRecord
from heedful.bench.results.plays import Plays
from heedful.errors import InvalidArgumentError

__all__ = ["PARTIAL", "SCENARIOS", "Checkpoint", "Part"]

R = TypeVar("R")

#: The folder of a run's checkpoint, inside the run folder.
PARTIAL = ".partial"
_ARGS = "args.json"


class Checkpoint:
    """The finished scenarios of one run folder.

    Args:
        folder: The run folder (``.partial/`` is made inside it on the first save).
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.dir = folder / PARTIAL

    def _write(self, name: str, text: str) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.dir / f"{name}.tmp"
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(self.dir / name)

    def save_args(self, args: Mapping[str, Any]) -> None:
        """Record the run's arguments (what ``--resume`` runs again)."""
        self._write(_ARGS, json.dumps(dict(args), indent=1, sort_keys=True))

    def load_args(self) -> dict[str, Any]:
        """The arguments the run was started with.

        Raises:
            InvalidArgumentError: the folder holds no unfinished run.
        """
        if (self.folder / "results.json").exists():
            raise InvalidArgumentError(
                f"--resume: {self.folder} holds a finished run (results.json); nothing to resume"
            )
        path = self.dir / _ARGS
        try:
            args = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InvalidArgumentError(
                f"--resume: {self.folder} is not an unfinished run folder ({PARTIAL}/{_ARGS} "
                "is missing)"
            ) from None
        except (OSError, json.JSONDecodeError) as exc:
            raise InvalidArgumentError(f"--resume: cannot read {path}: {exc}") from None
        if not isinstance(args, dict):
            raise InvalidArgumentError(f"--resume: {path} is not a JSON object")
        return args

    def _path(self, part: str, index: int) -> Path:
        return self.dir / f"{part}-{index:06d}.json"

    def keep(self, part: Part[R], index: int, scenario_id: str, outcome: R) -> None:
        """Keep the outcome of scenario ``index`` of one kind's scenarios (``part``)."""
        body = {"scenario_id": scenario_id, **part.dump(outcome)}
        self._write(self._path(part.part, index).name, json.dumps(body))

    def kept(self, part: Part[R], index: int, scenario_id: str) -> R | None:
        """Scenario ``index``'s kept outcome, or ``None`` when it has to be played.

        A file that does not read back (another scenario at this index, a damaged file) is not
        used: the scenario is played again, which is what an uninterrupted run would do.
        """
        path = self._path(part.part, index)
        if not path.exists():
            return None
        try:
            body = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(body, dict) or body.get("scenario_id") != scenario_id:
                return None
            return part.load(body)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def clear(self) -> None:
        """Remove the checkpoint (the run's results are written)."""
        shutil.rmtree(self.dir, ignore_errors=True)


def _dump_scenario(outcome: tuple[ScenarioSummary, list[TrialRecord], Plays]) -> dict[str, Any]:
    summary, records, _ = outcome
    return {
        "summary": summary.model_dump(mode="json"),
        "trials": [r.model_dump(mode="json") for r in records],
    }


def _load_scenario(body: dict[str, Any]) -> tuple[ScenarioSummary, list[TrialRecord], Plays]:
    summary = ScenarioSummary.model_validate(body["summary"])
    return summary, [TrialRecord.model_validate(r) for r in body["trials"]], {}


@dataclass(frozen=True)
class Part(Generic[R]):
    """How one kind's scenario outcomes are kept in a checkpoint.

    Attributes:
        part: Their file names (``<part>-<index>.json``).
        dump: An outcome as JSON data.
        load: The outcome again; raises ``ValueError`` (pydantic's ``ValidationError`` is one),
            ``KeyError`` or ``TypeError`` on data that does not read back (the scenario is then
            played again).
    """

    part: str
    dump: Callable[[R], dict[str, Any]]
    load: Callable[[dict[str, Any]], R]


#: The inspection scenarios' outcomes: summary and trial records (their plays are not kept: the
#: reports replay them, with the same outcome).
SCENARIOS: Part[tuple[ScenarioSummary, list[TrialRecord], Plays]] = Part(
    "scenario", _dump_scenario, _load_scenario
)
