"""Time to refuse each hostile input, against the CLI's own start-up in the same run.

Four groups of inputs, each given to the real ``heedful`` command in a fresh process:

* **hostile files** (the regression suite, tests/test_bad_inputs.py) — a 600-byte
  billion-laughs YAML, a 50 MB goal description, a 1,000,001-character string, 150 levels of
  nesting, a recursive alias, invalid UTF-8, ``heartbeat_ms: .inf``, ``budget: true``;
* **special files** — a named pipe (FIFO) and ``/dev/zero`` on every file option (a pipe used
  to block forever; tests/test_cli_special_files.py);
* **output places** — ``/proc/x.json`` and a path in a missing folder on every output option;
* **counts** — ``-1`` and ``99999999999999999999`` on every count, cycle and size option.

Every input must be refused with one line on stderr and exit code 2. The script prints each
refusal's wall time (best of ``--repeats``), exit code and first line, the ratio to ``heedful
version`` (starting Python and the CLI, measured the same way), and a summary: how many were
one line with exit 2, how many took under 1 s and under 0.3 s, the slowest, and the load
average before and after (the machine may be shared: the wall times are only as idle as it
was). The ``cpu s`` column is the child's user + system CPU time (best of the repeats): on a
loaded machine it stays near what an idle one would take, where the wall time does not.
The ``loader s`` column is the bounded loader alone on the same file, in this process
(``read_document``, best of the repeats) — ``n/a`` where no file is read. ``--quick`` runs each
once.

    .venv/bin/python benchmarks/bad_inputs.py [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "examples" / "scenarios" / "deploy_a_or_b.yaml"
HUGE = "99999999999999999999"


def _hostile_files(d: Path, db: str) -> dict[str, list[str]]:
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
    text = SCENARIO.read_text()
    (d / "budget.yaml").write_text(text.replace("budget: ", "budget: true #", 1))
    return {
        "billion laughs, scenario validate": ["scenario", "validate", str(d / "lol.yaml")],
        "billion laughs, bench oracle": ["bench", "oracle", str(d / "lol.yaml")],
        "billion laughs, engine load": ["engine", "load", str(d / "lol.yaml"), "--db", db],
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


def _file_options(f: str, db: str, t: str, seed: str) -> dict[str, list[str]]:
    """Every file option of the CLI, naming ``f`` there."""
    http = ["--transport", "http"]
    return {
        "scenario validate FILE": ["scenario", "validate", f],
        "bench oracle FILE": ["bench", "oracle", f],
        "bench run --scenarios": ["bench", "run", "--scenarios", f, "--out", t],
        "bench run --model-file": ["bench", "run", "--model-file", f, "--out", t],
        "bench run --cache": ["bench", "run", "--cache", f, "--out", t],
        "bench run --holdout": ["bench", "run", "--holdout", f, "--out", t],
        "bench run --resume": ["bench", "run", "--resume", f],
        "bench report RESULTS": ["bench", "report", f],
        "bench plan RESULTS": ["bench", "plan", f, "--min-diff", "1"],
        "engine load FILE": ["engine", "load", f, "--db", db],
        "engine load --db": ["engine", "load", seed, "--db", f],
        "engine survey --config": ["engine", "survey", "--db", db, "--config", f],
        "engine survey --governance": ["engine", "survey", "--db", db, "--governance", f],
        "engine cycle --config": ["engine", "cycle", "--db", db, "--config", f],
        "engine run --config": ["engine", "run", "--db", db, "--cycles", "1", "--config", f],
        "engine approve --config": ["engine", "approve", "p-1", "--db", db, "--config", f],
        "engine journal --db": ["engine", "journal", "--db", f],
        "attention health --db": ["attention", "health", "--db", f],
        "mcp serve --db": ["mcp", "serve", "--db", f],
        "mcp serve --config": ["mcp", "serve", "--db", db, "--config", f],
        "mcp serve --governance": ["mcp", "serve", "--db", db, "--governance", f],
        "mcp serve --token-file": ["mcp", "serve", "--db", db, *http, "--token-file", f],
        "mcp token --token-file": ["mcp", "token", "--db", db, "--token-file", f],
        "salience --history": ["salience", "hi", "--history", f],
        "holdout make --key-file": [
            "holdout",
            "make",
            "--family",
            "G",
            "--count",
            "1",
            "--key-file",
            f,
            "--out",
            t,
        ],
    }


def _output_options(p: str, db: str, t: str, seed: str) -> dict[str, list[str]]:
    """Every output option of the CLI, naming ``p`` there."""
    return {
        "scenario generate --out": [
            "scenario",
            "generate",
            "--family",
            "G",
            "--count",
            "1",
            "--out",
            p,
        ],
        "learn train --out": ["learn", "train", "--count", "1", "--out", p],
        "learn calibrate --out": ["learn", "calibrate", "--count", "1", "--out", p],
        "bench report --out": ["bench", "report", str(SCENARIO), "--out", p],
        "bench run --out": ["bench", "run", "--count", "1", "--out", p],
        "run --out": ["run", "--out", p],
        "bench ablations --out": ["bench", "ablations", "--count", "1", "--out", p],
        "holdout make --out": [
            "holdout",
            "make",
            "--family",
            "G",
            "--count",
            "1",
            "--key-file",
            t,
            "--out",
            p,
        ],
        "holdout make --key-file": [
            "holdout",
            "make",
            "--family",
            "G",
            "--count",
            "1",
            "--key-file",
            p,
            "--out",
            t,
        ],
        "engine load --db": ["engine", "load", seed, "--db", p],
        "mcp token --token-file": ["mcp", "token", "--db", db, "--token-file", p],
    }


def _counts(n: str, db: str) -> dict[str, list[str]]:
    """Every count, cycle and size option of the CLI, set to ``n``."""
    out = ["--out", "/nonexistent/x"]
    return {
        "bench run --count": ["bench", "run", "--count", n],
        "bench run --trials": ["bench", "run", "--trials", n],
        "bench run --seed": ["bench", "run", "--seed", n],
        "bench run --workers": ["bench", "run", "--workers", n],
        "bench run --concurrency": ["bench", "run", "--concurrency", n],
        "bench run --max-tokens": ["bench", "run", "--max-tokens", n],
        "bench run --max-turns": ["bench", "run", "--max-turns", n],
        "bench run --max-reply-bytes": ["bench", "run", "--max-reply-bytes", n],
        "bench run --retries": ["bench", "run", "--retries", n],
        "bench run --timeout": ["bench", "run", "--timeout", n],
        "bench ablations --count": ["bench", "ablations", "--count", n],
        "bench ablations --trials": ["bench", "ablations", "--trials", n],
        "run --workers": ["run", "--workers", n],
        "scenario generate --count": ["scenario", "generate", "--family", "G", "--count", n],
        "holdout make --count": [
            "holdout",
            "make",
            "--family",
            "G",
            "--count",
            n,
            "--key-file",
            "/nonexistent/k",
            *out,
        ],
        "learn train --count": ["learn", "train", "--count", n, *out],
        "learn train --rounds": ["learn", "train", "--rounds", n, *out],
        "learn calibrate --count": ["learn", "calibrate", "--count", n, *out],
        "engine run --cycles": ["engine", "run", "--db", db, "--cycles", n],
        "engine run --heartbeat-ms": ["engine", "run", "--db", db, "--heartbeat-ms", n],
        "attention health --window": ["attention", "health", "--db", db, "--window", n],
        "agent serve-local --ctx": ["agent", "serve-local", "--ctx", n],
    }


def cases(d: Path) -> dict[str, dict[str, list[str]]]:
    """Every input, by group: name → the command line."""
    db = str(d / "m.db")
    seed = d / "empty.yaml"
    seed.write_text("")
    fifo = d / "pipe.yaml"
    os.mkfifo(fifo)
    t = str(d / "t")
    special: dict[str, list[str]] = {}
    for what, path in (("FIFO", str(fifo)), ("/dev/zero", "/dev/zero")):
        for name, args in _file_options(path, db, t, str(seed)).items():
            special[f"{what}, {name}"] = args
    places: dict[str, list[str]] = {}
    for what, path in (("/proc", "/proc/x.json"), ("no folder", str(d / "no-such" / "x.json"))):
        for name, args in _output_options(path, db, t, str(seed)).items():
            if what == "no folder" and name.startswith(
                ("holdout", "bench run", "run", "bench abl")
            ):
                continue  # folders these make on demand (a missing parent is not an error)
            places[f"{what}, {name}"] = args
    counts: dict[str, list[str]] = {}
    for n in ("-1", HUGE):
        for name, args in _counts(n, db).items():
            counts[f"{n[:6]}, {name}"] = args
    return {
        "hostile files": _hostile_files(d, db),
        "special files": special,
        "output places": places,
        "counts": counts,
    }


@contextlib.contextmanager
def _unblocking(fifo: Path):  # type: ignore[no-untyped-def]
    """Open ``fifo`` for writing whenever something reads it: a regression ends, not hangs."""
    done = threading.Event()

    def guard() -> None:
        while not done.is_set():
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError as exc:
                if exc.errno not in (errno.ENXIO, errno.ENOENT):
                    return
            time.sleep(0.05)

    thread = threading.Thread(target=guard, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=5)


def _run(args: list[str]) -> tuple[float, float, int, list[str]]:
    """Wall time, CPU time (user + system, of the child), exit code and stderr lines."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "heedful.cli", *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        took = time.perf_counter() - start
        return took, float("nan"), -1, ["(still running after 60 s: killed)"]
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took, cpu, proc.returncode, proc.stderr.strip().splitlines()


def _best(args: list[str], repeats: int) -> tuple[float, float, int, list[str]]:
    runs = [_run(args) for _ in range(repeats)]
    return min(r[0] for r in runs), min(r[1] for r in runs), runs[0][2], runs[0][3]


def _loader_time(args: list[str], repeats: int) -> float | None:
    from _timing import best_time
    from heedful.errors import HeedfulError
    from heedful.model.documents import read_document

    files = [a for a in args if a.endswith((".yaml", ".json")) and Path(a).is_file()]
    if not files:
        return None
    path = files[0]

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
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        groups = cases(d)
        _run(["engine", "load", str(d / "empty.yaml"), "--db", str(d / "m.db")])  # the store
        base, base_cpu, _, _ = _best(["version"], repeats)
        flag, flag_cpu, _, _ = _best(["-V"], repeats)
        print(
            f"baseline `heedful version`: {base:.2f} s ({base_cpu:.2f} s CPU); "
            f"`heedful -V`: {flag:.2f} s ({flag_cpu:.2f} s CPU)"
        )
        times: list[float] = []
        cpus: list[float] = []
        good = 0
        slowest = ("", 0.0)
        with _unblocking(d / "pipe.yaml"):
            for group, items in groups.items():
                print(f"\n{group} ({len(items)})")
                print(
                    f"  {'input':<44} {'s':>6} {'cpu s':>6} {'ratio':>6} {'loader s':>8} "
                    "exit  message"
                )
                for name, args in items.items():
                    took, cpu, code, err = _best(args, repeats)
                    alone = _loader_time(args, repeats) if group == "hostile files" else None
                    one = code == 2 and len(err) == 1 and err[0].startswith("error: ")
                    good += one
                    times.append(took)
                    cpus.append(cpu)
                    if took > slowest[1]:
                        slowest = (name, took)
                    loader = "n/a" if alone is None else f"{alone:.3f}"
                    mark = "" if one else "  <-- NOT one line + exit 2"
                    first = err[0] if err else ""
                    print(
                        f"  {name:<44} {took:6.2f} {cpu:6.2f} {took / base:6.2f} {loader:>8} "
                        f"{code:>4}  {first[:72]}{mark}"
                    )
    load_after = os.getloadavg()
    n = len(times)
    print(
        f"\n{good} of {n} inputs: one line, exit 2; wall time: {sum(t < 1.0 for t in times)} "
        f"under 1 s, {sum(t <= 0.3 for t in times)} at most 0.3 s, slowest {slowest[1]:.2f} s "
        f"({slowest[0]}); CPU time: {sum(c <= 0.3 for c in cpus)} at most 0.3 s, "
        f"median {statistics.median(cpus):.2f} s, most {max(cpus):.2f} s"
    )
    print(
        f"load average (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in load_before)}; "
        f"after: {', '.join(f'{x:.2f}' for x in load_after)} on {os.cpu_count()} cores "
        "(on a loaded machine the wall times include waiting for a core; the CPU time is what "
        "an idle machine would take, near enough)"
    )


if __name__ == "__main__":
    main()
