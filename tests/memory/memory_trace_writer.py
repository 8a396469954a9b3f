"""Subprocess used by the reliability tests: appends trace events, reporting each commit.

Usage: python memory_trace_writer.py DB WRITER_ID COUNT [GO_FILE]

Each round writes one batch of 1–3 events atomically (``append_traces``); after the commit
returns it prints ``seq`` of every event in the batch, one per line, flushed. A payload carries
a SHA-256 of its own blob so a torn write would be detectable. COUNT = 0 means forever. With
GO_FILE, writing starts only once that file exists (so two writers can be released together)
and a 1 ms pause follows each batch, so their transactions interleave.
"""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

from heedful.memory import Store, TraceRecord


def main() -> None:
    path, writer, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with Store.open(path) as store:
        print("ready", flush=True)
        paced = len(sys.argv) > 4
        if paced:
            go = Path(sys.argv[4])
            while not go.exists():
                time.sleep(0.005)
        batch = 0
        while count == 0 or batch < count:
            size = 1 + batch % 3
            records = []
            for k in range(size):
                blob = f"{writer}-{batch}-{k}-" + "x" * (50 * (batch % 7))
                payload = {
                    "writer": writer,
                    "batch": batch,
                    "size": size,
                    "k": k,
                    "blob": blob,
                    "sha": hashlib.sha256(blob.encode()).hexdigest(),
                }
                records.append(TraceRecord("tick", payload, candidate_id=f"{writer}-{batch}"))
            events = store.append_traces(records)
            sys.stdout.write("".join(f"{e.seq}\n" for e in events))
            sys.stdout.flush()
            batch += 1
            if paced:
                time.sleep(0.001)  # let the other writer in between our transactions


if __name__ == "__main__":
    main()
