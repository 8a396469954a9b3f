"""Real models under test: `llm` and `llm-advised` on the two local models, the README's table.

Runs ``heedful bench run`` for SmolLM2 135M and Gemma 3 270M (in process, the ``local`` extra) on
families G and B, each scenario announced and as its unprompted twin (``--condition both``),
then prints the table of docs/llm.md ("Real models"): score, the paired lift ``llm-advised −
llm``, decision accuracy, spontaneous authoritative inspection (unprompted), the failure split,
protocol errors, tokens and model time per trial, and whether the 135M model with heedful beats
the 270M model without it (paired by scenario, trial and world).

    .venv/bin/python examples/real_models.py --rounds 2 --update

A *round* is one seed: ``--count`` scenarios per family (each announced and unprompted), both
agents, both models. Rounds use seeds ``--seed``, ``--seed`` + 1, …; each adds new scenarios,
and the table pools them (pairs stay within a round). One run folder per (round, model,
family) under ``--out`` (default ``runs/real-models``), run in the order SmolLM2 G, Gemma G,
SmolLM2 B, Gemma B, round after round, so a run cut short still pairs the models. A finished
folder is read, not run again; an unfinished one resumes (``bench run --resume``), and
every answered model call is in the response cache ``--out``/llm-cache.sqlite. So the command is
also how the table is regenerated: run again, it reads the finished runs and prints the same
numbers. ``--update`` writes the short table into README.md and the full one into docs/llm.md,
between their ``<!-- real-models -->`` markers. Settings differing from the folder's are refused
(exit 2): give a new ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from heedful.bench.agents.compare import REVERT, compare_models, markdown_tables
from heedful.bench.results import TrialRecord, load_results
from heedful.bench.worlds.families.unprompted import UNPROMPTED_SUFFIX
from heedful.errors import HeedfulError

ROOT = Path(__file__).resolve().parents[1]
MODELS = {"local:smollm2-135m": "SmolLM2 135M", "local:gemma3-270m": "Gemma 3 270M"}
SMALL, LARGE = "local:smollm2-135m", "local:gemma3-270m"
FAMILIES = "G,B"
BASE = "llm"
#: The agents of a run: none (``llm``), prompt only (``llm-prompted``), heedful (``llm-advised``).
AGENTS = "llm,llm-prompted,llm-advised"
BLOCK = re.compile(r"(<!-- real-models:(short|full) -->\n).*?(<!-- /real-models -->)", re.S)


def _args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=1, help="scenarios per family and round")
    p.add_argument("--rounds", type=int, default=2, help="seeds (default 2: --seed, --seed + 1)")
    p.add_argument("--trials", type=int, default=1, help="trials per scenario (default 1)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--protocol", choices=("tools", "json"), default="tools")
    p.add_argument("--max-turns", type=int, default=6)
    p.add_argument("--max-tokens", type=int, default=128)
    p.add_argument("--timeout", type=float, default=900.0, help="seconds per model call")
    p.add_argument("--families", default=FAMILIES, help="families, in run order (default G,B)")
    p.add_argument(
        "--models",
        default=",".join(MODELS),
        help="models to run (default both; two instances with one model each may share --out: "
        "the table reads both)",
    )
    p.add_argument("--out", type=Path, default=ROOT / "runs" / "real-models")
    p.add_argument("--update", action="store_true", help="write README.md and docs/llm.md")
    p.add_argument(
        "--finished-only",
        action="store_true",
        help="run nothing: table the finished runs only, and name the ones missing",
    )
    return p.parse_args()


def _settings(a: argparse.Namespace) -> dict[str, object]:
    return {
        "count": a.count,
        "trials": a.trials,
        "seed": a.seed,
        "protocol": a.protocol,
        "max_turns": a.max_turns,
        "max_tokens": a.max_tokens,
    }


def _command(a: argparse.Namespace) -> str:
    parts = ["examples/real_models.py", f"--rounds {a.rounds}"]
    if a.finished_only:
        parts.append("--finished-only")
    for flag, value, default in (
        ("--count", a.count, 1),
        ("--families", a.families, FAMILIES),
        ("--trials", a.trials, 1),
        ("--seed", a.seed, 0),
        ("--protocol", a.protocol, "tools"),
        ("--max-turns", a.max_turns, 6),
        ("--max-tokens", a.max_tokens, 128),
    ):
        if value != default:
            parts.append(f"{flag} {value}")
    return ".venv/bin/python " + " ".join(parts)


def _check_folder(out: Path, settings: dict[str, object]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    path = out / "settings.json"
    if path.exists():
        saved = json.loads(path.read_text())
        if saved != settings:
            raise SystemExit(
                f"error: {out} holds a run with other settings ({saved}); give --out a new folder"
            )
    else:
        path.write_text(json.dumps(settings, indent=1) + "\n")


def _folder(a: argparse.Namespace, model: str, family: str, seed: int, revert: bool) -> Path:
    tail = "-revert" if revert else ""
    return a.out / f"seed{seed}-{model.removeprefix('local:')}-{family}{tail}"


def _run(
    a: argparse.Namespace,
    model: str,
    family: str,
    seed: int,
    *,
    revert: bool = False,
    run: bool = True,
) -> list[TrialRecord]:
    """The records of one (model, family, seed) run: read when finished, else run or resumed.

    ``revert``: the §26 revert run — ``llm`` alone again, the response cache off (every call
    made afresh), on the same scenarios, worlds and prompt order; its records are named
    :data:`REVERT`. Scenario ids get the seed in front (``s1:…``): two rounds may reuse an id."""
    folder = _folder(a, model, family, seed, revert)
    results = folder / "results.json"
    if not results.exists() and (a.finished_only or not run or not _lock(folder)):
        return []  # not to run here (or another instance is running it)
    if not results.exists():
        if (folder / ".partial" / "args.json").exists():  # a killed run: finish it
            cmd = ["--resume", str(folder)]
        else:
            cache = ["--no-cache"] if revert else ["--cache", str(a.out / "llm-cache.sqlite")]
            cmd = [
                "--family", family, "--condition", "both", "--count", str(a.count),
                "--trials", str(a.trials), "--seed", str(seed),
                "--policies", BASE if revert else AGENTS, "--model", model,
                "--protocol", a.protocol, "--max-turns", str(a.max_turns),
                "--max-tokens", str(a.max_tokens), "--timeout", str(a.timeout),
                "--retries", "1", *cache, "--out", str(folder),
            ]  # fmt: skip
        what = " (revert: llm again, no cache)" if revert else ""
        print(f"== seed {seed}, {MODELS[model]}, family {family}{what}", file=sys.stderr)
        start = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "heedful.cli", "bench", "run", *cmd, "--json"],
            stdout=subprocess.DEVNULL,
            check=False,
        )
        wall = folder / "wall.json"
        spent = json.loads(wall.read_text())["wall_s"] if wall.exists() else 0.0
        if folder.exists():
            wall.write_text(json.dumps({"wall_s": spent + time.monotonic() - start}) + "\n")
        (folder / ".lock").unlink(missing_ok=True)
        if proc.returncode == 2:  # bad input (a missing extra, say): its one line was printed
            raise SystemExit(2)
        if proc.returncode != 0:
            raise SystemExit(f"error: bench run of {model}, family {family}, seed {seed} failed")
    return [
        t.model_copy(
            update={"scenario_id": f"s{seed}:{t.scenario_id}"}
            | ({"policy": REVERT} if revert else {})
        )
        for t in load_results(results).trials
    ]


def _lock(folder: Path) -> bool:
    """Claim ``folder`` for this instance (``False``: a live instance holds it)."""
    folder.mkdir(parents=True, exist_ok=True)
    lock = folder / ".lock"
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        try:
            os.kill(int(lock.read_text() or "0"), 0)
            return False  # its holder is alive
        except (ProcessLookupError, ValueError):
            lock.unlink(missing_ok=True)  # a dead holder's: take it over
            return _lock(folder)
    with os.fdopen(fd, "w") as f:
        f.write(str(os.getpid()))
    return True


def _update(path: Path, kind: str, text: str) -> None:
    doc = path.read_text()
    new = BLOCK.sub(
        lambda m: m.group(1) + text + m.group(3) if m.group(2) == kind else m.group(0), doc
    )
    if not any(m.group(2) == kind for m in BLOCK.finditer(doc)):
        raise SystemExit(f"error: {path} has no <!-- real-models:{kind} --> block")
    path.write_text(new)


def main() -> None:
    a = _args()
    unknown = set(a.models.split(",")) - set(MODELS)
    if unknown:
        raise SystemExit(f"error: --models: unknown {', '.join(sorted(unknown))}")
    if min(a.count, a.trials, a.rounds) < 1:
        raise SystemExit("error: --count, --trials and --rounds must be at least 1")
    _check_folder(a.out, _settings(a))
    trials: dict[str, list[TrialRecord]] = {m: [] for m in MODELS}
    done: list[Path] = []
    missing: list[str] = []
    try:
        for seed in range(a.seed, a.seed + a.rounds):
            for family in a.families.split(","):
                for model in MODELS:
                    for revert in (False, True):
                        mine = model in a.models.split(",")
                        got = _run(a, model, family, seed, revert=revert, run=mine)
                        trials[model] += got
                        if got:
                            done.append(_folder(a, model, family, seed, revert))
                        else:
                            what = " revert (llm, no cache)" if revert else ""
                            missing.append(f"seed {seed} {MODELS[model]} {family}{what}")
    except HeedfulError as exc:
        raise SystemExit(f"error: {exc}") from None
    result = compare_models(trials, small=SMALL, large=LARGE)
    walls = [folder / "wall.json" for folder in done]
    wall = sum(json.loads(w.read_text())["wall_s"] for w in walls if w.exists())
    n = sum(len(t) for t in trials.values())
    per_family = {
        family: {
            t.scenario_id.removesuffix(UNPROMPTED_SUFFIX)
            for m in MODELS
            for t in trials[m]
            if t.family.split("/")[0] == family
        }
        for family in a.families.split(",")
    }
    scenarios = ", ".join(f"{f} {len(ids)}" for f, ids in per_family.items())
    note = (
        f"From `{_command(a)}` ({n} agent trials, {wall / 60:.0f} min of wall time summed "
        f"over its runs, {wall / max(n, 1):.0f} s per trial, on the shared 2-core machine "
        f"(other jobs running beside it); scenarios per family: {scenarios}, each announced and "
        f"unprompted, {a.count} per family and seed, {a.trials} trial each, "
        f"one thread, temperature 0, "
        f"`--protocol {a.protocol} --max-turns {a.max_turns} --max-tokens {a.max_tokens}`).\n\n"
    )
    if missing:
        note += (
            f"**Not run (cut short: {len(missing)} of {len(missing) + len(done)} runs "
            f"missing):** {', '.join(missing)}. The table holds only the runs that finished; "
            "its n is theirs.\n\n"
        )
    full = note + markdown_tables(result, names=MODELS, full=True)
    short = note + markdown_tables(result, names=MODELS, full=False)
    print(full)
    if a.update:
        _update(ROOT / "README.md", "short", short)
        _update(ROOT / "docs" / "llm.md", "full", full)
        print("updated README.md and docs/llm.md", file=sys.stderr)


if __name__ == "__main__":
    main()
