"""Time to refuse each hostile input file, against the CLI's own start-up in the same run.

Each input of the regression suite (tests/test_bad_inputs.py) — a 600-byte billion-laughs YAML,
/dev/zero, a 50 MB goal description, a 1,000,001-character string, 150 levels of nesting, a
recursive alias, invalid UTF-8, ``heartbeat_ms: .inf``, ``budget: true`` — is given to the real
``heedful`` command in a fresh process. The script prints each refusal's wall time (best of
``--repeats``), its exit code and first line, and the ratio to ``heedful version`` (the cost of
starting Python and the CLI, measured the same way): a ratio near 1 means the refusal itself
costs next to nothing. The ``loader s`` column is the bounded loader alone on the same file, in
this process (``read_document``, best of the repeats): the work a refusal does once the command
has started. ``--quick`` runs each once.

    .venv/bin/python benchmarks/bad_inputs.py [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _write_inputs(d: Path) -> dict[str, list[str]]:
    lol = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lol.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    (d / "lol.yaml").write_text("\n".join(lol) + "\n")
    with (d / "goal.yaml").open("w") as fh:
        fh.write("goals:\n  - id: g\n    title: t\n    description: '")
        for _ in range(50):
            fh.write("x" * (1 << 20))
        fh.write("'\n")
    (d / "long.yaml").write_text("goals:\n  - {id: g, title: '" + "t" * 1_000_001 + "'}\n")
    (d / "deep.yaml").write_text("a: " + "[" * 150 + "]" * 150 + "\n")
    (d / "rec.yaml").write_text("a: &a [1, *a]\n")
    (d / "utf8.yaml").write_bytes(b"goals:\n  - {id: g, title: caf\xe9}\n")
    (d / "inf.yaml").write_text("heartbeat_ms: .inf\n")
    scenario = Path(__file__).resolve().parents[1] / "examples/scenarios/deploy_a_or_b.yaml"
    text = scenario.read_text()
    (d / "budget.yaml").write_text(text.replace("budget: ", "budget: true #", 1))
    db = str(d / "m.db")
    return {
        "billion laughs, scenario validate": ["scenario", "validate", str(d / "lol.yaml")],
        "billion laughs, bench oracle": ["bench", "oracle", str(d / "lol.yaml")],
        "billion laughs, engine load": ["engine", "load", str(d / "lol.yaml"), "--db", db],
        "/dev/zero, scenario validate": ["scenario", "validate", "/dev/zero"],
        "/dev/zero, engine load": ["engine", "load", "/dev/zero", "--db", db],
        "50 MB goal, engine load": ["engine", "load", str(d / "goal.yaml"), "--db", db],
        "1M-char string, engine load": ["engine", "load", str(d / "long.yaml"), "--db", db],
        "150 levels, scenario validate": ["scenario", "validate", str(d / "deep.yaml")],
        "recursive alias, engine load": ["engine", "load", str(d / "rec.yaml"), "--db", db],
        "invalid UTF-8, engine load": ["engine", "load", str(d / "utf8.yaml"), "--db", db],
        "heartbeat_ms .inf, engine cycle": [
            "engine",
            "cycle",
            "--db",
            db,
            "--config",
            str(d / "inf.yaml"),
        ],
        "budget: true, scenario validate": ["scenario", "validate", str(d / "budget.yaml")],
    }


def _run(args: list[str]) -> tuple[float, int, str]:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "heedful.cli", *args], capture_output=True, text=True, check=False
    )
    took = time.perf_counter() - start
    first = (proc.stderr.strip().splitlines() or [""])[0]
    return took, proc.returncode, first


def _best(args: list[str], repeats: int) -> tuple[float, int, str]:
    runs = [_run(args) for _ in range(repeats)]
    return min(r[0] for r in runs), runs[0][1], runs[0][2]


def _loader_time(args: list[str], repeats: int) -> float:
    from _timing import best_time
    from heedful.errors import HeedfulError
    from heedful.model.documents import read_document

    path = next(a for a in args if a.startswith("/") and not a.endswith(".db"))

    def load() -> None:
        with contextlib.suppress(HeedfulError):
            read_document(path)

    return best_time(load, repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="Runs per input (best is kept).")
    parser.add_argument("--quick", action="store_true", help="One run per input.")
    opts = parser.parse_args()
    repeats = 1 if opts.quick else max(1, opts.repeats)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        cases = _write_inputs(d)
        _run(["engine", "load", "/dev/null", "--db", str(d / "m.db")])  # the store to cycle
        base, _, _ = _best(["version"], repeats)
        print(f"baseline `heedful version`: {base:.2f} s")
        print(f"{'input':<34} {'s':>6} {'ratio':>6} {'loader s':>8} exit  message")
        for name, args in cases.items():
            took, code, first = _best(args, repeats)
            alone = _loader_time(args, repeats)
            print(f"{name:<34} {took:6.2f} {took / base:6.2f} {alone:8.3f} {code:>4}  {first[:90]}")


if __name__ == "__main__":
    main()
