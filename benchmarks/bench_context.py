"""Working-context compilation time on derivation chains (issue 13: linear, not quadratic).

A chain e0 <- c1 <- c2 ... <- cN, every claim with a second, intact justification on the
evidence (so "also supported by" is rendered too). The context is compiled at a budget of
2,000 tokens and with an unlimited budget (everything rendered); the state is loaded first
and not timed. Targets: 2,500 claims <= 0.5 s, 100k claims <= 5 s.

    nice -n 19 python3 -m benchmarks.bench_context --sizes 2500 100000
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from jtms.memory.memory import Memory


def chain_document(n: int) -> dict[str, Any]:
    nodes = [
        {"id": "e0", "kind": "evidence", "text": "the assay"},
        {"id": "e1", "kind": "evidence", "text": "the replication"},
    ]
    nodes += [
        {"id": f"c{k}", "kind": "claim", "text": f"step {k} of the argument"}
        for k in range(1, n + 1)
    ]
    justifications = [{"claim": "c1", "antecedents": ["e0"]}]
    justifications += [{"claim": f"c{k}", "antecedents": [f"c{k - 1}"]} for k in range(2, n + 1)]
    justifications += [
        {"claim": f"c{k}", "antecedents": [f"c{k - 1}", "e1"]} for k in range(2, n + 1)
    ]
    return {"nodes": nodes, "justifications": justifications}


def chain_memory(path: Path, n: int) -> Memory:
    memory = Memory.create(path, durability="off")
    memory.import_graph(chain_document(n), source=f"chain-{n}")
    return memory


def measure(n: int, rounds: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        with chain_memory(Path(folder) / "chain.db", n) as memory:
            started = time.perf_counter()
            memory.context(10)
            load = time.perf_counter() - started
            row: dict[str, Any] = {"claims": n, "load_s": round(load, 3)}
            for label, budget in (("budget_2000", 2000), ("unlimited", 10**9)):
                times, cpu = [], []
                for _ in range(rounds):
                    started, started_cpu = time.perf_counter(), time.process_time()
                    context = memory.context(budget)
                    times.append(time.perf_counter() - started)
                    cpu.append(time.process_time() - started_cpu)
                row[f"{label}_s"] = round(statistics.median(times), 3)
                row[f"{label}_cpu_s"] = round(statistics.median(cpu), 3)
                row[f"{label}_tokens"] = context.tokens
                row[f"{label}_claims"] = len(context.requested)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[2500, 100_000])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    for n in args.sizes:
        print(json.dumps(measure(n, args.rounds)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
