"""`jtms serve --http` (streamable HTTP on an ephemeral port, a real subprocess) with the SDK's
own client: the correction loop, bearer-token refusals that touch nothing, Host/Origin checks,
and many clients at once."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from jtms.memory.memory import Memory
from tests.serve_helpers import call, error, http_server, jtms_json, lists, new_memory, two_chains

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

TOKEN = "s3cret-token-for-tests-0123456789"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "add_evidence", "arguments": {"id": "intruder"}},
}


def client(url: str, token: str | None = None) -> Client:
    if token is None:
        return Client(url)
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
    return Client(streamable_http_client(url, http_client=http))


def post(url: str, headers: dict[str, str], body: Any = INIT) -> tuple[int, str]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


def test_correction_loop_over_http(tmp_path):
    db = new_memory(tmp_path / "m.db")
    with http_server(db) as (url, _):

        async def main() -> None:
            with anyio.fail_after(120):
                async with client(url) as c:
                    await call(c, "add_evidence", id="e1", text="one")
                    await call(c, "add_evidence", id="e2", text="two")
                    await call(c, "add_claim", id="c", justifications=[["e1"], ["e2"]])
                    await call(c, "add_claim", id="d", justifications=[["e1", "c"]])
                    audited = await call(c, "audit", invalidate=["e1"], reason="wrong")
                    assert audited["retired"] == ["d", "e1"]
                    assert audited["kept"] == [{"id": "c", "surviving_justification": ["e2"]}]
                    assert lists(await call(c, "state")) == {
                        "active": ["c", "e2"],
                        "inactive": ["d", "e1"],
                    }
                    assert "unknown id" in await error(c, "explain", id="ghost")
                    assert await call(c, "explain", id="d") == jtms_json("explain", "d", "--db", db)
                    back = await call(c, "reinstate", audit_id=audited["audit_id"])
                    assert back["reactivated"] == ["d", "e1"]
                    assert sorted((await call(c, "context", budget=100))["selected"]) == ["c", "d"]

        anyio.run(main)


def test_token_required_and_refusals_touch_nothing(tmp_path):
    db = new_memory(tmp_path / "m.db")
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    with http_server(db, "--token-file", str(token_file)) as (url, _):
        for headers in (
            {},
            {"Authorization": "Bearer wrong-token-wrong-token"},
            {"Authorization": TOKEN},
            {"Cookie": "jtms_token=nope"},
        ):
            status, _ = post(url, headers)
            assert status == 401, headers

        async def main() -> None:
            with anyio.fail_after(60):
                async with client(url, TOKEN) as c:
                    assert lists(await call(c, "state")) == {"active": [], "inactive": []}
                    await call(c, "add_evidence", id="e1")

        anyio.run(main)
    with Memory.open(db) as memory:
        assert "intruder" not in memory and memory.active_ids() == {"e1"}


def test_host_and_origin_checks(tmp_path):
    db = new_memory(tmp_path / "m.db")
    with http_server(db) as (url, _):
        port = url.split(":")[2].split("/")[0]
        assert post(url, {"Host": "evil.example"})[0] == 421
        assert post(url, {"Host": f"evil.example:{port}"})[0] == 421
        assert post(url, {"Origin": "http://evil.example"})[0] == 403
        assert post(url, {"Origin": f"http://localhost:{port}"})[0] not in (403, 421)
    with Memory.open(db) as memory:
        assert "intruder" not in memory


def test_many_clients_at_once(tmp_path):
    """8 clients write and read concurrently: every write lands once, the final state is the
    least fixpoint, and each reader always sees a consistent state."""
    db = new_memory(tmp_path / "m.db")
    with Memory.open(db) as memory:
        memory.add_evidence("shared")
    clients, rounds = 8, 5
    with http_server(db) as (url, _):

        async def worker(k: int) -> None:
            async with client(url) as c:
                for r in range(rounds):
                    e, claim = f"e{k}_{r}", f"c{k}_{r}"
                    await call(c, "add_evidence", id=e)
                    await call(c, "add_claim", id=claim, justifications=[[e, "shared"], [e]])
                    audited = await call(c, "audit", invalidate=[e], reason="r")
                    assert audited["retired"] == sorted([e, claim])
                    state = await call(c, "state", ids=[e, claim, "shared"])
                    assert state["active"] == ["shared"] or e in state["active"]
                    if r % 2:
                        await call(c, "reinstate", audit_id=audited["audit_id"])

        async def main() -> None:
            with anyio.fail_after(150):
                async with anyio.create_task_group() as group:
                    for k in range(clients):
                        group.start_soon(worker, k)

        anyio.run(main)
    with Memory.open(db) as memory:
        assert memory.integrity_problems() == []
        expected = {"shared"} | {
            f"{p}{k}_{r}"
            for k in range(clients)
            for r in range(rounds)
            if r % 2
            for p in ("e", "c")
        }
        assert memory.active_ids() == expected


def test_accepted_connections_have_tcp_nodelay():
    """The socket `jtms serve --http` listens on names TCP as its protocol, so asyncio sets
    TCP_NODELAY on every accepted connection (without it each response waited for the
    client's delayed ACK: 40 ms a request)."""
    import asyncio
    import socket

    from jtms.cli.commands.serve import listening_socket

    async def main() -> int:
        flags: list[int] = []

        def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            sock = writer.get_extra_info("socket")
            flags.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        sock = listening_socket("127.0.0.1", 0)
        server = await asyncio.start_server(accepted, sock=sock)
        async with server:
            _, writer = await asyncio.open_connection(*sock.getsockname())
            for _ in range(200):
                if flags:
                    break
                await asyncio.sleep(0.01)
            writer.close()
        return flags[0]

    assert asyncio.run(main()) != 0


def test_subscribers_are_notified_over_http(tmp_path):
    """Change notifications reach a listener over streamable HTTP too (the server's own
    write, then one by a `jtms audit` from a shell)."""
    db = two_chains(tmp_path / "m.db")
    with http_server(db) as (url, _):

        async def main() -> None:
            with anyio.fail_after(90):
                async with client(url) as c:
                    watched = ["memory://node/c1", "memory://node/c2", "memory://context"]
                    async with c.listen(resource_subscriptions=watched) as events:
                        await call(c, "audit", invalidate=["e1"], reason="r")
                        seen: set[str] = set()
                        async for event in events:
                            seen.add(str(event.uri))
                            if {"memory://node/c1", "memory://context"} <= seen:
                                break
                        assert "memory://node/c2" not in seen
                        await anyio.to_thread.run_sync(
                            lambda: jtms_json(
                                "audit",
                                "--db",
                                db,
                                "--invalidate",
                                "e2",
                                "--reason",
                                "shell",
                                "--json",
                            )
                        )
                        async for event in events:
                            if str(event.uri) == "memory://node/c2":
                                break
                    assert (await call(c, "state", ids=["c1", "c2"]))["inactive"] == ["c1", "c2"]

        anyio.run(main)


def test_results_fit_the_sdk_clients_default_event_limit_at_100k_claims(tmp_path):
    """100,000 claims over 20,000 evidence (benchmarks/bench_reconsolidation.py's shape),
    served over streamable HTTP to the SDK's client at its defaults (a server-sent event of
    at most 1 MiB): an audit of 100 evidence, `state` of every node, a `check` page,
    `context` at its largest budget, `history` and `explain` all arrive, each result and its
    text copy under the limit, and the audit's later pages come from `page`."""
    import time

    from mcp.client.streamable_http import DEFAULT_MAX_SSE_EVENT_SIZE

    from benchmarks.bench_reconsolidation import make_graph
    from jtms.serve.tools import MAX_CONTEXT_BUDGET

    started = time.perf_counter()
    db = str(tmp_path / "big.db")
    with Memory.create(db, durability="off") as memory:
        memory.import_graph(make_graph(100_000, seed=5))
    with http_server(db) as (url, _):

        async def main() -> None:
            with anyio.fail_after(150):
                async with Client(url) as c:  # the SDK's defaults
                    calls = [
                        (
                            "audit",
                            {"invalidate": [f"e{i}" for i in range(100)], "reason": "bad lot"},
                        ),
                        ("state", {}),
                        ("check", {}),
                        ("context", {"budget": MAX_CONTEXT_BUDGET}),
                        ("history", {"id": "e3"}),
                        ("explain", {"id": "c99999"}),
                    ]
                    results = {}
                    for name, arguments in calls:
                        result = await c.call_tool(name, arguments)
                        assert not result.is_error, (name, result.content)
                        size = len(result.model_dump_json(by_alias=True, exclude_none=True))
                        assert size < DEFAULT_MAX_SSE_EVENT_SIZE * 3 // 4, (name, size)
                        results[name] = result.structured_content
                        print(f"{name}: {size} bytes")
                    audited = results["audit"]
                    assert audited["counts"]["kept"] > 1000 and len(audited["kept"]) == 50
                    assert (
                        results["state"]["counts"]["active"]
                        + results["state"]["counts"]["inactive"]
                        == 120_000
                    )
                    assert (
                        results["check"]["counts"]["claims"] == 100_000
                        and results["check"]["cursor"]
                    )
                    following = await call(c, "page", cursor=audited["cursor"], limit=1000)
                    assert len(following["kept"]) == 1000
                    assert following["kept"][0]["id"] > audited["kept"][-1]["id"]

        anyio.run(main)
    assert time.perf_counter() - started < 170
