"""The MCP server's protocol overhead: one `audit` (200 evidence roots) on a 100k-claim memory,
in process, over stdio and over streamable HTTP, side by side in one run.

    nice -n 19 python benchmarks/bench_serve.py                 # 100k claims, 50 calls each
    python benchmarks/bench_serve.py --claims 2000 --calls 5    # a quick look

The memory has the shape of benchmarks/bench_reconsolidation.py (N claims, N/5 evidence, 1-3
justifications of 1-3 antecedents). Every call audits a fresh random 1% of the evidence (the
same sequence for the three paths) and is then reinstated (not timed), so each starts from the
same state. In process: ``Memory.audit`` plus the result payload, exactly what the `audit`
tool runs. Over stdio and HTTP: ``Client.call_tool("audit", ...)`` of the SDK's own client
against a `jtms serve` subprocess, round trip as the agent sees it; each server is warmed by
a few untimed calls first. Overhead = transport p50 - in-process p50 (goal: at most 5 ms).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import anyio  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from benchmarks.bench_reconsolidation import make_graph  # noqa: E402
from jtms import payloads  # noqa: E402
from jtms.reconsolidation import Memory  # noqa: E402

WARMUP = 3


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return {"p50_ms": round(statistics.median(ordered) * 1000, 3), "p99_ms": round(p99 * 1000, 3)}


def in_process(db: str, audits: list[list[str]]) -> Samples:
    samples, sizes = [], []
    with Memory.open(db) as memory:
        for k, roots in enumerate(audits[:WARMUP] + audits):
            started = time.perf_counter()
            result = memory.audit(roots, reason="bench")
            payload = payloads.audit_payload(memory, roots, result, False)
            elapsed = time.perf_counter() - started
            memory.reinstate(result.audit_id)  # type: ignore[arg-type]
            if k >= WARMUP:
                samples.append(elapsed)
                sizes.append(float(len(payload["retired"]) + len(payload["kept"])))
    return samples, sizes


Samples = tuple[list[float], list[float]]


async def over(client: Client, audits: list[list[str]]) -> Samples:
    """Round trips of `audit`, and what the client's own output-schema check of each result
    costs (the SDK validates every structured result with jsonschema; timed again apart)."""
    samples, checks = [], []
    for k, roots in enumerate(audits[:WARMUP] + audits):
        started = time.perf_counter()
        result = await client.call_tool("audit", {"invalidate": roots, "reason": "bench"})
        elapsed = time.perf_counter() - started
        assert not result.is_error and result.structured_content, result.content
        started = time.perf_counter()
        await client.session.validate_tool_result("audit", result)
        check = time.perf_counter() - started
        await client.call_tool("reinstate", {"audit_id": result.structured_content["audit_id"]})
        if k >= WARMUP:
            samples.append(elapsed)
            checks.append(check)
    return samples, checks


def over_stdio(db: str, audits: list[list[str]]) -> Samples:
    async def main() -> Samples:
        params = StdioServerParameters(command=sys.executable,
                                       args=["-m", "jtms", "serve", "--db", db],
                                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        async with Client(params) as client:
            return await over(client, audits)
    return anyio.run(main)


def over_http(db: str, audits: list[list[str]]) -> Samples:
    process = subprocess.Popen([sys.executable, "-m", "jtms", "serve", "--db", db,
                                "--http", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True,
                               env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    try:
        assert process.stderr is not None
        url = process.stderr.readline().split()[-1]

        async def main() -> Samples:
            async with Client(url) as client:
                return await over(client, audits)
        return anyio.run(main)
    finally:
        process.terminate()
        process.wait(30)


def run(n_claims: int, calls: int, seed: int, folder: Path) -> dict[str, Any]:
    document = make_graph(n_claims, seed=seed)
    n_evidence = n_claims // 5
    db = str(folder / "bench-serve.db")
    with Memory.create(db) as memory:
        memory.import_graph(document)
    del document
    rng = random.Random(seed + 11)
    evidence = [f"e{i}" for i in range(n_evidence)]
    size = max(1, n_evidence // 100)
    audits = [sorted(rng.sample(evidence, size)) for _ in range(calls)]
    result: dict[str, Any] = {"claims": n_claims, "evidence": n_evidence, "roots": size,
                              "calls": calls}
    samples, sizes = in_process(db, audits)
    result["in_process"] = percentiles(samples)
    print(f"in_process: {result['in_process']}", file=sys.stderr, flush=True)
    result["result_ids_median"] = statistics.median(sizes)  # retired + kept entries per result
    base = statistics.median(samples)
    paths: list[tuple[str, Callable[[str, list[list[str]]], Samples]]] = [
        ("stdio", over_stdio), ("http", over_http)]
    for name, measure in paths:
        samples, checks = measure(db, audits)
        row = result[name] = percentiles(samples)
        row["overhead_p50_ms"] = round((statistics.median(samples) - base) * 1000, 3)
        row["client_schema_check_p50_ms"] = round(statistics.median(checks) * 1000, 3)
        row["overhead_without_client_check_p50_ms"] = round(
            (statistics.median([s - c for s, c in zip(samples, checks)]) - base) * 1000, 3)
        print(f"{name}: {row}", file=sys.stderr, flush=True)  # kept if a long run is cut short
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        result = run(args.claims, args.calls, args.seed, Path(folder))
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"audit of {result['roots']} roots on {result['claims']} claims, {result['calls']} calls")
    print(f"  (each result lists {result['result_ids_median']:.0f} retired + kept ids, median)")
    for name in ("in_process", "stdio", "http"):
        row = result[name]
        extra = ""
        if "overhead_p50_ms" in row:
            extra = (f"  overhead p50 {row['overhead_p50_ms']:+.2f} ms, of which the client's schema"
                     f" check {row['client_schema_check_p50_ms']:.2f} ms; without it "
                     f"{row['overhead_without_client_check_p50_ms']:+.2f} ms")
        print(f"  {name:<11} p50 {row['p50_ms']:8.2f} ms  p99 {row['p99_ms']:8.2f} ms{extra}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
