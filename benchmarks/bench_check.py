"""`jtms check` on generated agent-memory graphs of 1k, 10k and 100k claims: the curve and
where the time goes.

Run:  python -m benchmarks.bench_check [--sizes 1000 10000 100000] [--back-edges 0 0.05] [--json]

Graphs: 2 evidence per 10 claims, 1-3 justifications of 1-3 antecedents each
(benchmarks.generate.memory, derivation depth <= 4). Phases timed in one process:
parse+validate the graph file, build the index, the verdicts (near-linear bitset pass),
certificates (label algebra, SAT fallback), JSON rendering; plus the whole CLI command
end to end, with and without --summary.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from benchmarks.generate import memory
from theory.io.graphfile import load_graph, save_graph
from theory.model.index import index_of
from theory.safety.check import check_structure, verdicts
from theory.semantics.fixpoint import base_active


def summary_phases(path: Path) -> dict:
    """What ``jtms check --summary`` computes, by phase (CPU seconds, cyclic GC paused as the
    command does): parse, index, the summary (verdicts and counts), JSON."""
    from theory.io.graphfile import paused_gc
    from theory.safety.check import summarize_structure

    clock = time.process_time
    row: dict = {}
    started = clock()
    structure = load_graph(path)
    row["parse"] = clock() - started
    with paused_gc():
        started = clock()
        index_of(structure)
        row["index"] = clock() - started
        started = clock()
        summary = summarize_structure(structure)
        row["summary"] = clock() - started
        started = clock()
        text = json.dumps(summary.to_dict(), separators=(",", ":"))
        row["json"] = clock() - started
    totals = summary.totals()
    row.update(
        claims=totals["claims"],
        evidence=len(structure.evidence),
        unsafe=totals["unsafe"],
        violations=totals["violations"],
        json_mb=len(text) / 1e6,
    )
    return row


def phases(path: Path, certificates: bool = True) -> dict:
    row = {}
    started = time.perf_counter()
    structure = load_graph(path)
    row["parse"] = time.perf_counter() - started
    started = time.perf_counter()
    index = index_of(structure)
    row["index"] = time.perf_counter() - started
    started = time.perf_counter()
    facts = verdicts(index, base_active(structure))
    row["verdicts"] = time.perf_counter() - started
    started = time.perf_counter()
    report = check_structure(structure, certificates=certificates)
    row["check_total"] = time.perf_counter() - started
    row["certificates"] = max(0.0, row["check_total"] - row["verdicts"])
    started = time.perf_counter()
    text = json.dumps(report.to_dict())
    row["json"] = time.perf_counter() - started
    row["claims"] = len(structure.claims)
    row["evidence"] = len(structure.evidence)
    row["unsafe"] = len(report.unsafe)
    row["violations"] = sum(len(c.violations) for c in report.claims)
    row["sat_fallback_claims"] = (
        sum(1 for c in report.claims if not c.minimal_justifications_complete)
        if certificates
        else None
    )
    row["json_mb"] = len(text) / 1e6
    del facts
    return row


def cli_seconds(path: Path, *extra: str) -> float:
    """CPU seconds (user + system) of ``jtms check PATH --json EXTRA`` in a child process."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, "-m", "jtms", "check", str(path), "--json", *extra],
        stdout=subprocess.DEVNULL,
        check=False,
        env={**os.environ, "PYTHONPATH": str(Path.cwd())},
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--back-edges", type=float, nargs="+", default=[0.0, 0.05])
    parser.add_argument("--no-cli", action="store_true", help="skip the end-to-end CLI timings")
    parser.add_argument(
        "--summary-only",
        action="store_true",
        help="what `jtms check --summary` computes (verdicts, violations counted), by phase",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for back in args.back_edges:
            for size in args.sizes:
                path = Path(folder) / f"memory_{size}_{back}.json"
                save_graph(memory(size, seed=1, back_edges=back), path)
                if args.summary_only:
                    row = {"back_edges": back, **summary_phases(path)}
                    if not args.no_cli:
                        row["cli_summary"] = cli_seconds(path, "--summary")
                    rows.append(row)
                    print(json.dumps(row), file=sys.stderr, flush=True)
                    continue
                row = {"back_edges": back, **phases(path, certificates=not args.summary_only)}
                if not args.no_cli:
                    row["cli_summary"] = cli_seconds(path, "--summary")
                    if not args.summary_only:
                        row["cli_full"] = cli_seconds(path)
                rows.append(row)
                print(
                    json.dumps(row), file=sys.stderr, flush=True
                )  # partial results survive a timeout
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    if args.summary_only:
        table = Table(
            title="jtms check --summary: CPU seconds per phase, and the command end to end"
        )
        for column in [
            "back-edges",
            "claims",
            "unsafe",
            "violations",
            "parse",
            "index",
            "summary",
            "json",
            "JSON MB",
            "cli --summary (CPU)",
        ]:
            table.add_column(column)
        for r in rows:
            table.add_row(
                f"{r['back_edges']:g}",
                str(r["claims"]),
                str(r["unsafe"]),
                str(r["violations"]),
                *(f"{r[k]:.2f}" for k in ("parse", "index", "summary", "json", "json_mb")),
                f"{r.get('cli_summary', float('nan')):.2f}",
            )
        print("load average at the end:", " ".join(f"{x:.1f}" for x in os.getloadavg()))
        Console(width=200).print(table)
        return
    table = Table(title="jtms check: seconds per phase")
    columns = [
        "back-edges",
        "claims",
        "unsafe",
        "violations",
        "SAT-fallback",
        "parse",
        "index",
        "verdicts",
        "certificates",
        "json",
        "cli --summary",
        "cli full",
    ]
    for column in columns:
        table.add_column(column)
    for r in rows:
        table.add_row(
            f"{r['back_edges']:g}",
            str(r["claims"]),
            str(r["unsafe"]),
            str(r["violations"]),
            "-" if r["sat_fallback_claims"] is None else str(r["sat_fallback_claims"]),
            *(f"{r[k]:.2f}" for k in ("parse", "index", "verdicts", "certificates", "json")),
            f"{r.get('cli_summary', float('nan')):.2f}",
            f"{r.get('cli_full', float('nan')):.2f}",
        )
    print("load average at the end:", " ".join(f"{x:.1f}" for x in os.getloadavg()))
    Console(width=200).print(table)


if __name__ == "__main__":
    main()
