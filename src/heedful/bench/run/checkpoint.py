"""A run's finished scenarios on disk, so a killed ``heedful bench run`` resumes (``--resume``).

While a run plays, each finished scenario's summary and trial records go to one JSON file in
the run folder's ``.partial/`` (written to a temporary name, then renamed: a kill mid-write leaves
no half file). A resumed run reads them instead of playing those scenarios again — a scenario's
outcome is a function of the scenario, its world key and the run's settings only (see
:func:`heedful.bench.run.runner._run_scenario`), so the results are those of one uninterrupted
run. When ``results.json`` is written the folder is removed. A sealed hold-out run keeps no
checkpoint (its trial records never reach the disk).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from heedful.bench.results import ScenarioSummary, TrialRecord
from heedful.errors import InvalidArgumentError

__all__ = ["PARTIAL", "Checkpoint"]

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

    def _name(self, index: int) -> str:
        return f"scenario-{index:06d}.json"

    def save(
        self, index: int, scenario_id: str, summary: ScenarioSummary, records: list[TrialRecord]
    ) -> None:
        """Keep scenario ``index``'s outcome."""
        body = {
            "scenario_id": scenario_id,
            "summary": summary.model_dump(mode="json"),
            "trials": [r.model_dump(mode="json") for r in records],
        }
        self._write(self._name(index), json.dumps(body))

    def load(
        self, index: int, scenario_id: str
    ) -> tuple[ScenarioSummary, list[TrialRecord]] | None:
        """Scenario ``index``'s kept outcome, or ``None`` when it has to be played.

        A file that does not read back (another scenario at this index, a damaged file) is not
        used: the scenario is played again, which is what an uninterrupted run would do.
        """
        path = self.dir / self._name(index)
        if not path.exists():
            return None
        try:
            body = json.loads(path.read_text(encoding="utf-8"))
            if body.get("scenario_id") != scenario_id:
                return None
            summary = ScenarioSummary.model_validate(body["summary"])
            records = [TrialRecord.model_validate(r) for r in body["trials"]]
        except (OSError, ValueError, KeyError, TypeError, ValidationError):
            return None
        return summary, records

    def clear(self) -> None:
        """Remove the checkpoint (the run's results are written)."""
        shutil.rmtree(self.dir, ignore_errors=True)
