"""Sealed hold-outs: made from a secret key, run for aggregates only (SPEC §5; document 000 §22,
Appendix C).

``heedful holdout make`` draws every hold-out scenario from a seed derived from a secret key of at
least 256 bits (HMAC-SHA-256 of the key and the scenario's family and index) and names it with an
opaque keyed hash (``hx-…``) that says nothing about family, seed or index. The key lives in a
file outside the project; without it nothing in the project — nor an agent that reads the project,
the public generators and a scenario's id — can regenerate a hold-out scenario or its truth.

A hold-out run (``--holdout DIR``) reads scenarios from a directory outside the project, refuses
ids that look like the public generator's (a set made from a public seed could be re-derived), and
publishes aggregates only: no per-trial records, no scenario ids or text, no oracle answers — not
in ``results.json``, not in ``report.html``, not on the terminal, not in error messages.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import yaml

import heedful
from heedful.bench.manifest import git_output
from heedful.bench.worlds.families import DEFAULT_SHIFT, check_shift, generator_versions, get_family
from heedful.errors import InputError, InvalidArgumentError, ScenarioError
from heedful.files import check_private, read_input
from heedful.model import Scenario, load_scenario_set, scenario_files, scenario_to_dict

#: Bytes of a new key (256 bits); shorter keys are refused.
KEY_BYTES = 32
#: Largest key file read (a key is 65 bytes of hex text; anything larger is not one).
_MAX_KEY_FILE_BYTES = 4096
#: Format tag of the ``holdout.json`` written beside a hold-out set.
HOLDOUT_FORMAT = "heedful.holdout/v1"
#: The manifest file beside the scenarios of a hold-out set (not a scenario file).
MANIFEST_NAME = "holdout.json"
#: Ids :func:`holdout_id` gives: only ``heedful holdout make`` writes them.
HOLDOUT_ID = re.compile(r"^hx-[0-9a-f]{20}$")
#: Ids the public generators give (``G-d0-0007``, ``B-h913-0002-u``): a hold-out must not use them.
PUBLIC_ID = re.compile(r"^[A-Za-z]-[dh]\d+-\d{4}(-u)?$")


def _git_toplevel(where: Path) -> Path | None:
    top = git_output(where, "rev-parse", "--show-toplevel")
    return Path(top).resolve() if top is not None else None


def project_roots(cwd: Path | None = None) -> list[Path]:
    """Directories a hold-out set must stay out of: the git checkout holding heedful (when it
    runs from one) and the git checkout of the current working directory (when there is one).

    A working directory outside any checkout (a home directory, an evaluator's folder) is not a
    project: ``--key-file ~/.heedful/holdout.key`` run from ``~`` is where an evaluator keeps it.
    """
    here = (cwd or Path.cwd()).resolve()
    roots = {_git_toplevel(Path(heedful.__file__).resolve().parent), _git_toplevel(here)}
    return sorted(r for r in roots if r is not None)


def _private_dir(path: Path) -> None:
    """Create ``path`` (and parents) and make it 0700: only its owner may list a sealed set."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.chmod(0o700)


def _write_private(path: Path, text: str, *, exclusive: bool = False) -> None:
    """Write ``text`` to ``path`` readable by its owner only (0600, whatever the umask)."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        os.fchmod(fh.fileno(), 0o600)
        fh.write(text)


def _inside_project(path: Path, cwd: Path | None) -> bool:
    p = path.resolve()
    return any(p == root or root in p.parents for root in project_roots(cwd))


def load_or_create_key(path: Path, *, cwd: Path | None = None) -> tuple[bytes, bool]:
    """Read the hold-out key at ``path``, or create one there (256 random bits, mode 0600).

    Returns:
        The key and whether it was created now.

    Raises:
        InvalidArgumentError: the path is inside the project, not a regular file, unreadable,
            readable by group or others, or holds a key that is not hex text of at least 256
            bits.
    """
    if _inside_project(path, cwd):
        raise InvalidArgumentError(
            f"{path}: the hold-out key must live outside the project (document 000 §22.1)"
        )
    if not path.exists():
        key = secrets.token_bytes(KEY_BYTES)
        try:
            if not path.parent.exists():
                _private_dir(path.parent)
            _write_private(path, key.hex() + "\n", exclusive=True)
        except OSError as exc:
            raise InvalidArgumentError(f"{path}: cannot create the key: {exc.strerror}") from None
        return key, True
    try:
        # Refused before it is opened: a pipe, a device (/dev/zero), a folder; then a key that
        # others can read (it would let them regenerate every scenario of the set).
        raw = read_input(path, _MAX_KEY_FILE_BYTES)
        check_private(path, "the hold-out key")
    except InputError as exc:
        raise InvalidArgumentError(str(exc)) from None
    try:
        if len(raw) > _MAX_KEY_FILE_BYTES:
            raise ValueError("too long")
        key = bytes.fromhex(raw.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        raise InvalidArgumentError(f"{path}: a hold-out key file holds hex text") from None
    if len(key) < KEY_BYTES:
        raise InvalidArgumentError(
            f"{path}: the key has {len(key) * 8} bits; at least {KEY_BYTES * 8} are needed"
        )
    return key, False


def _files_in(directory: Path) -> list[Path]:
    """Scenario-like files below ``directory`` (none is not an error here)."""
    try:
        return scenario_files([directory])
    except ScenarioError:
        return []


def _mac(key: bytes, *parts: str) -> bytes:
    return hmac.new(key, "|".join(parts).encode(), hashlib.sha256).digest()


def holdout_id(key: bytes, family: str, index: int) -> str:
    """The opaque id of hold-out scenario ``index`` of ``family`` (a keyed hash, 80 bits)."""
    return "hx-" + _mac(key, "id", family, str(index)).hex()[:20]


def holdout_rngs(
    key: bytes, family: str, index: int
) -> tuple[np.random.Generator, np.random.Generator]:
    """The (structure, wording) generators of hold-out scenario ``index`` of ``family``: seeded
    with 256 bits derived from the key, so they cannot be found by searching small seeds."""
    entropy = int.from_bytes(_mac(key, "seed", family, str(index)), "big")
    structure, wording = np.random.SeedSequence(entropy).spawn(2)
    return np.random.default_rng(structure), np.random.default_rng(wording)


def holdout_world_rng(key: bytes, family: str, index: int) -> np.random.Generator:
    """The generator of the hidden model of hold-out scenario ``index`` (keyed like the rest)."""
    entropy = int.from_bytes(_mac(key, "world", family, str(index)), "big")
    return np.random.default_rng(np.random.SeedSequence(entropy))


def key_fingerprint(key: bytes) -> str:
    """A short keyed fingerprint that tells which key made a set, revealing nothing of it."""
    return _mac(key, "fingerprint").hex()[:16]


@dataclass(frozen=True)
class HoldoutSet:
    """A hold-out set written by :func:`make_holdout`."""

    directory: Path
    files: list[Path]
    key_created: bool
    fingerprint: str


def make_holdout(
    families: Sequence[str],
    count: int,
    key_file: Path,
    out: Path,
    *,
    cwd: Path | None = None,
    shift: float = DEFAULT_SHIFT,
) -> HoldoutSet:
    """Generate ``count`` hold-out scenarios per family from the key in ``key_file``.

    ``shift`` is the distance of the hidden models from the controller's defaults (see
    :func:`heedful.bench.worlds.families.generate_family`); it is recorded in the generator
    versions.

    Each scenario is written to ``out/<opaque id>.yaml``; ``out/holdout.json`` records the
    families, count, generator versions and the key's fingerprint (never the key or a seed).

    Raises:
        InvalidArgumentError: ``count < 1``, no family, the key file or ``out`` inside the project,
            ``out`` already holding scenario files, or a bad key file.
        UnknownNameError: an unknown family.
    """
    if count < 1:
        raise InvalidArgumentError(f"count must be at least 1, got {count}")
    fams = [get_family(f) for f in families]
    shift = check_shift(shift)
    if not fams:
        raise InvalidArgumentError("no family given")
    if _inside_project(out, cwd):
        raise InvalidArgumentError(
            f"{out}: the hold-out directory must live outside the project (document 000 §22.1)"
        )
    if out.is_dir() and any(f.name != MANIFEST_NAME for f in _files_in(out)):
        raise InvalidArgumentError(f"{out}: already holds scenario files; give an empty folder")
    key, created = load_or_create_key(key_file, cwd=cwd)
    try:
        _private_dir(out)
    except OSError as exc:
        raise InvalidArgumentError(f"{out}: cannot create: {exc.strerror}") from None
    files: list[Path] = []
    for fam in fams:
        for i in range(count):
            sid = holdout_id(key, fam.code, i)
            rng, wording = holdout_rngs(key, fam.code, i)
            world = fam.draw_world(shift, holdout_world_rng(key, fam.code, i))
            scenario = fam.make(rng, wording, sid, world)
            path = out / f"{sid}.yaml"
            text = yaml.safe_dump(scenario_to_dict(scenario), sort_keys=False, allow_unicode=True)
            _write_private(path, text)
            files.append(path)
    fingerprint = key_fingerprint(key)
    manifest = {
        "format": HOLDOUT_FORMAT,
        "families": [f.code for f in fams],
        "count": count,
        "generator_versions": generator_versions([f.code for f in fams], shift=shift),
        "key_fingerprint": fingerprint,
        "created_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "heedful_version": heedful.__version__,
    }
    _write_private(out / MANIFEST_NAME, json.dumps(manifest, indent=1) + "\n")
    return HoldoutSet(out, sorted(files), created, fingerprint)


#: What a sealed run records for a family whose set has no ``holdout.json`` naming its version.
UNRECORDED = "unrecorded (no holdout.json beside the set)"


def holdout_versions(directory: Path, families: Sequence[str]) -> dict[str, str]:
    """The generator versions a sealed run records (document 000 §22.2, step 4): those the
    set's ``holdout.json`` names — the machinery, the shift and each family's version when the
    set was made — for the families the run plays; a family it does not name (or a set without
    the file) is recorded as :data:`UNRECORDED`, never as the current code's version.

    Raises:
        InvalidArgumentError: ``holdout.json`` is unreadable or not a hold-out manifest.
    """
    path = directory / MANIFEST_NAME
    made: dict[str, str] = {}
    if path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            raise InvalidArgumentError(
                f"the hold-out set's {MANIFEST_NAME}: not a readable hold-out manifest"
            ) from None
        versions = data.get("generator_versions") if isinstance(data, dict) else None
        if (
            not isinstance(data, dict)
            or data.get("format") != HOLDOUT_FORMAT
            or not isinstance(versions, dict)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in versions.items())
        ):
            raise InvalidArgumentError(  # no path: hold-out output never names the set's place
                f"the hold-out set's {MANIFEST_NAME}: not a {HOLDOUT_FORMAT} manifest with "
                "generator_versions"
            )
        made = dict(versions)
    out: dict[str, str] = {k: made[k] for k in ("generator", "shift") if k in made}
    out.update({f: made.get(f, UNRECORDED) for f in sorted(families)})
    return out


def load_holdout(directory: Path, *, cwd: Path | None = None) -> list[Scenario]:
    """Load a sealed hold-out set, refusing directories inside the project.

    Raises:
        InvalidArgumentError: missing directory, or one inside the project.
        ScenarioError: an invalid file — with the details withheld (they could quote the set).
    """
    d = directory.resolve()
    if not d.is_dir():
        raise InvalidArgumentError(f"{directory}: the hold-out path is not a directory")
    for root in project_roots(cwd):
        if d == root or root in d.parents:
            raise InvalidArgumentError(
                "the hold-out directory must live outside the project "
                "(document 000 §22.1: hold-out cases stored outside readable repositories)"
            )
    files = [f for f in _files_in(d) if f.name != MANIFEST_NAME]
    if not files:
        raise InvalidArgumentError("the hold-out directory holds no scenario file")
    try:
        scenarios = load_scenario_set(files)
    except ScenarioError:
        raise ScenarioError(
            "a hold-out scenario file is invalid; details are withheld from hold-out output — "
            "run `heedful scenario validate` on it from the evaluator side"
        ) from None
    public = sum(1 for s in scenarios if PUBLIC_ID.match(s.id))
    if public:
        raise InvalidArgumentError(
            f"{public} hold-out scenario(s) carry ids of the public generators: such a set comes "
            "from a public seed and can be re-derived by anything that reads the project — "
            "make the hold-out with `heedful holdout make --key-file PATH`"
        )
    return scenarios


def refuse_sealed_files(paths: Sequence[Path], ids: Sequence[str] = ()) -> None:
    """Refuse to run a sealed hold-out set as ordinary scenario files (``--scenarios``).

    An unsealed run writes per-trial records, scenario ids, worlds and oracle answers — by
    default into ``runs/`` of the working directory, often the project the agent can read. A
    hold-out set runs with ``--holdout DIR`` only (aggregates only). Checked on the paths (a
    folder holding ``holdout.json``, or a file beside one) before loading, and on the loaded
    ``ids`` (a hold-out file copied elsewhere keeps its ``hx-`` id).

    Raises:
        InvalidArgumentError: naming the way to run the set sealed.
    """
    sealed = any(
        (p / MANIFEST_NAME).is_file() if p.is_dir() else (p.parent / MANIFEST_NAME).is_file()
        for p in paths
    )
    if sealed or any(HOLDOUT_ID.match(i) for i in ids):
        raise InvalidArgumentError(
            "these are sealed hold-out scenarios (holdout.json, hx- ids): an ordinary run would "
            "write their ids, worlds and oracle answers — run them with `--holdout DIR` "
            "(aggregates only); `heedful bench oracle FILE` values one on the evaluator side"
        )


def refuse_cache_in_project(cache: str | Path | None, *, cwd: Path | None = None) -> None:
    """Refuse an agent response cache inside the project for a hold-out run.

    The cache stores every request beside its response — the hold-out scenario's id (as the
    draw), its task, its sources and every tool result — so in the project it would hand the
    sealed set to whatever reads the project next.

    Raises:
        InvalidArgumentError: naming ``--cache`` outside the project and ``--no-cache``.
    """
    if cache is not None and _inside_project(Path(cache), cwd):
        raise InvalidArgumentError(
            f"{cache}: an agent's response cache holds every prompt and tool result of the "
            "hold-out; give --cache FILE outside the project, or --no-cache"
        )
