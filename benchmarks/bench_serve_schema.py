"""What checking one `audit` result against an output schema costs a client, by schema shape.

    nice -n 5 python benchmarks/bench_serve_schema.py               # 100k claims, one audit
    python benchmarks/bench_serve_schema.py --claims 10000

The SDK's client validates every structured tool result against the tool's output schema
with ``jsonschema`` (``ClientSession.validate_tool_result``). This times that check (a
compiled validator, as the SDK caches it; best of 3) on one real dry-run audit of 1% of the
evidence, in the memory shape of benchmarks/bench_serve.py, for: the schema pydantic derives
from ``AuditPayload`` (``kept`` items by ``$ref``), the same with ``Kept`` inlined, ``kept``
items only ``{"type": "object"}``, and the schema the server publishes
(``jtms.serve.tools.published_schema``: no per-item ``items``); beside it, the JSON encoding
and decoding of the same result (the floor any transport pays).
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jsonschema.validators import validator_for  # noqa: E402
from pydantic import TypeAdapter  # noqa: E402
from referencing import Registry  # noqa: E402

from benchmarks.bench_reconsolidation import make_graph  # noqa: E402
from jtms.memory.memory import Memory  # noqa: E402
from jtms.serve.tools import published_schema  # noqa: E402
from jtms.views import payloads  # noqa: E402


def best_ms(work: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return round(min(times) * 1000, 3)


def checker(schema: dict[str, Any], instance: Any) -> Callable[[], object]:
    validator = validator_for(schema)(schema, registry=Registry())
    return lambda: list(validator.iter_errors(instance))


def run(n_claims: int, seed: int, folder: Path) -> dict[str, Any]:
    db = str(folder / "bench-serve-schema.db")
    with Memory.create(db) as memory:
        memory.import_graph(make_graph(n_claims, seed=seed))
    n_evidence = n_claims // 5
    roots = sorted(
        random.Random(seed + 11).sample(
            [f"e{i}" for i in range(n_evidence)], max(1, n_evidence // 100)
        )
    )
    with Memory.open(db) as memory:
        payload = payloads.audit_payload(memory, roots, memory.preview(roots), True)
    derived = TypeAdapter(payloads.AuditPayload).json_schema()
    inlined = copy.deepcopy(derived)
    inlined["properties"]["kept"]["items"] = inlined.pop("$defs")["Kept"]
    objects = copy.deepcopy(inlined)
    objects["properties"]["kept"]["items"] = {"type": "object"}
    text = json.dumps(payload, separators=(",", ":"))
    return {
        "claims": n_claims,
        "roots": len(roots),
        "retired": len(payload["retired"]),
        "kept": len(payload["kept"]),
        "json_bytes": len(text),
        "check_ms": {
            "derived ($ref Kept)": best_ms(checker(derived, payload)),
            "Kept inlined": best_ms(checker(inlined, payload)),
            "kept items {type: object}": best_ms(checker(objects, payload)),
            "published (no per-item items)": best_ms(checker(published_schema(derived), payload)),
        },
        "json_dumps_ms": best_ms(lambda: json.dumps(payload, separators=(",", ":"))),
        "json_loads_ms": best_ms(lambda: json.loads(text)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        print(json.dumps(run(args.claims, args.seed, Path(folder)), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
