"""``add_batch`` over stdio with the official MCP client: a memory of N nodes (one evidence
per five nodes, the rest claims, each claim justified by one or two earlier nodes, and one
alternative justification in ten) written by one ``add_batch`` call, timed from the call to
its result; ``--calls`` also times the same memory written one node per call, side by side.

    python -m benchmarks.bench_batch --nodes 2400 --calls --json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

REPO = Path(__file__).resolve().parents[1]


def batch(n: int, seed: int = 58) -> dict[str, list[dict[str, Any]]]:
    """The benchmark's batch: ``n`` nodes (evidence first in every five), justifications."""
    rng = random.Random(seed)
    nodes: list[dict[str, Any]] = []
    justifications: list[dict[str, Any]] = []
    for k in range(n):
        if k % 5 == 0:
            nodes.append({"id": f"e{k}", "kind": "evidence", "text": f"observation {k}"})
            continue
        nodes.append({"id": f"c{k}", "kind": "claim", "text": f"claim {k} about topic {k % 37}"})
        earlier = [node["id"] for node in nodes[max(0, k - 40) : k]]
        for _ in range(2 if rng.random() < 0.1 else 1):
            justifications.append(
                {"claim": f"c{k}", "antecedents": rng.sample(earlier, min(2, len(earlier)))}
            )
    return {"nodes": nodes, "justifications": justifications}


def _server(db: str) -> Client:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    return Client(
        StdioServerParameters(
            command=sys.executable, args=["-m", "jtms", "serve", "--db", db], env=env
        )
    )


async def _one_batch(db: str, document: dict[str, Any]) -> dict[str, Any]:
    async with _server(db) as client:
        await client.list_tools()
        started = time.perf_counter()
        result = await client.call_tool("add_batch", document)
        seconds = time.perf_counter() - started
        assert not result.is_error, result.content
        return {"seconds": seconds, "result": result.structured_content}


async def _many_calls(db: str, document: dict[str, Any]) -> float:
    claims: dict[str, list[list[str]]] = {}
    for justification in document["justifications"]:
        claims.setdefault(justification["claim"], []).append(justification["antecedents"])
    async with _server(db) as client:
        await client.list_tools()
        started = time.perf_counter()
        for node in document["nodes"]:
            if node["kind"] == "evidence":
                args: dict[str, Any] = {"id": node["id"], "text": node["text"]}
                result = await client.call_tool("add_evidence", args)
            else:
                args = {
                    "id": node["id"],
                    "text": node["text"],
                    "justifications": claims[node["id"]],
                }
                result = await client.call_tool("add_claim", args)
            assert not result.is_error, result.content
        return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=2400)
    parser.add_argument(
        "--repeat", type=int, default=3, help="batches timed (each on a new memory)"
    )
    parser.add_argument("--calls", action="store_true", help="also time one call per node")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    document = batch(args.nodes)
    out: dict[str, Any] = {
        "load_average_1min": round(os.getloadavg()[0], 1),  # how busy the machine was
        "cpus": os.cpu_count(),
        "nodes": args.nodes,
        "justifications": len(document["justifications"]),
        "batch_seconds": [],
    }
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.repeat):
            db = str(Path(tmp) / f"b{k}.db")
            subprocess.run(
                [sys.executable, "-m", "jtms", "init", "--db", db], check=True, capture_output=True
            )
            found = anyio.run(_one_batch, db, document)
            out["batch_seconds"].append(round(found["seconds"], 3))
            out["active"] = found["result"]["active"]
        if args.calls:
            db = str(Path(tmp) / "calls.db")
            subprocess.run(
                [sys.executable, "-m", "jtms", "init", "--db", db], check=True, capture_output=True
            )
            out["calls_seconds"] = round(anyio.run(_many_calls, db, document), 3)
    if args.json:
        print(json.dumps(out, sort_keys=True))
    else:
        print(
            f"{args.nodes} nodes, {out['justifications']} justifications: add_batch "
            f"{min(out['batch_seconds'])} s (best of {args.repeat}: {out['batch_seconds']})"
            + (f"; one call per node {out['calls_seconds']} s" if args.calls else "")
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
