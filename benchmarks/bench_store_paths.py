"""Two store paths on SQLite and PostgreSQL side by side, each on a new memory:

- ``--case import-expiries``: ``Memory.import_graph`` of ``--evidence`` N evidence items, each
  with a ``valid_until``, and N/4 claims (two antecedents each); timed: the call alone.
- ``--case not-yet``: a memory of ``--evidence`` N nodes imported after one first evidence
  item; timed: ``--repeat`` refusals of ``explain`` of an imported node in the view as of the
  first event ("did not exist yet as of event 2: event 3 created it later").

Reported per backend: CPU seconds of this process (``resource.getrusage``: a PostgreSQL
server's own work is not in them) and wall seconds, sorted over ``--rounds`` memories.

    python -m benchmarks.bench_store_paths --case import-expiries --evidence 50000
    python -m benchmarks.bench_store_paths --case not-yet --evidence 100000 --repeat 20

The server is ``--dsn`` (default ``$JTMS_TEST_POSTGRES``, else
``postgresql://postgres@127.0.0.1:5432/test``); ``--backends sqlite`` skips it. Each
PostgreSQL memory is dropped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jtms.memory.memory import Memory  # noqa: E402
from theory.model.errors import InputError  # noqa: E402

DEFAULT_DSN = "postgresql://postgres@127.0.0.1:5432/test"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def expiring_graph(n: int) -> dict[str, list[dict[str, Any]]]:
    """``n`` evidence items with a ``valid_until`` each, ``n // 4`` claims on two of them."""
    nodes: list[dict[str, Any]] = [
        {"id": f"e{k}", "kind": "evidence", "valid_until": f"2999-01-{1 + k % 28:02d}T00:00:00Z"}
        for k in range(n)
    ]
    nodes += [{"id": f"c{k}", "kind": "claim"} for k in range(n // 4)]
    justifications = [
        {"claim": f"c{k}", "antecedents": [f"e{4 * k}", f"e{4 * k + 1}"]} for k in range(n // 4)
    ]
    return {"nodes": nodes, "justifications": justifications}


def import_expiries(memory: Memory, n: int, repeat: int) -> tuple[float, float]:
    document = expiring_graph(n)
    cpu, wall = _cpu(), time.perf_counter()
    memory.import_graph(document)
    return _cpu() - cpu, time.perf_counter() - wall


def not_yet(memory: Memory, n: int, repeat: int) -> tuple[float, float]:
    memory.add_evidence("first")
    first = memory.last_event
    memory.import_graph({"nodes": [{"id": f"n{k}", "kind": "evidence"} for k in range(n)]})
    past = memory.as_of(first)
    cpu, wall = _cpu(), time.perf_counter()
    for k in range(repeat):
        try:
            past.explain(f"n{k * (n // repeat)}")
        except InputError as refused:
            assert "did not exist yet" in str(refused), refused
        else:
            raise AssertionError("a node of a later event explained in the past")
    return _cpu() - cpu, time.perf_counter() - wall


CASES: dict[str, Callable[[Memory, int, int], tuple[float, float]]] = {
    "import-expiries": import_expiries,
    "not-yet": not_yet,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--case", choices=sorted(CASES), required=True)
    parser.add_argument("--evidence", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=20, help="refusals timed (not-yet)")
    parser.add_argument("--rounds", type=int, default=3, help="memories per backend")
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--dsn", default=os.environ.get("JTMS_TEST_POSTGRES", DEFAULT_DSN))
    args = parser.parse_args(argv)
    out: dict[str, Any] = {
        "case": args.case,
        "evidence": args.evidence,
        "load_average_1min": round(os.getloadavg()[0], 1),
    }
    for backend in args.backends.split(","):
        samples = []
        for _ in range(args.rounds):
            with tempfile.TemporaryDirectory() as folder:
                if backend == "sqlite":
                    location = str(Path(folder) / "m.db")
                else:
                    location = f"{args.dsn}?memory=bench_paths_{uuid.uuid4().hex[:10]}"
                try:
                    with Memory.create(location) as memory:
                        samples.append(CASES[args.case](memory, args.evidence, args.repeat))
                finally:
                    if backend == "postgres":
                        from jtms.store.postgres import drop_memory

                        drop_memory(location)
        out[backend] = {
            "cpu_s": sorted(round(cpu, 3) for cpu, _ in samples),
            "wall_s": sorted(round(wall, 3) for _, wall in samples),
        }
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
