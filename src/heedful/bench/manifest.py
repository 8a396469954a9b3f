"""Run manifest: freeze what was evaluated (document 000 §22.2; SPEC §5)."""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pydantic

import heedful
from heedful.bench.config import BenchConfig
from heedful.bench.results import Manifest, PolicySpec
from heedful.model import Scenario, scenario_to_dict


def canonical_hash(obj: Any) -> str:
    """Return the SHA-256 of the canonical JSON of ``obj`` (sorted keys, no spaces)."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def scenario_set_hash(scenarios: Sequence[Scenario]) -> str:
    """Hash of the full scenario set (visible and private halves), in run order."""
    return canonical_hash([scenario_to_dict(s) for s in scenarios])


def policy_config_hash(policies: Sequence[PolicySpec]) -> str:
    """Hash of the evaluated policies' names and parameters."""
    return canonical_hash([p.model_dump(mode="json") for p in policies])


def git_output(where: Path, *args: str) -> str | None:
    """Return the stripped output of ``git -C where <args>``, or ``None`` if git fails or is
    missing."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(where), *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def git_state(path: Path | None = None) -> tuple[str | None, bool | None]:
    """Return ``(commit, dirty)`` of the git checkout holding ``path`` (default: heedful itself).

    ``(None, None)`` when git is missing or the code is not in a git checkout.
    """
    where = path or Path(heedful.__file__).resolve().parent
    commit = git_output(where, "rev-parse", "HEAD")
    if commit is None:
        return None, None
    status = git_output(where, "status", "--porcelain", "--untracked-files=no")
    return commit, (bool(status) if status is not None else None)


def build_manifest(
    *,
    seed: int,
    condition: str,
    trials: int,
    policies: Sequence[PolicySpec],
    scenarios: Sequence[Scenario],
    scenario_source: str,
    generator_versions: dict[str, str],
    config: BenchConfig,
) -> Manifest:
    """Assemble the manifest of a run."""
    commit, dirty = git_state()
    return Manifest(
        heedful_version=heedful.__version__,
        git_commit=commit,
        git_dirty=dirty,
        python=sys.version.split()[0],
        numpy=np.__version__,
        pydantic=pydantic.VERSION,
        platform=platform.platform(),
        created_utc=datetime.now(UTC).isoformat(timespec="seconds"),
        seed=seed,
        condition="adaptive" if condition == "adaptive" else "static",
        trials=trials,
        policies=list(policies),
        policy_config_hash=policy_config_hash(policies),
        scenario_source=scenario_source,
        generator_versions=generator_versions,
        scenario_set_hash=scenario_set_hash(scenarios),
        n_scenarios=len(scenarios),
        config=config.model_dump(mode="json"),
    )
