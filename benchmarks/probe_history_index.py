"""What one batch of the revisions' node index costs as a memory's history grows (SQLite).

    python benchmarks/probe_history_index.py [--sizes 120000,1200000,4800000] [--batches 3]

The SQLite store writes ``node_revisions`` (node, seq) in batches of
``jtms.store.sqlite.NODE_REVISIONS_PENDING`` rows. An audit's revisions name nodes scattered
over the memory, so a batch touches every page of the table once the table is larger than the
batch, and its cost grows with the history the table holds. This probe builds the table alone
(same schema, WAL, ``synchronous=FULL``) with N rows of random nodes out of 120,000, then
times ``--batches`` batches of that many new rows, each in its own transaction. It measures
the table, not a memory: an audit pays this once every batch's worth of revisions.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jtms.store.sqlite import NODE_REVISIONS_PENDING  # noqa: E402

NODES = 120_000


def probe(rows: int, batches: int, folder: Path, seed: int = 1) -> list[float]:
    """Seconds of each batch after ``rows`` rows are in the table."""
    path = folder / f"history-{rows}.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = FULL")
    db.execute(
        "CREATE TABLE node_revisions (node INTEGER NOT NULL, seq INTEGER NOT NULL, "
        "PRIMARY KEY (node, seq)) WITHOUT ROWID"
    )
    rng = random.Random(seed)
    db.execute("BEGIN")
    db.executemany(
        "INSERT INTO node_revisions VALUES (?, ?)",
        sorted((rng.randrange(NODES), s) for s in range(rows)),
    )
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    seq, times = rows, []
    for _ in range(batches):
        batch = sorted((rng.randrange(NODES), seq + i) for i in range(NODE_REVISIONS_PENDING))
        seq += NODE_REVISIONS_PENDING
        started = time.perf_counter()
        db.execute("BEGIN")
        db.executemany("INSERT INTO node_revisions VALUES (?, ?)", batch)
        db.execute("COMMIT")
        times.append(time.perf_counter() - started)
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    path.unlink()
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="120000,1200000,4800000", help="rows already held")
    parser.add_argument("--batches", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        for rows in (int(s) for s in args.sizes.split(",")):
            times = probe(rows, args.batches, Path(tmp))
            shown = ", ".join(f"{t * 1000:.0f} ms" for t in times)
            print(f"{rows:>10,} rows held: a batch of {NODE_REVISIONS_PENDING:,} took {shown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
