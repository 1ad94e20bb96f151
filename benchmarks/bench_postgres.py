"""The PostgreSQL backend against the SQLite one, side by side in one run.

    python benchmarks/bench_postgres.py                          # 100k claims: import, warm audit, export/import
    python benchmarks/bench_postgres.py --claims 10000 --rounds 3
    python benchmarks/bench_postgres.py --serialise --writers 8 --seconds 5
    python benchmarks/bench_postgres.py --load --seconds 60      # 8 writers + 4 readers, checked

The server is ``--dsn`` (default ``$JTMS_TEST_POSTGRES``, else
``postgresql://postgres@127.0.0.1:5432/test``); every memory the benchmark makes has a unique
name and is dropped at the end.

- **import**: ``Memory.import_graph`` of the benchmark graph (``bench_reconsolidation.make_graph``:
  N claims, N/5 evidence, 1-3 justifications of 1-3 antecedents) into a new memory, one
  transaction, durability ``full`` on both (SQLite ``synchronous=FULL``; PostgreSQL
  ``synchronous_commit=on``). PostgreSQL writes the rows with ``COPY``.
- **bulk write**: the database part of that import alone: the same rows (nodes, justifications,
  one support pointer per active claim) written through the store protocol in one
  transaction (``jtms.store``: PostgreSQL ``COPY``, SQLite ``executemany``), nothing else.
- **warm audit**: one long-lived ``Memory`` per backend; each round audits the same 1% of the
  evidence (200 at 100k claims) on both, one after the other, commit included, then
  reinstates it (not timed). Medians over the rounds; the ratio is PostgreSQL / SQLite.
- **export / import-memory**: ``jtms export`` of the audited 100k memory and
  ``jtms import-memory`` of that file into a new PostgreSQL memory (in process).
- **--serialise**: how to serialise writers of one memory. ``lock``: the backend's
  transaction-level advisory lock (what it uses); ``serializable``: ``SERIALIZABLE``
  transactions and no lock, retried on serialisation failure. Each of ``--writers`` processes
  writes small events (one evidence node each) for ``--seconds``; reported: commits per
  second, retries, median and 99th-percentile commit latency.
- **--load**: ``tests/memory_stress.py`` with 8 writer and 4 reader processes on one
  PostgreSQL memory for ``--seconds``; zero unexpected errors, integrity and a final state
  equal to a serial replay are required (exit 1 otherwise).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_reconsolidation import make_graph  # noqa: E402
from jtms.memory.jsonl import export_memory, import_memory  # noqa: E402
from jtms.memory.memory import Memory  # noqa: E402
from jtms.store.postgres import drop_memory, parse_location  # noqa: E402

DEFAULT_DSN = "postgresql://postgres@127.0.0.1:5432/test"


def _location(dsn: str, tag: str) -> str:
    separator = "&" if "?" in dsn else "?"
    return f"{dsn}{separator}memory=bench_{tag}_{uuid.uuid4().hex[:10]}"


def _ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 2)


def run_main(dsn: str, n_claims: int, rounds: int, seed: int, folder: Path) -> dict[str, Any]:
    document = make_graph(n_claims, seed=seed)
    n_evidence = n_claims // 5
    pg = _location(dsn, "main")
    made = [pg]
    result: dict[str, Any] = {
        "claims": n_claims,
        "evidence": n_evidence,
        "rounds": rounds,
        "justifications": len(document["justifications"]),
    }
    try:
        memories = {"sqlite": Memory.create(folder / "bench.db"), "postgres": Memory.create(pg)}
        for name, memory in memories.items():
            started = time.perf_counter()
            memory.import_graph(document, source="bench")
            result[f"{name}_import_seconds"] = round(time.perf_counter() - started, 3)
        result.update(bulk_write(document, folder, dsn, made))
        actives = {name: memory.active_ids() for name, memory in memories.items()}
        assert actives["sqlite"] == actives["postgres"]
        rng = random.Random(seed + 7)
        evidence = [f"e{i}" for i in range(n_evidence)]
        size = max(1, n_evidence // 100)
        clocks: dict[str, list[float]] = {name: [] for name in memories}
        for _ in range(rounds):
            roots = sorted(rng.sample(evidence, size))
            retired = {}
            for name, memory in memories.items():
                started = time.perf_counter()
                outcome = memory.audit(roots, reason="benchmark")
                clocks[name].append(time.perf_counter() - started)
                retired[name] = outcome.retired
                assert outcome.audit_id is not None
                memory.reinstate(outcome.audit_id)
            assert retired["sqlite"] == retired["postgres"]
        for name in memories:
            result[f"{name}_warm_audit_ms"] = _ms(clocks[name])
        result["audit_size"] = size
        result["warm_audit_ratio_postgres_over_sqlite"] = round(
            result["postgres_warm_audit_ms"] / result["sqlite_warm_audit_ms"], 2
        )
        memories["postgres"].audit(sorted(rng.sample(evidence, size)), reason="before export")
        for memory in memories.values():
            memory.close()
        file = folder / "m.jsonl"
        started = time.perf_counter()
        with open(file, "w", encoding="utf-8") as out:
            summary = export_memory(pg, out)
        result["export_seconds"] = round(time.perf_counter() - started, 3)
        result["export_rows"] = sum(summary.counts.values())
        result["export_megabytes"] = round(file.stat().st_size / 1e6, 1)
        copy = _location(dsn, "copy")
        made.append(copy)
        started = time.perf_counter()
        import_memory(file, copy)
        result["import_memory_seconds_including_integrity_check"] = round(
            time.perf_counter() - started, 3
        )
    finally:
        for location in made:
            drop_memory(location)
    return result


def bulk_write(document: dict[str, Any], folder: Path, dsn: str, made: list[str]) -> dict[str, Any]:
    """Seconds to write the graph's rows in one transaction of each store (see the docstring)."""
    from jtms.engine.incremental import state_of
    from jtms.store import create_store
    from jtms.store.protocol import JustificationRow, NewNode
    from theory.io.graphfile import parse_graph

    state = state_of(parse_graph(document))
    index = state.index
    kinds = {node["id"]: node["kind"] for node in document["nodes"]}
    result = {}
    pg = _location(dsn, "bulk")
    made.append(pg)
    for name, location in (("sqlite", str(folder / "bulk.db")), ("postgres", pg)):
        store = create_store(location)
        started = time.perf_counter()
        with store.write():
            event = store.append_event("import", "t", source="bench")
            store.add_nodes(
                NewNode(
                    n,
                    index.ids[n],
                    kinds[index.ids[n]],
                    "",
                    None,
                    None,
                    None,
                    event,
                    "active" if state.active[n] else "inactive",
                )
                for n in range(index.size)
            )
            store.add_justifications(
                JustificationRow(j, index.just_claim[j], tuple(index.just_antecedents[j]), event)
                for j in range(len(index.just_claim))
            )
            store.add_supports(
                event,
                (
                    (c, state.support[c], state.rank[c])
                    for c in range(index.size)
                    if state.active[c] and not index.is_evidence[c]
                ),
            )
        result[f"{name}_bulk_write_seconds"] = round(time.perf_counter() - started, 3)
        store.close()
    return result


# --- serialising writers: advisory lock vs serializable transactions -----------------------------


def _writer(location: str, mode: str, seconds: float, name: str, out: Path) -> None:
    from jtms.store import open_store
    from jtms.store.protocol import NewNode
    from theory.model.errors import InputError

    store = open_store(location)
    store.serialise = mode  # type: ignore[attr-defined]
    latencies: list[float] = []
    retries = 0
    deadline = time.monotonic() + seconds
    count = known = 0
    while time.monotonic() < deadline:
        count += 1
        started = time.perf_counter()
        while True:
            try:
                with store.write():
                    known += len(store.nodes(known))  # catch up: the next dense number
                    event = store.append_event("add-evidence", "t", actor=name)
                    store.add_nodes(
                        [
                            NewNode(
                                known,
                                f"{name}_{count}",
                                "evidence",
                                "",
                                name,
                                None,
                                None,
                                event,
                                "active",
                            )
                        ]
                    )
                known += 1
                break
            except InputError as error:
                if "could not serialize" not in str(error):
                    raise
                retries += 1
        latencies.append(time.perf_counter() - started)
    store.close()
    out.write_text(
        json.dumps({"commits": len(latencies), "retries": retries, "latencies": latencies})
    )


def run_serialise(dsn: str, writers: int, seconds: float, folder: Path) -> dict[str, Any]:
    result: dict[str, Any] = {"writers": writers, "seconds": seconds}
    for mode in ("lock", "serializable"):
        location = _location(dsn, mode)
        Memory.create(location).close()
        try:
            logs = [folder / f"{mode}-{k}.json" for k in range(writers)]
            env = dict(os.environ, PYTHONPATH=str(ROOT))
            children = [
                subprocess.Popen(
                    [
                        sys.executable,
                        __file__,
                        "--writer",
                        mode,
                        "--dsn",
                        location,
                        "--seconds",
                        str(seconds),
                        "--name",
                        f"w{k}",
                        "--out",
                        str(logs[k]),
                    ],
                    env=env,
                )
                for k in range(writers)
            ]
            for child in children:
                child.wait(timeout=seconds + 120)
            runs = [json.loads(log.read_text()) for log in logs]
            latencies = sorted(x for r in runs for x in r["latencies"])
            commits = sum(r["commits"] for r in runs)
            with Memory.open(location) as memory:
                stored = len(memory.table("nodes"))
                problems = memory.integrity_problems()
            result[mode] = {
                "commits_per_second": round(commits / seconds, 1),
                "retries": sum(r["retries"] for r in runs),
                "median_commit_ms": round(statistics.median(latencies) * 1000, 2),
                "p99_commit_ms": round(latencies[int(0.99 * (len(latencies) - 1))] * 1000, 2),
                "all_commits_stored": stored == commits,
                "integrity_problems": problems,
            }
        finally:
            drop_memory(location)
    return result


def run_load(dsn: str, seconds: float, seed: int, folder: Path) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "tests"))
    import memory_stress  # type: ignore[import-not-found]

    location = _location(dsn, "load")
    try:
        return dict(memory_stress.run(location, seconds, 8, 4, seed, folder))
    finally:
        drop_memory(location)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dsn", default=os.environ.get("JTMS_TEST_POSTGRES") or DEFAULT_DSN)
    parser.add_argument("--claims", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--serialise", action="store_true", help="lock vs serializable writers")
    parser.add_argument("--load", action="store_true", help="8 writers + 4 readers, checked")
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--writer", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--name", default="w", help=argparse.SUPPRESS)
    parser.add_argument("--out", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.writer:
        _writer(args.dsn, args.writer, args.seconds, args.name, Path(args.out))
        return 0
    parse_location(args.dsn)
    with tempfile.TemporaryDirectory() as folder:
        if args.serialise:
            result = run_serialise(args.dsn, args.writers, args.seconds, Path(folder))
        elif args.load:
            result = run_load(args.dsn, args.seconds, args.seed, Path(folder))
        else:
            result = run_main(args.dsn, args.claims, args.rounds, args.seed, Path(folder))
    print(json.dumps(result, indent=1))
    if args.load:
        ok = not (
            result["unexpected_errors"] or result["integrity_problems"] or result["replay_problems"]
        )
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
