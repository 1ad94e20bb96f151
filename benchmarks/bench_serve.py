"""The MCP server's protocol overhead: one `audit` (200 evidence roots) on a 100k-claim memory,
in process, over stdio and over streamable HTTP, side by side in one run.

    nice -n 19 python benchmarks/bench_serve.py                 # 100k claims, 50 calls each
    python benchmarks/bench_serve.py --claims 2000 --calls 5    # a quick look
    python benchmarks/bench_serve.py --claims 20000 --during-check 20   # state during check

The memory has the shape of benchmarks/bench_reconsolidation.py (N claims, N/5 evidence, 1-3
justifications of 1-3 antecedents). Every call audits a fresh random 1% of the evidence (the
same sequence for the three paths) and is then reinstated (not timed), so each starts from the
same state. In process: ``Memory.audit`` plus the result payload, exactly what the `audit`
tool runs. Over stdio and HTTP: ``Client.call_tool("audit", ...)`` of the SDK's own client
against a `jtms serve` subprocess, round trip as the agent sees it; each server is warmed by
a few untimed calls first. Overhead = transport p50 - in-process p50 (goal: at most 5 ms).

Apart from the SDK client's round trip, each transport row also gives what the client's own
output-schema check of the result costs (the SDK re-validates every structured result with
``jsonschema``; timed again on the same result), and a third row times the same call as a raw
JSON-RPC POST over HTTP (``httpx2``, the SDK's own HTTP library, with no MCP client: POST,
read the event, ``json.loads``), so the server's part and the SDK client's part are told
apart. After the audits each path times `state` of one id and of every node (nothing changed
since the last call, so catching up is a no-op). CPU per call (means): the client's (``process_time``) and the server process's
(``/proc``); on a loaded machine they say more than wall times do.
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import anyio  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from benchmarks.bench_reconsolidation import make_graph  # noqa: E402
from jtms.memory.memory import Memory  # noqa: E402
from jtms.views import payloads  # noqa: E402

WARMUP = 3
STATE_CALLS = 10  # `state` calls timed after the audits (one id, then every node)


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return {"p50_ms": round(statistics.median(ordered) * 1000, 3), "p99_ms": round(p99 * 1000, 3)}


class Row:
    """One path's samples: round trip, the client's schema check, CPU of client and server."""

    def __init__(self) -> None:
        self.seconds: list[float] = []
        self.checks: list[float] = []
        self.client_cpu: list[float] = []
        self.server_cpu: list[float] = []
        self.sizes: list[float] = []  # retired + kept entries per result
        self.text_bytes: list[float] = []  # the result's JSON text copy
        self.state: dict[str, list[float]] = {}  # `state` of one id / of every node


def process_cpu(pid: int | None) -> float:
    """User + system CPU seconds of process ``pid`` so far (0 when unknown)."""
    if pid is None:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def serve_child() -> int | None:
    """The pid of the `jtms serve` child the SDK's stdio client started."""
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as handle:
            for pid in handle.read().split():
                with open(f"/proc/{pid}/cmdline", "rb") as cmd:
                    if b"serve" in cmd.read():
                        return int(pid)
    return None


def in_process(db: str, audits: list[list[str]]) -> Row:
    row = Row()
    with Memory.open(db) as memory:
        for ids, key in ((["e0"], "state_one"), (None, "state_all")):
            for _ in range(STATE_CALLS):
                started = time.perf_counter()
                payloads.state_payload(memory, ids)
                row.state.setdefault(key, []).append(time.perf_counter() - started)
        for k, roots in enumerate(audits[:WARMUP] + audits):
            started, cpu = time.perf_counter(), time.process_time()
            result = memory.audit(roots, reason="bench")
            payload = payloads.audit_payload(memory, roots, result, False)
            elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
            memory.reinstate(result.audit_id)  # type: ignore[arg-type]
            if k >= WARMUP:
                row.seconds.append(elapsed)
                row.client_cpu.append(cpu)
                row.sizes.append(float(len(payload["retired"]) + len(payload["kept"])))
    return row


async def over(client: Client, audits: list[list[str]], server: int | None) -> Row:
    """Round trips of `audit` through the SDK's client, and apart what its own output-schema
    check of each result costs (the SDK validates every structured result with jsonschema)."""
    row = Row()
    for k, roots in enumerate(audits[:WARMUP] + audits):
        started, cpu, server_cpu = time.perf_counter(), time.process_time(), process_cpu(server)
        result = await client.call_tool("audit", {"invalidate": roots, "reason": "bench"})
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        server_cpu = process_cpu(server) - server_cpu
        assert not result.is_error and result.structured_content, result.content
        started = time.perf_counter()
        await client.session.validate_tool_result("audit", result)
        check = time.perf_counter() - started
        await client.call_tool("reinstate", {"audit_id": result.structured_content["audit_id"]})
        if k >= WARMUP:
            row.seconds.append(elapsed)
            row.checks.append(check)
            row.client_cpu.append(cpu)
            row.server_cpu.append(server_cpu)
            row.text_bytes.append(float(sum(len(getattr(c, "text", "")) for c in result.content)))
    for arguments, key in (({"ids": ["e0"]}, "state_one"), ({}, "state_all")):
        for _ in range(STATE_CALLS):  # nothing changed since the last call: catch-up is a no-op
            started = time.perf_counter()
            result = await client.call_tool("state", arguments)
            row.state.setdefault(key, []).append(time.perf_counter() - started)
            assert not result.is_error, result.content
    return row


def over_stdio(db: str, audits: list[list[str]]) -> Row:
    async def main() -> Row:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "jtms", "serve", "--db", db],
            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        )
        async with Client(params) as client:
            return await over(client, audits, serve_child())

    return anyio.run(main)


def http_server(db: str) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "jtms", "serve", "--db", db, "--http", "127.0.0.1:0"],
        stderr=subprocess.PIPE,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert process.stderr is not None
    return process, process.stderr.readline().split()[-1]


def stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    process.wait(30)


def over_http(db: str, audits: list[list[str]]) -> Row:
    process, url = http_server(db)
    try:

        async def main() -> Row:
            async with Client(url) as client:
                return await over(client, audits, process.pid)

        return anyio.run(main)
    finally:
        stop(process)


def over_raw_http(db: str, audits: list[list[str]]) -> Row:
    """The same calls as raw JSON-RPC POSTs (no MCP client): initialize once, then per call
    POST tools/call, read the server-sent event and ``json.loads`` it."""
    import httpx2

    process, url = http_server(db)
    row = Row()
    try:
        with httpx2.Client(timeout=600) as http:
            headers = {
                "Accept": "application/json, text/event-stream",
                "Content-Type": "application/json",
            }
            version = "2025-11-25"
            reply = http.post(
                url,
                headers=headers,
                json={
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": version,
                        "capabilities": {},
                        "clientInfo": {"name": "bench-raw", "version": "0"},
                    },
                },
            )
            reply.raise_for_status()
            headers = {
                **headers,
                "mcp-session-id": reply.headers["mcp-session-id"],
                "mcp-protocol-version": version,
            }
            http.post(
                url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"}
            )

            def rpc(number: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
                reply = http.post(
                    url,
                    headers=headers,
                    json={
                        "jsonrpc": "2.0",
                        "id": number,
                        "method": "tools/call",
                        "params": {"name": name, "arguments": arguments},
                    },
                )
                reply.raise_for_status()
                body = reply.text
                if reply.headers.get("content-type", "").startswith("text/event-stream"):
                    body = next(line[5:] for line in body.splitlines() if line.startswith("data:"))
                message: dict[str, Any] = json.loads(body)
                return message["result"]  # type: ignore[no-any-return]

            for k, roots in enumerate(audits[:WARMUP] + audits):
                started, cpu = time.perf_counter(), time.process_time()
                server_cpu = process_cpu(process.pid)
                result = rpc(2 * k + 1, "audit", {"invalidate": roots, "reason": "bench"})
                elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
                server_cpu = process_cpu(process.pid) - server_cpu
                assert not result.get("isError") and result["structuredContent"], result
                rpc(2 * k + 2, "reinstate", {"audit_id": result["structuredContent"]["audit_id"]})
                if k >= WARMUP:
                    row.seconds.append(elapsed)
                    row.client_cpu.append(cpu)
                    row.server_cpu.append(server_cpu)
    finally:
        stop(process)
    return row


def state_p50(row: Row) -> dict[str, float]:
    return {
        f"{key}_p50_ms": round(statistics.median(samples) * 1000, 3)
        for key, samples in row.state.items()
    }


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
    result: dict[str, Any] = {
        "claims": n_claims,
        "evidence": n_evidence,
        "roots": size,
        "calls": calls,
    }
    base_row = in_process(db, audits)
    result["in_process"] = percentiles(base_row.seconds)
    result["in_process"]["cpu_mean_ms"] = round(statistics.mean(base_row.client_cpu) * 1000, 3)
    result["in_process"].update(state_p50(base_row))
    print(f"in_process: {result['in_process']}", file=sys.stderr, flush=True)
    result["result_ids_median"] = statistics.median(base_row.sizes)  # retired + kept entries
    base = statistics.median(base_row.seconds)
    paths: list[tuple[str, Callable[[str, list[list[str]]], Row]]] = [
        ("stdio", over_stdio),
        ("http", over_http),
        ("raw_http", over_raw_http),
    ]
    for name, measure in paths:
        measured = measure(db, audits)
        row = result[name] = percentiles(measured.seconds)
        row["overhead_p50_ms"] = round((statistics.median(measured.seconds) - base) * 1000, 3)
        # means: /proc counts the server's CPU in clock ticks (10 ms), too coarse for a median
        row["client_cpu_mean_ms"] = round(statistics.mean(measured.client_cpu) * 1000, 3)
        row["server_cpu_mean_ms"] = round(statistics.mean(measured.server_cpu) * 1000, 3)
        row.update(state_p50(measured))
        if measured.checks:
            row["client_schema_check_p50_ms"] = round(statistics.median(measured.checks) * 1000, 3)
            row["overhead_without_client_check_p50_ms"] = round(
                (
                    statistics.median([s - c for s, c in zip(measured.seconds, measured.checks)])
                    - base
                )
                * 1000,
                3,
            )
            row["text_copy_bytes_median"] = statistics.median(measured.text_bytes)
        print(f"{name}: {row}", file=sys.stderr, flush=True)  # kept if a long run is cut short
    return result


def state_during_check(n_claims: int, seed: int, folder: Path, seconds: float) -> dict[str, Any]:
    """`state` of one id over HTTP, alone and while another client runs `check` pages
    back to back (each page certificates of 50 claims plus the verdicts of every claim):
    the long read runs in the server's worker process (``jtms.serve.longreads``), so the
    short call waits neither for the writers' lock nor for the interpreter lock (goal: p99
    under 50 ms). The load average before and after is recorded: on a shared machine it
    says more about the spread than anything else."""
    document = make_graph(n_claims, n_claims // 5, seed=seed)
    db = str(folder / "bench-during-check.db")
    with Memory.create(db) as memory:
        memory.import_graph(document)
    del document
    process, url = http_server(db)
    result: dict[str, Any] = {
        "claims": n_claims,
        "seconds": seconds,
        "load_before": os.getloadavg()[0],
    }
    try:

        async def main() -> None:
            async with Client(url) as reader, Client(url) as checker:

                async def states(duration: float) -> list[float]:
                    samples: list[float] = []
                    until = time.perf_counter() + duration
                    while time.perf_counter() < until:
                        t = time.perf_counter()
                        await reader.call_tool("state", {"ids": ["c7"]})
                        samples.append(time.perf_counter() - t)
                        await anyio.sleep(0.005)
                    return samples

                for _ in range(WARMUP):
                    await reader.call_tool("state", {"ids": ["c7"]})
                result["state_alone"] = percentiles(await states(min(5.0, seconds)))
                pages: list[float] = []
                running = [True]

                async def checks() -> None:
                    cursor = None
                    while running[0]:
                        t = time.perf_counter()
                        page = await checker.call_tool(
                            "check", {} if cursor is None else {"cursor": cursor}
                        )
                        assert not page.is_error, page.content
                        pages.append(time.perf_counter() - t)
                        cursor = (page.structured_content or {}).get("cursor")

                async with anyio.create_task_group() as group:
                    group.start_soon(checks)
                    await anyio.sleep(0.5)  # the first page is computing
                    result["state_during_check"] = percentiles(await states(seconds))
                    running[0] = False
                result["load_after"] = os.getloadavg()[0]
                result["check_pages"] = len(pages)
                result["check_page_p50_s"] = round(statistics.median(pages), 3)

        anyio.run(main)
    finally:
        stop(process)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--during-check",
        type=float,
        default=None,
        metavar="SECONDS",
        help="instead: `state` of one id alone and during back-to-back `check` "
        "pages for SECONDS (with --claims 20000)",
    )
    args = parser.parse_args(argv)
    if args.during_check is not None:
        with tempfile.TemporaryDirectory() as folder:
            found = state_during_check(args.claims, args.seed, Path(folder), args.during_check)
        if args.json:
            print(json.dumps(found, indent=2))
            return 0
        print(f"state of one id over HTTP, {found['claims']} claims:")
        for key in ("state_alone", "state_during_check"):
            row = found[key]
            print(f"  {key:<20} p50 {row['p50_ms']:8.2f} ms  p99 {row['p99_ms']:8.2f} ms")
        print(
            f"  ({found['check_pages']} check pages meanwhile, p50 {found['check_page_p50_s']} s each)"
        )
        return 0
    with tempfile.TemporaryDirectory() as folder:
        result = run(args.claims, args.calls, args.seed, Path(folder))
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"audit of {result['roots']} roots on {result['claims']} claims, {result['calls']} calls")
    print(f"  (each result lists {result['result_ids_median']:.0f} retired + kept ids, median)")
    for name in ("in_process", "stdio", "http", "raw_http"):
        row = result[name]
        extra = ""
        if "overhead_p50_ms" in row:
            extra = f"  overhead p50 {row['overhead_p50_ms']:+.2f} ms"
        if "client_schema_check_p50_ms" in row:
            extra += (
                f", of which the client's schema check {row['client_schema_check_p50_ms']:.2f}"
                f" ms; without it {row['overhead_without_client_check_p50_ms']:+.2f} ms"
            )
        cpu = (
            f"  CPU/call client {row['client_cpu_mean_ms']:.1f} ms server "
            f"{row['server_cpu_mean_ms']:.1f} ms"
            if "server_cpu_mean_ms" in row
            else f"  CPU/call {row['cpu_mean_ms']:.1f} ms"
        )
        print(f"  {name:<11} p50 {row['p50_ms']:8.2f} ms  p99 {row['p99_ms']:8.2f} ms{cpu}{extra}")
        if "state_all_p50_ms" in row:
            print(
                f"  {'':<11} state p50: one id {row['state_one_p50_ms']:.2f} ms, every node "
                f"{row['state_all_p50_ms']:.2f} ms (nothing changed since the last call)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
