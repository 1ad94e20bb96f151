"""`jtms serve` over stdio, driven by the MCP SDK's own client (a real `jtms serve` process):
the tool contract of docs/design.md section 4, results equal to the CLI's `--json`, tool errors that
keep the server serving, writes by another process, and resource change notifications."""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import anyio
import anyio.to_thread
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from jtms.memory.memory import Memory
from jtms.serve.tools import WATCH_SECONDS, MemoryAccess, build_server
from jtms.views import payloads
from tests.serve_helpers import call, env, error, jtms, jtms_json, lists, new_memory, two_chains

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

KEY, PAGE = {"idempotency_key"}, {"limit", "cursor"}
TOOLS = {
    "add_evidence": {"id", "text", "source", "expression", "value"} | KEY,
    "add_claim": {"id", "justifications", "text"} | KEY,
    "add_justification": {"claim", "antecedents", "limit"} | KEY,
    "audit": {"invalidate", "reason", "reviewer", "dry_run"} | KEY | PAGE,
    "reinstate": {"audit_id", "limit"} | KEY,
    "state": {"ids"} | PAGE,
    "explain": {"id", "as_of"} | PAGE,
    "history": {"id"} | PAGE,
    "context": {"budget", "query"},
    "check": PAGE,
    "review": {"dry_run", "limit"} | KEY,
    "add_nogood": {"id", "nodes", "limit"} | KEY,
    "diagnose": PAGE,
    "page": {"cursor", "event_id", "limit"},
}
READING = {"state", "explain", "history", "context", "check", "diagnose", "page"}


def stdio(db: str, *extra: str) -> Client:
    return Client(
        StdioServerParameters(
            command=sys.executable, args=["-m", "jtms", "serve", "--db", db, *extra], env=env()
        )
    )


def without_seconds(payload: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in payload.items() if k != "seconds"}


def test_correction_loop_over_stdio(tmp_path):
    """One connection: evidence and claims, a preview, an audit, state, explain, context,
    reinstate; every result is what the CLI's --json says for the same memory."""
    db = new_memory(tmp_path / "m.db")

    async def main() -> None:
        with anyio.fail_after(120):
            async with stdio(db) as client:
                listed = {t.name: t for t in (await client.list_tools()).tools}
                assert {
                    n: set(t.input_schema.get("properties", {})) for n, t in listed.items()
                } == TOOLS
                assert all(t.output_schema and t.description for t in listed.values())

                await call(client, "add_evidence", id="assay", text="assay A shows X", source="lab")
                await call(client, "add_evidence", id="paper", text="paper says X")
                await call(client, "add_evidence", id="calc", expression="6*7", value="42")
                added = await call(
                    client,
                    "add_claim",
                    id="x",
                    justifications=[["assay"], ["paper"]],
                    text="X holds",
                )
                assert added["active"] is True and added["id"] == "x"
                await call(client, "add_claim", id="plan", justifications=[["x", "assay"]])
                premise = await call(client, "add_claim", id="axiom", justifications=[[]])
                assert premise["active"] is True

                preview = await call(
                    client, "audit", invalidate=["assay"], reason="contaminated", dry_run=True
                )
                assert preview["audit_id"] is None and preview["dry_run"] is True
                cli_preview = jtms_json(
                    "audit",
                    "--db",
                    db,
                    "--invalidate",
                    "assay",
                    "--reason",
                    "contaminated",
                    "--dry-run",
                )
                assert without_seconds(preview) == without_seconds(cli_preview)

                audited = await call(
                    client, "audit", invalidate=["assay"], reason="contaminated", reviewer="ana"
                )
                assert audited["retired"] == ["assay", "plan"]
                assert audited["kept"] == [{"id": "x", "surviving_justification": ["paper"]}]
                assert isinstance(audited["audit_id"], int)

                state = await call(client, "state")
                assert lists(state) == {
                    "active": ["axiom", "calc", "paper", "x"],
                    "inactive": ["assay", "plan"],
                }
                assert lists(await call(client, "state", ids=["plan", "x"])) == {
                    "active": ["x"],
                    "inactive": ["plan"],
                }
                for node in ("x", "plan", "assay"):
                    assert await call(client, "explain", id=node) == jtms_json(
                        "explain", node, "--db", db
                    )
                assert await call(client, "history", id="assay") == jtms_json(
                    "history", "assay", "--db", db
                )
                context = await call(client, "context", budget=200)
                assert context == jtms_json("context", "--db", db, "--budget", "200")
                assert "assay" in context["text"] and context["withdrawn"]

                checked = await call(client, "check")
                cli_check = json.loads(jtms("check", "--db", db, "--json", check=False).stdout)
                assert cli_check.pop("provenance")["command"] == "check"  # the CLI's alone
                assert without_seconds(checked) == without_seconds(cli_check)
                assert await call(client, "review", dry_run=True) == jtms_json(
                    "review", "--db", db, "--dry-run"
                )

                back = await call(client, "reinstate", audit_id=audited["audit_id"])
                assert back["reactivated"] == ["assay", "plan"]
                assert (await call(client, "explain", id="plan"))["active"] is True
                again = await call(client, "add_justification", claim="plan", antecedents=["paper"])
                assert again["claim"] == "plan" and again["activated"] == []

    anyio.run(main)


def test_nogoods_and_diagnose_as_the_cli(tmp_path):
    db = new_memory(tmp_path / "m.db")
    with Memory.open(db) as memory:
        for e in ("trial", "anecdote", "assay"):
            memory.add_evidence(e)
        memory.add_claim("effective", [["trial"], ["anecdote"]])
        memory.add_claim("inert", [["assay"]])

    async def main() -> None:
        with anyio.fail_after(120):
            async with stdio(db) as client:
                added = await call(client, "add_nogood", id="n1", nodes=["inert", "effective"])
                assert added == {
                    "event_id": added["event_id"],
                    "id": "n1",
                    "nodes": ["effective", "inert"],
                    "active": True,
                    "counts": {"nodes": 2},
                    "cursor": None,
                }
                assert "unknown id" in await error(client, "add_nogood", id="n2", nodes=["ghost"])
                assert lists(await call(client, "state", ids=["n1", "inert"])) == {
                    "active": ["inert", "n1"],
                    "inactive": [],
                }
                report = await call(client, "diagnose")
                cli = json.loads(jtms("diagnose", "--db", db, "--json", check=False).stdout)
                assert report == cli
                assert [d["invalidate"] for d in report["diagnoses"]][0] == ["assay"]
                preview = await call(
                    client, "audit", invalidate=["trial"], reason="r", dry_run=True
                )
                # the kept claim's surviving justification is one the previewed audit leaves intact
                assert preview["kept"] == [
                    {"id": "effective", "surviving_justification": ["anecdote"]}
                ]

    anyio.run(main)


def test_bad_calls_are_tool_errors_and_the_server_keeps_serving(tmp_path):
    db = new_memory(tmp_path / "m.db")

    async def main() -> None:
        with anyio.fail_after(120):
            async with stdio(db) as client:
                await call(client, "add_evidence", id="e1")
                assert "node 'nope': unknown id" in await error(
                    client, "audit", invalidate=["nope"], reason="r"
                )
                assert "unknown id" in await error(client, "explain", id="nope")
                assert "invalidate" in await error(client, "audit", reason="r")  # missing
                assert "budget" in await error(client, "context", budget="lots")  # wrong type
                assert "invalidate" in await error(
                    client, "audit", invalidate=["e1"] * 10_001, reason="r"
                )  # oversized
                assert "duplicate id" in await error(client, "add_evidence", id="e1")
                assert "no such audit" in await error(client, "reinstate", audit_id=999)
                assert "unknown antecedent" in await error(
                    client, "add_claim", id="c", justifications=[["ghost"]]
                )
                assert "needs a reason" in await error(
                    client, "audit", invalidate=["e1"], reason=" "
                )
                # nothing was changed by the bad calls, and the next good call works
                assert lists(await call(client, "state")) == {"active": ["e1"], "inactive": []}
                assert (await call(client, "add_claim", id="c", justifications=[["e1"]]))["active"]

    anyio.run(main)


def test_write_by_a_cli_process_is_visible_to_the_next_call(tmp_path):
    db = new_memory(tmp_path / "m.db")

    async def main() -> None:
        with anyio.fail_after(120):
            async with stdio(db) as client:
                await call(client, "add_evidence", id="e1")
                assert (await call(client, "state"))["active"] == ["e1"]
                jtms("add-evidence", "e2", "--db", db)
                jtms("add-claim", "c", "--because", "e1", "--because", "e2", "--db", db)
                jtms("audit", "--invalidate", "e1", "--reason", "cli", "--db", db)
                assert lists(await call(client, "state")) == {
                    "active": ["c", "e2"],
                    "inactive": ["e1"],
                }
                explained = await call(client, "explain", id="c")
                assert explained["certificate"] == [{"claim": "c", "antecedents": ["e2"]}]

    anyio.run(main)


def test_read_only_exposes_only_the_reading_tools(tmp_path):
    db = new_memory(tmp_path / "m.db")
    jtms("add-evidence", "e1", "--db", db)

    async def main() -> None:
        with anyio.fail_after(120):
            async with stdio(db, "--read-only") as client:
                assert {t.name for t in (await client.list_tools()).tools} == READING
                result = await client.call_tool("audit", {"invalidate": ["e1"], "reason": "r"})
                assert result.is_error
                assert (await call(client, "state"))["active"] == ["e1"]

    anyio.run(main)
    assert jtms_json("history", "e1", "--db", db)["active"] is True


def test_subscribers_are_notified_after_writes(tmp_path):
    db = new_memory(tmp_path / "m.db")
    with Memory.open(db) as memory:
        memory.add_evidence("e1")
        memory.add_claim("c1", [["e1"]])
        memory.add_claim("c2", [[]])
    server = build_server(MemoryAccess(Memory.open(db)))

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(server) as client:
                node = json.loads((await client.read_resource("memory://node/c1")).contents[0].text)
                assert node["status"] == "active" and node["certificate"]
                watched = ["memory://node/c1", "memory://node/c2", "memory://context"]
                async with client.listen(resource_subscriptions=watched) as events:
                    await call(client, "audit", invalidate=["e1"], reason="r")
                    seen = set()
                    async for event in events:
                        seen.add(event.uri)
                        if seen == {"memory://node/c1", "memory://context"}:
                            break
                node = json.loads((await client.read_resource("memory://node/c1")).contents[0].text)
                assert node["status"] == "inactive"
                assert node["broken_justifications"] == [
                    {"antecedents": ["e1"], "inactive": ["e1"]}
                ]
                text = (await client.read_resource("memory://context")).contents[0].text
                assert "c1" in text and "Withdrawn" in text

    anyio.run(main)


def test_serve_usage_errors_are_one_line_exit_2(tmp_path):
    db = new_memory(tmp_path / "m.db")
    for args, needle in [
        (["--db", str(tmp_path / "missing.db")], "missing.db"),
        (["--db", db, "--http", "0.0.0.0:0"], "--token-file"),
        (["--db", db, "--http", "nonsense"], "HOST:PORT"),
        (["--db", db, "--token-file", db], "--http"),
        (["--db", db, "--http", "127.0.0.1:0", "--token-file", str(tmp_path / "none")], "token"),
    ]:
        result = jtms("serve", *args, check=False)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stderr.count("\n") == 1 and needle in result.stderr, result.stderr


def small_memory(db: str) -> None:
    with Memory.open(db) as memory:
        for e in ("assay", "paper", "log"):
            memory.add_evidence(e, text=f"the {e}")
        memory.add_claim("x", [["assay"], ["paper"]], text="X holds")
        memory.add_claim("plan", [["x", "assay"]])
        memory.add_claim("y", [["x", "log"]])


def test_results_are_serialised_once_with_cheap_output_schemas(tmp_path):
    """Each structured result is built once (the payload of the CLI's --json), its text copy is
    that payload's compact JSON (one block), and the SDK does not validate and re-dump it on
    the server; each published output schema names every key and type but describes list items
    instead of checking them one by one (a client's check costs O(keys), not O(ids)), and every
    result still validates against it."""
    from jsonschema.validators import validator_for
    from mcp_types import TextContent

    db = new_memory(tmp_path / "m.db")
    small_memory(db)
    server = build_server(MemoryAccess(Memory.open(db)))
    assert {t.name for t in server._tool_manager.list_tools()} == set(TOOLS)
    assert all(t.fn_metadata.output_model is None for t in server._tool_manager.list_tools())

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(server) as client:
                schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
                for name, schema in schemas.items():
                    assert schema is not None and schema["type"] == "object", name
                    if name == "page":  # one of the writing tools' results, by the event's kind
                        assert schema["additionalProperties"] is True
                        continue
                    assert set(schema["required"]) == set(schema["properties"]), name
                    for key, prop in schema["properties"].items():
                        for branch in (prop, *prop.get("anyOf", ())):
                            if branch.get("type") == "array":
                                assert "items" not in branch, (name, key)
                                assert "each item:" in prop["description"], (name, key)
                    for ref in re.findall(r"\$defs\.(\w+)", json.dumps(schema)):
                        assert ref in schema["$defs"], (name, ref)
                arguments = {"invalidate": ["assay"], "reason": "contaminated", "dry_run": True}
                result = await client.call_tool("audit", arguments)
                (text,) = result.content
                assert isinstance(text, TextContent) and "\n" not in text.text
                assert (
                    json.loads(text.text) == result.structured_content
                    and ", " not in text.text[:40]
                )
                cli = jtms_json(
                    "audit",
                    "--db",
                    db,
                    "--invalidate",
                    "assay",
                    "--reason",
                    "contaminated",
                    "--dry-run",
                )
                assert without_seconds(result.structured_content) == without_seconds(cli)
                assert result.structured_content["kept"] == [
                    {"id": "x", "surviving_justification": ["paper"]},
                    {"id": "y", "surviving_justification": ["log", "x"]},
                ]
                for name, args in [
                    ("audit", arguments),
                    ("state", {}),
                    ("explain", {"id": "plan"}),
                    ("history", {"id": "x"}),
                    ("context", {"budget": 100}),
                    ("check", {}),
                    ("diagnose", {}),
                ]:
                    payload = (await client.call_tool(name, args)).structured_content
                    validator = validator_for(schemas[name])(schemas[name])
                    assert not list(validator.iter_errors(payload)), name
                    wrong = {**payload, "kept" if name == "audit" else "id": 7}
                    if name in ("audit", "explain", "history"):  # a key of the wrong type fails
                        assert list(validator.iter_errors(wrong)), name

    anyio.run(main)


def test_explain_as_of_over_the_client(tmp_path):
    """`explain`'s `as_of` (an event id, a digit string or an ISO time) explains the node as it
    was then, exactly as `jtms explain --as-of`; an event that does not exist is a tool error."""
    db = new_memory(tmp_path / "m.db")
    small_memory(db)
    with Memory.open(db) as memory:
        before = memory.last_event
        audit_id = memory.audit(["assay", "paper"], reason="both wrong").audit_id
    server = build_server(MemoryAccess(Memory.open(db)))

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(server) as client:
                now = await call(client, "explain", id="x")
                assert now["active"] is False and now["kept_out_by"] == [audit_id]
                then = await call(client, "explain", id="x", as_of=before)
                assert then["active"] is True and then["certificate"]
                assert then == jtms_json("explain", "x", "--as-of", str(before), "--db", db)
                assert await call(client, "explain", id="x", as_of=str(before)) == then
                assert await call(client, "explain", id="x", as_of=audit_id) == now
                with Memory.open(db) as memory:
                    moment = memory.history("x")[0]["time"]  # its creation: active since
                assert (await call(client, "explain", id="x", as_of=moment))["active"] is True
                assert "no event" in await error(client, "explain", id="x", as_of=10**6)
                assert "ISO time" in await error(client, "explain", id="x", as_of="soon")
                assert "unknown id" in await error(client, "explain", id="y", as_of=1)

    anyio.run(main)


def test_state_of_every_node_reads_the_state_not_the_graph(tmp_path, monkeypatch):
    """`state` without ids lists every node from the in-memory state: it must not rebuild the
    whole graph (Memory.structure: seconds on 100k claims) and it agrees with the graph."""
    db = new_memory(tmp_path / "m.db")
    small_memory(db)
    memory = Memory.open(db)
    memory.audit(["assay"], reason="r")
    everything = set(memory.structure().nodes)
    expected = {
        "active": sorted(memory.active_ids()),
        "inactive": sorted(everything - memory.active_ids()),
    }
    assert expected["inactive"] == ["assay", "plan"]

    def refuse(self: Memory) -> None:
        raise AssertionError("state rebuilt the whole graph")

    monkeypatch.setattr(Memory, "structure", refuse)
    server = build_server(MemoryAccess(memory))

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(server) as client:
                assert lists(await call(client, "state")) == expected

    anyio.run(main)
    before_audit = memory.as_of(memory.last_event - 1)  # the CLI's `state --as-of` path
    assert lists(payloads.state_payload(before_audit)) == {
        "active": sorted(everything),
        "inactive": [],
    }


def test_subscribers_are_notified_of_writes_by_other_processes(tmp_path):
    """A `jtms audit` run from a shell while a client listens: the server notices it (it looks
    at the latest event every WATCH_SECONDS while someone listens) and notifies the node it
    retired and the context, like for its own writes; its own writes are not notified again."""
    db = two_chains(tmp_path / "m.db")
    server = build_server(MemoryAccess(Memory.open(db)))

    async def main() -> None:
        async with Client(server) as client:
            watched = ["memory://node/c1", "memory://node/c2", "memory://context"]
            async with client.listen(resource_subscriptions=watched) as events:
                seen: list[str] = []

                async def collect(last: str) -> None:
                    """Events until ``last``, then whatever comes in 3 more watcher periods."""
                    with anyio.move_on_after(30) as scope:
                        async for event in events:
                            seen.append(event.uri)
                            if event.uri == last:
                                scope.deadline = anyio.current_time() + 3 * WATCH_SECONDS

                await anyio.sleep(2 * WATCH_SECONDS)  # the watcher is looking by now
                await call(client, "audit", invalidate=["e2"], reason="ours")
                await collect("memory://node/c2")
                await anyio.to_thread.run_sync(
                    lambda: jtms("audit", "--invalidate", "e1", "--reason", "theirs", "--db", db)
                )
                await collect("memory://node/c1")
            assert seen == [
                "memory://context",
                "memory://node/c2",  # ours, once
                "memory://context",
                "memory://node/c1",
            ]  # theirs, by the watcher
            node = json.loads((await client.read_resource("memory://node/c1")).contents[0].text)
            assert node["status"] == "inactive"

    anyio.run(main)


def test_stdio_answers_every_line_it_cannot_parse(tmp_path):
    """The SDK's stdio reader dropped a line it could not parse (a lone surrogate escape, a
    5,000-digit integer, arrays nested 5,000 deep): the client waited forever. Each is now
    answered with a JSON-RPC error carrying the request's id when it can be read (else id
    null), nothing is written, and the server keeps serving."""
    import os
    import select
    import subprocess
    import time

    from jtms.serve.stdio import request_id

    assert request_id('{"jsonrpc":"2.0","id":"k\\"1","x":"}"}') == 'k"1'
    assert request_id('[{"id":1}]') is None and request_id('{"a":{"id":1}}') is None
    db = two_chains(tmp_path / "m.db")
    with Memory.open(db) as memory:
        events = memory.last_event
    process = subprocess.Popen(
        [sys.executable, "-m", "jtms", "serve", "--db", db],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env(),
    )
    assert process.stdin is not None and process.stdout is not None
    received: list[dict[str, Any]] = []
    pending = b""

    def send(line: str) -> None:
        assert process.stdin is not None
        process.stdin.write(line.encode("utf-8", "surrogatepass") + b"\n")
        process.stdin.flush()

    def answer(request: object, seconds: float = 30) -> dict[str, Any]:
        nonlocal pending
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for message in received:
                if message.get("id") == request:
                    received.remove(message)
                    return message
            assert process.stdout is not None
            if select.select([process.stdout], [], [], 0.2)[0]:
                pending += os.read(process.stdout.fileno(), 1 << 20)
                *lines, pending = pending.split(b"\n")
                received.extend(json.loads(line) for line in lines if line.strip())
        raise AssertionError(f"no answer to {request!r} in {seconds} s")

    def call_line(request: int, tool: str, arguments: str) -> str:
        return (
            f'{{"jsonrpc":"2.0","id":{request},"method":"tools/call",'
            f'"params":{{"name":"{tool}","arguments":{arguments}}}}}'
        )

    try:
        init = {"protocolVersion": "2025-06-18", "capabilities": {}}
        init["clientInfo"] = {"name": "test", "version": "0"}
        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}))
        assert "result" in answer(1)
        send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        send(call_line(2, "add_evidence", '{"id":"\\ud800x"}'))
        send(call_line(3, "reinstate", '{"audit_id":' + "9" * 5000 + "}"))
        send(call_line(4, "state", '{"ids":' + "[" * 5000 + "]" * 5000 + "}"))
        send('{"jsonrpc":"2.0","id":"k-5","method":"tools/call","params":{"name":"add_evidence"')
        send("")  # a blank line: nothing to answer
        send('{"jsonrpc":"2.0","id":6}')  # JSON, but not a JSON-RPC message
        send("{not json")
        for request, code in ((2, -32700), (3, -32700), (4, -32700), (6, -32600), (None, -32700)):
            error = answer(request)["error"]
            assert error["code"] == code and "nothing was done" in error["message"], error
        assert answer("k-5")["error"]["code"] == -32700  # a cut line: its id is still read
        send('{"jsonrpc":"2.0","id":9,"method":"ping"}')
        assert answer(9)["result"] == {}
        assert received == []  # one answer a line, the blank one none
    finally:
        process.stdin.close()
        process.wait(30)
        process.stdout.close()
    with Memory.open(db) as memory:
        assert memory.last_event == events
