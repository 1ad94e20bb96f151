"""The MCP server an agent cannot misuse by accident (issue 32), driven in process by the SDK's
own client: unknown arguments refused before anything is written, the shared limits in every
schema, results in pages read as of one event, idempotency keys that survive a restart, long
reads beside the writers' lock, and one-line errors without server paths."""

from __future__ import annotations

import base64
import json
import os
import signal
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import TextContent

from jtms.memory import limits
from jtms.memory.memory import Memory, RepeatedCall
from jtms.serve.tools import RESULT_BYTES, MemoryAccess, build_server
from jtms.views import pages, payloads
from tests.serve_helpers import call, error
from theory.model.errors import InputError

pytestmark = pytest.mark.timeout(180)


def fan(path: Path, width: int = 130) -> str:
    """e0 supports c0..c{width-1} alone; ek (k >= 1) is a second reason for ck: an audit of
    e0 retires c0 and keeps the others."""
    db = str(path)
    with Memory.create(db) as memory:
        memory.import_graph(
            {
                "nodes": [{"id": f"e{k}", "kind": "evidence"} for k in range(width)]
                + [{"id": f"c{k}", "kind": "claim"} for k in range(width)],
                "justifications": [{"claim": f"c{k}", "antecedents": ["e0"]} for k in range(width)]
                + [{"claim": f"c{k}", "antecedents": [f"e{k}"]} for k in range(1, width)],
            }
        )
    return db


async def fits(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """A tool's result, checked to be a success within the result cap."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, str(result.content)[:300]
    (content,) = result.content
    assert isinstance(content, TextContent) and len(content.text) <= RESULT_BYTES
    assert result.structured_content is not None
    return result.structured_content


def serve(
    db: str, body: Callable[[Client, Memory], Awaitable[None]], read_only: bool = False
) -> None:
    memory = Memory.open(db)
    access = MemoryAccess(memory)
    server = build_server(access, read_only=read_only)

    async def main() -> None:
        with anyio.fail_after(120):
            async with Client(server) as client:
                await body(client, memory)

    try:
        anyio.run(main)
    finally:
        access.close()
        memory.close()


# --- 1. strict inputs ------------------------------------------------------------------------------
def test_unknown_arguments_are_refused_and_nothing_is_written(tmp_path):
    db = fan(tmp_path / "m.db", 3)

    async def body(client: Client, memory: Memory) -> None:
        tools = (await client.list_tools()).tools
        assert all(t.input_schema.get("additionalProperties") is False for t in tools)
        before = memory.last_event
        message = await error(client, "audit", invalidate=["e1"], reason="x", dryrun=True)
        assert "unknown argument 'dryrun' (did you mean 'dry_run'?)" in message
        assert "nothing was done" in message
        assert "'colour'" in await error(client, "add_evidence", id="z", colour="red")
        assert memory.last_event == before and "z" not in memory
        assert memory.is_active("e1")

    serve(db, body)


WRONG = {  # values of each JSON type, the lax readings of the SDK and pydantic among them
    "null": [None],
    "boolean": [True, False],
    "integer": [0, 1, 5],
    "number": [5.0, 1.5],
    "string": ["no", "off", "0", "5", "true", "null", '["e1"]', '[["e1"]]'],
    "array": [[], ["e1"], [1]],
    "object": [{}, {"id": "e1"}],
}


def accepted(schema: dict[str, Any]) -> set[str]:
    """The JSON types an argument's published schema takes (an integer is a number too)."""
    types = {b["type"] for b in (schema, *schema.get("anyOf", ())) if "type" in b}
    return types | ({"number"} if "number" in types else set())


@pytest.mark.slow
def test_every_argument_of_every_tool_refuses_every_wrong_json_type(tmp_path):
    """Booleans only true/false, integers only JSON integers, lists only arrays, strings only
    strings: no "no" read as false (a real audit), no true read as 1, no '["e2"]' read as a
    list, no "null" read as null. Each refusal names the argument and writes nothing."""
    db = fan(tmp_path / "m.db", 3)
    with Memory.open(db) as memory:
        audit_id = memory.audit(["e2"], reason="r").audit_id
    valid: dict[str, dict[str, Any]] = {
        "add_evidence": {"id": "new"},
        "add_claim": {"id": "new", "justifications": [["e1"]]},
        "add_justification": {"claim": "c1", "antecedents": ["e1"]},
        "audit": {"invalidate": ["e1"], "reason": "r"},
        "add_nogood": {"id": "ng", "nodes": ["e1", "c1"]},
        "add_batch": {"nodes": [{"id": "new", "kind": "evidence"}]},
        "reinstate": {"audit_id": audit_id},
        "review": {},
        "state": {},
        "explain": {"id": "c1"},
        "history": {"id": "c1"},
        "context": {"budget": 100},
        "diagnose": {},
        "check": {},
        "page": {"event_id": audit_id},
        "search": {"query": "e1"},
        "purge": {"id": "e3", "reason": "erasure request"},
    }

    async def body(client: Client, memory: Memory) -> None:
        before = memory.last_event
        tools = (await client.list_tools()).tools
        assert {t.name for t in tools} == set(valid)  # a new tool needs its valid call here
        tried = 0
        for entry in tools:
            for name, schema in entry.input_schema["properties"].items():
                takes = accepted(schema)
                assert takes, (entry.name, name)
                for kind, values in WRONG.items():
                    if kind in takes:
                        continue
                    for value in values:
                        arguments = {**valid[entry.name], name: value}
                        message = await error(client, entry.name, **arguments)
                        assert f"bad arguments: {name}" in message, (entry.name, name, value)
                        assert memory.last_event == before, (entry.name, name, value, message)
                        tried += 1
        assert tried > 300
        said = await error(client, "audit", invalidate=["e1"], reason="r", dry_run="no")
        assert said.endswith("bad arguments: dry_run: expected true or false, got a string")
        said = await error(client, "explain", id="c1", as_of=[3])
        assert said.endswith("as_of: expected an integer or a string, got an array")
        assert memory.is_active("e1") and memory.last_event == before

    serve(db, body)


def test_every_string_and_list_has_the_shared_limit(tmp_path):
    db = fan(tmp_path / "m.db", 3)

    async def body(client: Client, memory: Memory) -> None:
        for entry in (await client.list_tools()).tools:
            for name, prop in entry.input_schema["properties"].items():
                assert prop.get("description"), (entry.name, name)
                assert "\n    " not in (entry.description or ""), entry.name
                for branch in (prop, *prop.get("anyOf", ())):
                    if branch.get("type") == "string":
                        assert "maxLength" in branch, (entry.name, name)
                    if branch.get("type") == "array":
                        assert "maxItems" in branch, (entry.name, name)
        schema = {t.name: t.input_schema for t in (await client.list_tools()).tools}
        assert (
            schema["add_evidence"]["properties"]["source"]["anyOf"][0]["maxLength"]
            == limits.MAX_SOURCE
        )
        assert (
            schema["audit"]["properties"]["reviewer"]["anyOf"][0]["maxLength"]
            == limits.MAX_REVIEWER
        )
        assert schema["audit"]["properties"]["reason"]["maxLength"] == limits.MAX_REASON
        assert schema["context"]["properties"]["query"]["anyOf"][0]["maxLength"] == limits.MAX_QUERY
        before = memory.last_event
        message = await error(
            client, "add_evidence", id="big", source="s" * (limits.MAX_SOURCE + 1)
        )
        assert f"source: {limits.MAX_SOURCE + 1} characters, at most {limits.MAX_SOURCE}" in message
        message = await error(
            client, "audit", invalidate=["e1"], reason="r", reviewer="r" * (limits.MAX_REVIEWER + 1)
        )
        assert f"at most {limits.MAX_REVIEWER}" in message and "reviewer" in message
        message = await error(client, "add_claim", id="c", justifications=[["e1", "x" * 300]])
        assert "justifications[0][1]: 300 characters, at most 256" in message
        assert memory.last_event == before

    serve(db, body)


# --- 5. errors for a model ------------------------------------------------------------------------
def test_errors_are_one_line_and_name_no_server_path(tmp_path):
    db = fan(tmp_path / "m.db", 3)

    async def body(client: Client, memory: Memory) -> None:
        messages = [
            await error(client, "audit", invalidate=["ghost"], reason="r"),
            await error(client, "reinstate", audit_id=999),
            await error(client, "explain", id="ghost"),
            await error(client, "explain", id="c1", as_of=10**6),
            await error(client, "add_evidence", id="e1"),
            await error(client, "history", id="ghost"),
        ]
        assert "node 'ghost': unknown id" in messages[0]
        for message in messages:
            assert str(tmp_path) not in message and "m.db" not in message, message

    serve(db, body)


def test_explain_as_of_reads_only_ascii_digits_as_an_event(tmp_path):
    """ "²".isdigit() is true, and int("²") raises; "٣" and "１２" were read as events 3 and 12.
    Only ASCII digits name an event; anything else is an ISO time or the one-line refusal."""
    db = fan(tmp_path / "m.db", 3)

    async def body(client: Client, memory: Memory) -> None:
        for as_of in ("²", "³", "①", "٣", "１２", "٣ "):
            message = await error(client, "explain", id="c1", as_of=as_of)
            assert "expected an event id or an ISO time" in message, (as_of, message)
        last = memory.last_event
        assert (await call(client, "explain", id="c1", as_of=f" {last} "))["active"] is True
        assert "no event 12" in await error(client, "explain", id="c1", as_of="12")

    serve(db, body)


# --- 2. bounded, paged results -------------------------------------------------------------------
def test_an_audit_comes_in_pages_read_as_of_its_event(tmp_path):
    db = fan(tmp_path / "m.db", 130)

    async def body(client: Client, memory: Memory) -> None:
        audited = await call(client, "audit", invalidate=["e0"], reason="r", limit=50)
        assert list(audited)[0] == "audit_id"
        assert audited["counts"] == {"audit": 1, "retired": 2, "kept": 129}
        assert len(audited["kept"]) == 50 and audited["cursor"]
        complete = payloads.event_page(memory, audited["audit_id"])
        kept = list(audited["kept"])
        cursor = audited["cursor"]
        await call(client, "reinstate", audit_id=audited["audit_id"])  # the memory moves on
        while cursor:
            page = await call(client, "page", cursor=cursor, limit=50)
            assert page["counts"] == {"audit": 1, "retired": 2, "kept": 129}
            kept += page["kept"]
            cursor = page["cursor"]
        assert kept == complete["kept"] and len(kept) == 129
        later = await call(client, "page", event_id=audited["audit_id"], limit=1000)
        assert later["kept"] == kept and later["retired"] == ["c0", "e0"]
        assert "not of `state`" in await error(client, "state", cursor=audited["cursor"])
        assert "not a cursor" in await error(client, "page", cursor="jc1.bm9wZQ")

    serve(db, body)


def test_state_and_history_pages_read_the_first_pages_event(tmp_path):
    db = fan(tmp_path / "m.db", 40)

    async def body(client: Client, memory: Memory) -> None:
        first = await call(client, "state", limit=30)
        assert first["counts"] == {"active": 80, "inactive": 0}
        await call(client, "add_evidence", id="late")  # after the first page
        second = await call(client, "state", limit=30, cursor=first["cursor"])
        third = await call(client, "state", limit=30, cursor=second["cursor"])
        assert third["cursor"] is None
        ids = first["active"] + second["active"] + third["active"]
        assert "late" not in ids and len(ids) == 80 == len(set(ids))
        assert "other arguments" in await error(client, "state", ids=["e1"], cursor=first["cursor"])
        assert len((await call(client, "state"))["active"]) == 50  # the default limit
        history = await call(client, "history", id="c1", limit=1)
        assert history["counts"] == {"revisions": 1, "audited_by": 0} and history["cursor"] is None

    serve(db, body)


def reencoded(cursor: str, event: int | None = None, offset: int | None = None) -> str:
    """``cursor`` with its event or offset edited, its signature kept (a forgery)."""
    body, _, mac = cursor.rpartition(".")
    data = body.removeprefix("jc1.")
    fields = json.loads(base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)))
    fields[1] = fields[1] if event is None else event
    fields[2] = fields[2] if offset is None else offset
    text = json.dumps(fields, separators=(",", ":")).encode()
    return "jc1." + base64.urlsafe_b64encode(text).decode().rstrip("=") + "." + mac


def test_cursors_are_signed_by_the_memory(memory_location):
    """A cursor is signed with the memory's secret: an edited offset or event, an unsigned
    or re-signed cursor and another memory's cursor are refused with the one-line message;
    the memory's own cursors are read, also by a new server (the secret is stored)."""
    first, other = memory_location(), memory_location()
    for location, width in ((first, 5), (other, 2)):
        with Memory.create(location) as memory:
            memory.import_graph(
                {"nodes": [{"id": f"e{k}", "kind": "evidence"} for k in range(width * 3)]}
            )
            for k in range(3):
                memory.add_evidence(f"late{k}")
    kept: dict[str, Any] = {}

    async def body(client: Client, memory: Memory) -> None:
        page = await call(client, "state", limit=3)
        cursor = kept["state"] = page["cursor"]
        assert cursor.count(".") == 2 and memory.secret() is not None
        assert (await call(client, "state", limit=3, cursor=cursor))["active"][0] == "e11"
        body, _, mac = cursor.rpartition(".")
        for forged in (
            reencoded(cursor, offset=4),  # skips one
            reencoded(cursor, offset=0),  # repeats the first page
            reencoded(cursor, event=1),  # the memory as of its init
            body,  # unsigned
            f"{body}.{'A' * len(mac)}",
            cursor + "x",
        ):
            message = await error(client, "state", limit=3, cursor=forged)
            assert "cursor: not a cursor of this memory's results" in message, forged
        audited = await call(client, "audit", invalidate=["e0"], reason="r", limit=1)
        assert audited["cursor"] is None  # e0 alone: one page
        preview = await call(client, "audit", invalidate=["e1"], reason="r", dry_run=True)
        assert preview["cursor"] is None
        kept["check"] = (await call(client, "check", limit=1))["cursor"]

    serve(first, body)

    async def again(client: Client, memory: Memory) -> None:  # a new server: the same secret
        assert (await call(client, "state", limit=3, cursor=kept["state"]))["active"][0] == "e11"

    serve(first, again)

    async def elsewhere(client: Client, memory: Memory) -> None:
        assert memory.last_event >= 3  # the cursor's event exists here too
        for cursor in (kept["state"],):
            message = await error(client, "state", limit=3, cursor=cursor)
            assert "not a cursor of this memory's results" in message

    serve(other, elsewhere)


def test_a_memory_created_before_secrets_gets_one_on_first_use(tmp_path):
    """A memory without a secret (created by an earlier jtms) gets one written on first use
    (a meta row, no event); a read-only server writes nothing and signs with a secret of its
    own process."""
    import sqlite3

    db = fan(tmp_path / "m.db", 3)
    connection = sqlite3.connect(db)
    with connection:
        connection.execute("DELETE FROM meta WHERE key = 'secret'")
    connection.close()

    async def reads_only(client: Client, memory: Memory) -> None:
        page = await call(client, "state", limit=2)
        assert (await call(client, "state", limit=2, cursor=page["cursor"]))["counts"]
        assert memory.secret(create=False) is None

    serve(db, reads_only, read_only=True)

    async def body(client: Client, memory: Memory) -> None:
        events = memory.last_event
        page = await call(client, "state", limit=2)
        assert (await call(client, "state", limit=2, cursor=page["cursor"]))["counts"]
        secret = memory.secret(create=False)
        assert secret is not None and len(secret) == 64 and memory.last_event == events

    serve(db, body)


@pytest.mark.slow
def test_a_dry_run_and_a_check_page_on(tmp_path):
    db = fan(tmp_path / "m.db", 30)

    async def body(client: Client, memory: Memory) -> None:
        preview = await call(client, "audit", invalidate=["e0"], reason="r", dry_run=True, limit=10)
        assert preview["counts"]["kept"] == 29 and preview["audit_id"] is None
        seen = preview["kept"]
        cursor = preview["cursor"]
        while cursor:
            more = await call(
                client,
                "audit",
                invalidate=["e0"],
                reason="r",
                dry_run=True,
                limit=10,
                cursor=cursor,
            )
            seen += more["kept"]
            cursor = more["cursor"]
        assert [k["id"] for k in seen] == sorted(f"c{k}" for k in range(1, 30))
        assert "page" in await error(
            client, "audit", invalidate=["e0"], reason="r", cursor=preview["cursor"]
        )
        assert memory.is_active("c0")  # nothing was audited
        checked = await call(client, "check", limit=7)
        claims = list(checked["claims"])
        while checked["cursor"]:
            checked = await call(client, "check", limit=7, cursor=checked["cursor"])
            claims += checked["claims"]
        assert [c["id"] for c in claims] == sorted(f"c{k}" for k in range(30))
        assert checked["counts"] == {
            "claims": 30,
            "unsafe": 29,
            "counting_unsafe": 0,
            "counting_undecided": 0,
        }

    serve(db, body)


def long_id(prefix: str, k: int) -> str:
    return f"{prefix}{k}".ljust(256, "x")  # an id of the longest length


@pytest.mark.slow
def test_results_of_long_ids_can_be_read_at_some_limit(tmp_path):
    """With ids of 256 characters, inside the documented limits: an audit of 2,000 of them
    and a nogood over 2,000 page their echoed lists (`audit`, `nodes`) like every other
    list, so `limit` 1 (and `page`) always reads them; a `check` page of a claim with two
    justifications of 1,000 antecedents lists what fits and counts the rest."""
    db = str(tmp_path / "m.db")
    with Memory.create(db) as memory:
        memory.import_graph(
            {
                "nodes": [{"id": long_id("e", k), "kind": "evidence"} for k in range(4000)]
                + [{"id": "big", "kind": "claim"}],
                "justifications": [
                    {"claim": "big", "antecedents": [long_id("e", k) for k in range(1000)]},
                    {"claim": "big", "antecedents": [long_id("e", k) for k in range(1000, 2000)]},
                ],
            }
        )
    roots = sorted(long_id("e", k) for k in range(2000, 4000))

    async def body(client: Client, memory: Memory) -> None:
        audited = await fits(client, "audit", invalidate=roots, reason="bulk", limit=1)
        assert audited["counts"] == {"audit": 2000, "retired": 2000, "kept": 0}
        assert audited["audit"] == roots[:1] and audited["cursor"]
        listed, cursor = list(audited["audit"]), audited["cursor"]
        while cursor:
            page = await fits(client, "page", cursor=cursor, limit=400)
            listed += page["audit"]
            cursor = page["cursor"]
        assert listed == roots
        first = await fits(client, "page", event_id=audited["audit_id"], limit=1)
        assert first["audit"] == roots[:1] and first["counts"]["audit"] == 2000
        nodes = [long_id("e", k) for k in range(2000)]
        added = await fits(client, "add_nogood", id="ng", nodes=nodes, idempotency_key="n")
        assert added["counts"] == {"nodes": 2000} and added["nodes"] == sorted(nodes)[:50]
        again = await fits(client, "add_nogood", id="ng", nodes=nodes, idempotency_key="n")
        assert again == added
        more = await fits(client, "page", cursor=added["cursor"], limit=1)
        assert more["nodes"] == sorted(nodes)[50:51] and more["id"] == "ng"
        assert (await fits(client, "page", event_id=added["event_id"], limit=3))["nodes"] == (
            sorted(nodes)[:3]
        )
        for limit in (1, 2, 50):
            checked = await fits(client, "check", limit=limit)
            (claim,) = checked["claims"]
            assert claim["id"] == "big" and claim["influence_safe"] is False
            assert claim["minimal_justification_count"] == min(limit, 2)
            assert claim["minimal_justifications_complete"] is (limit >= 2)
            assert claim["violation_count"] == 2000
            assert len(claim["violations"]) <= limit

    serve(db, body)


@pytest.mark.slow
def test_contradictions_of_long_ids_can_be_read_at_limit_1(tmp_path):
    """A nogood over 2,000 evidence ids of 256 characters (inside the documented limits) is
    an active contradiction whose `nodes` and one conflict set are 516 KB each: `diagnose`
    and `review` at `limit` 1 list what fits of each contradiction and each diagnosis and
    count the rest (`node_count`, `conflict_count`, `invalidate_count`, ...), so their
    results are read rather than refused over the byte cap."""
    db = str(tmp_path / "m.db")
    nodes = [long_id("e", k) for k in range(2000)]
    with Memory.create(db) as memory:
        memory.import_graph({"nodes": [{"id": i, "kind": "evidence"} for i in nodes]})
        memory.add_evidence("calc", expression="6*7", value="41")  # a wrong calculation
        memory.add_nogood("ng", nodes)
        assert memory.is_active("ng")

    def cut(contradiction: dict[str, Any]) -> None:
        assert contradiction["nogood"] == "ng" and contradiction["active"] is True
        assert contradiction["node_count"] == 2000 and len(contradiction["nodes"]) <= 1
        assert contradiction["nodes"] == sorted(nodes)[: len(contradiction["nodes"])]
        assert contradiction["conflict_count"] == 1 and contradiction["conflicts_complete"]
        assert contradiction["conflicts"] == []  # the one set (516 KB) does not fit

    def counted(diagnosis: dict[str, Any]) -> None:
        assert diagnosis["invalidate_count"] == 1 and len(diagnosis["invalidate"]) == 1
        assert diagnosis["retires_count"] == 1 and len(diagnosis["retires"]) <= 1
        assert diagnosis["keeps_count"] == len(diagnosis["keeps"]) == 0

    async def body(client: Client, memory: Memory) -> None:
        found = await fits(client, "diagnose", limit=1)
        assert found["counts"] == {"contradictions": 1, "diagnoses": 10, "undiagnosable": 0}
        (contradiction,) = found["contradictions"]
        cut(contradiction)
        (diagnosis,) = found["diagnoses"]
        counted(diagnosis)
        assert diagnosis["invalidate"][0] in nodes and found["cursor"]
        more = await fits(client, "diagnose", limit=9, cursor=found["cursor"])
        assert more["contradictions"] == [] and more["cursor"] is None
        assert len({d["invalidate"][0] for d in found["diagnoses"] + more["diagnoses"]}) == 10
        widest = await fits(client, "diagnose", limit=1000)  # fits at every limit
        assert len(widest["diagnoses"]) == 10 and widest["cursor"] is None
        assert 1 < len(widest["contradictions"][0]["nodes"]) < 2000
        reviewed = await fits(client, "review", limit=1)
        assert reviewed["counts"]["contradictions"] == 1 and reviewed["retired"] == ["calc"]
        (contradiction,) = reviewed["contradictions"]
        cut(contradiction)
        counted(reviewed["proposed_diagnosis"])
        previewed = await fits(client, "review", limit=1000, dry_run=True)
        assert previewed["contradictions"][0]["node_count"] == 2000

    serve(db, body)


def test_a_diagnose_page_stops_at_its_bytes_and_the_cursor_goes_on():
    """Pages of `diagnose` cut by bytes: the contradictions and diagnoses share one offset,
    so a page that stops early (at `max_bytes`) stops every list there, and its cursor
    starts the next page at the first item left out."""
    big = [long_id("e", k) for k in range(100)]  # 25 KB of ids

    def contradiction(k: int) -> dict[str, Any]:
        return {
            "nogood": f"n{k}",
            "nodes": big,
            "text": "",
            "active": True,
            "conflicts": [big],
            "conflicts_complete": True,
            "diagnosable": True,
        }

    report = {
        "contradictions": [contradiction(k) for k in range(5)],
        "diagnoses": [],
        "undiagnosable": [],
        "applied": None,
    }
    listed: list[str] = []
    offset, cursor = 0, "first"
    while cursor:
        page = payloads.diagnose_payload(report, 3, limit=100, offset=offset, max_bytes=60_000)
        assert page["counts"]["contradictions"] == 5
        assert all(
            c["node_count"] == 100 and c["conflict_count"] == 1 for c in page["contradictions"]
        )
        assert all(len(c["conflicts"]) == 1 for c in page["contradictions"])  # 25 KB: fits half
        listed += [c["nogood"] for c in page["contradictions"]]
        cursor = page["cursor"]
        offset = pages.decode(cursor).offset if cursor else 0
    assert listed == [f"n{k}" for k in range(5)]


# --- 3. retries are safe --------------------------------------------------------------------------
@pytest.mark.slow
def test_a_repeat_with_the_same_key_writes_nothing_even_after_a_restart(tmp_path):
    db = fan(tmp_path / "m.db", 5)
    first: dict[str, Any] = {}

    async def before(client: Client, memory: Memory) -> None:
        first["evidence"] = await call(client, "add_evidence", id="n1", idempotency_key="k-1")
        first["audit"] = await call(
            client, "audit", invalidate=["e0"], reason="r", idempotency_key="k-2"
        )
        events = memory.last_event
        assert (
            await call(client, "add_evidence", id="n1", idempotency_key="k-1") == first["evidence"]
        )
        again = await call(client, "audit", invalidate=["e0"], reason="r", idempotency_key="k-2")
        assert {k: v for k, v in again.items() if k != "seconds"} == {
            k: v for k, v in first["audit"].items() if k != "seconds"
        }
        assert memory.last_event == events
        assert "already used by another call" in await error(
            client, "audit", invalidate=["e1"], reason="r", idempotency_key="k-2"
        )
        assert memory.last_event == events

    serve(db, before)

    async def after(client: Client, memory: Memory) -> None:  # a new server, a new connection
        events = memory.last_event
        assert (
            await call(client, "add_evidence", id="n1", idempotency_key="k-1") == first["evidence"]
        )
        back = await call(
            client, "reinstate", audit_id=first["audit"]["audit_id"], idempotency_key="k-3"
        )
        assert (
            await call(
                client, "reinstate", audit_id=first["audit"]["audit_id"], idempotency_key="k-3"
            )
            == back
        )
        assert memory.last_event == events + 1

    serve(db, after)


@pytest.mark.slow
def test_a_key_written_by_another_process_while_waiting_for_the_lock(tmp_path):
    """The pre-check misses the key; another connection commits it before this write takes
    the write lock: the write finds it inside its transaction and writes nothing."""
    db = fan(tmp_path / "m.db", 3)
    other = Memory.open(db)
    from jtms.views.pages import digest

    request = digest(
        {
            "tool": "add_evidence",
            "id": "n1",
            "text": "",
            "source": None,
            "expression": None,
            "value": None,
        }
    )

    async def body(client: Client, memory: Memory) -> None:
        def race(point: str) -> None:
            if point == "write" and "n1" not in other:
                with other.keyed("k-9", request):
                    other.add_evidence("n1")

        memory.test_hook = race
        result = await call(client, "add_evidence", id="n1", idempotency_key="k-9")
        memory.test_hook = None
        assert result["event_id"] == other.last_event and result["active"] is True
        assert memory.integrity_problems() == []

    try:
        serve(db, body)
    finally:
        other.close()


@pytest.mark.slow
def test_a_review_key_is_kept_even_when_nothing_was_audited(memory_location):
    """A review under a key that finds nothing to audit stores the key (no event), so a
    retry after the memory changed audits nothing; every repeat returns the first review's
    result (rebuilt as of its event), not a fresh re-execution's, even after a restart. A
    dry run takes no key. On SQLite and PostgreSQL."""
    location = memory_location()
    with Memory.create(location) as memory:
        memory.add_evidence("e1")
        memory.add_evidence("calc", expression="6*7", value="41")
        memory.add_claim("c1", [["calc"]])
        withdrawn = memory.audit(["calc"], reason="known wrong").audit_id
    first: dict[str, Any] = {}

    async def before(client: Client, memory: Memory) -> None:
        events = memory.last_event
        first["none"] = await call(client, "review", idempotency_key="K")
        assert first["none"]["audit_id"] is None and first["none"]["checked"] == 0
        assert memory.last_event == events and memory.idempotency_key("K") is not None
        await call(client, "reinstate", audit_id=withdrawn)  # the wrong calc counts again
        events = memory.last_event
        assert await call(client, "review", idempotency_key="K") == first["none"]
        assert memory.last_event == events and memory.is_active("calc")
        first["audit"] = await call(client, "review", idempotency_key="K2")
        assert first["audit"]["audit_id"] == events + 1 and first["audit"]["checked"] == 1
        assert [d["id"] for d in first["audit"]["discrepancies"]] == ["calc"]
        await call(client, "add_evidence", id="calc2", expression="1+1", value="3")
        events = memory.last_event
        assert await call(client, "review", idempotency_key="K2") == first["audit"]
        for tool, arguments in (
            ("audit", {"invalidate": ["e1"], "reason": "r", "dry_run": True}),
            ("review", {"dry_run": True}),
        ):
            message = await error(client, tool, **arguments, idempotency_key="K3")
            assert "idempotency_key: a dry run writes nothing" in message, tool
        await call(client, "add_evidence", id="n1", idempotency_key="E")
        assert "already used by another call" in await error(client, "review", idempotency_key="E")
        assert memory.last_event == events + 1 and memory.idempotency_key("K3") is None

    serve(location, before)

    async def after(client: Client, memory: Memory) -> None:  # a new server, a new connection
        events = memory.last_event
        assert await call(client, "review", idempotency_key="K") == first["none"]
        assert await call(client, "review", idempotency_key="K2") == first["audit"]
        assert memory.last_event == events and memory.is_active("calc2")

    serve(location, after)
    with Memory.open(location) as memory:
        events = memory.last_event
        stored = memory.idempotency_key("K")
        assert stored is not None
        with pytest.raises(RepeatedCall) as repeated:
            memory.keep_key("K", stored[1], 1)
        assert repeated.value.event == stored[0] and repeated.value.request == stored[1]
        with pytest.raises(InputError, match="already used by another call"):
            memory.keep_key("K", "another call", 1)
        with pytest.raises(InputError, match="no event"):
            memory.keep_key("K4", "a call", events + 1)
        memory.keep_key("K4", "a call", 2)
        assert memory.idempotency_key("K4") == (2, "a call") and memory.last_event == events


# --- 4. long reads beside the writers' lock -------------------------------------------------------
@pytest.mark.slow
def test_long_reads_do_not_hold_the_writers_lock(tmp_path, monkeypatch):
    db = fan(tmp_path / "m.db", 5)
    started, release = threading.Event(), threading.Event()
    real = payloads.check_payload

    def slow_check(*args: Any, **kwargs: Any) -> Any:
        started.set()
        assert release.wait(30), "the check was never released"
        return real(*args, **kwargs)

    monkeypatch.setattr(payloads, "check_payload", slow_check)

    async def body(client: Client, memory: Memory) -> None:
        results: dict[str, Any] = {}

        async def long_check() -> None:
            results["check"] = await call(client, "check")

        async with anyio.create_task_group() as group:
            group.start_soon(long_check)
            with anyio.fail_after(10):
                while not started.is_set():
                    await anyio.sleep(0.01)
                t = time.perf_counter()
                assert (await call(client, "state", ids=["e1"]))["active"] == ["e1"]
                added = await call(client, "add_evidence", id="meanwhile")
                results["beside"] = time.perf_counter() - t
            release.set()
        assert added["active"] is True and results["beside"] < 5
        assert results["check"]["counts"]["claims"] == 5

    serve(db, body)


def without_seconds(payload: Any) -> Any:
    return {k: v for k, v in payload.items() if k != "seconds"}


@pytest.mark.slow
def test_long_reads_in_a_worker_process_read_and_page_as_in_process(memory_location):
    """The long reads run in a worker process (``MemoryAccess(worker=location)``, what
    `jtms serve` does) give the results, pages and cursors of the same reads in process (on
    SQLite and PostgreSQL), each page of a result as of its first page's event; a bad call
    is a one-line error without the server's location and the server keeps serving; a
    worker that dies is replaced, and one that does not answer in time is stopped."""
    location = memory_location()
    with Memory.create(location) as memory:
        memory.import_graph(
            {
                "nodes": [{"id": f"e{k}", "kind": "evidence"} for k in range(20)]
                + [{"id": f"c{k}", "kind": "claim"} for k in range(20)],
                "justifications": [{"claim": f"c{k}", "antecedents": ["e0"]} for k in range(20)]
                + [{"claim": f"c{k}", "antecedents": [f"e{k}"]} for k in range(1, 20)],
            }
        )
        memory.add_evidence("calc", expression="6*7", value="41")
        memory.add_nogood("n1", ["c1", "c2"])
    memory = Memory.open(location)
    here, there = MemoryAccess(memory), MemoryAccess(memory, worker=location)

    async def main() -> None:
        with anyio.fail_after(150):
            async with Client(build_server(here)) as near, Client(build_server(there)) as far:
                firsts = [await call(client, "check", limit=6) for client in (near, far)]
                assert firsts[0] == {**firsts[1], "seconds": firsts[0]["seconds"]}
                await call(near, "add_evidence", id="late")  # the next pages read as before it
                for client in (near, far):
                    page, claims = firsts[0], list(firsts[0]["claims"])
                    while page["cursor"]:
                        page = await call(client, "check", limit=6, cursor=page["cursor"])
                        claims += page["claims"]
                    assert [c["id"] for c in claims] == sorted(f"c{k}" for k in range(20))
                for tool, arguments in (
                    ("diagnose", {"limit": 1}),
                    ("context", {"budget": 300, "query": "c1"}),
                    ("review", {"dry_run": True}),
                ):
                    near_result = await call(near, tool, **arguments)
                    far_result = await call(far, tool, **arguments)
                    assert without_seconds(far_result) == without_seconds(near_result), tool
                    if near_result.get("cursor"):
                        more = [
                            await call(client, tool, **arguments, cursor=near_result["cursor"])
                            for client in (near, far)
                        ]
                        assert more[0] == more[1], tool
                resource = [
                    await client.read_resource("memory://context") for client in (near, far)
                ]
                assert resource[0] == resource[1]
                message = await error(far, "check", cursor="jc1.bm9wZQ")
                assert "not a cursor" in message and location not in message
                assert "m0.db" not in message and "memory=" not in message
                assert (await call(far, "state", ids=["e1"]))["active"] == ["e1"]
                worker = there._worker
                assert worker is not None and worker._process is not None
                worker._process.kill()  # the worker dies: the next read starts another
                worker._process.wait()
                again = await call(far, "check", limit=6)
                assert without_seconds(again)["counts"] == firsts[0]["counts"]
                # a worker that hangs (stopped by a signal, so it cannot answer however
                # the threads are scheduled) is stopped after limit_s and replaced
                assert worker._process is not None
                os.kill(worker._process.pid, signal.SIGSTOP)
                worker.limit_s = 0.5
                message = await error(far, "check", limit=6)
                assert "stopped after 0.5 s without an answer" in message
                assert (await call(far, "state", ids=["e1"]))["active"] == ["e1"]
                worker.limit_s = 120.0
                assert (await call(far, "check", limit=6))["counts"] == firsts[0]["counts"]

    try:
        anyio.run(main)
    finally:
        there.close()
        here.close()
        memory.close()


def test_the_transport_limit_is_a_json_rpc_error_naming_it(tmp_path):
    from starlette.testclient import TestClient

    from jtms.serve.http import build_app

    db = fan(tmp_path / "m.db", 2)
    memory = Memory.open(db)
    try:
        app = build_app(build_server(MemoryAccess(memory)), "127.0.0.1", None)
        body = {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "add_evidence", "arguments": {"id": "x", "text": "t" * (5 << 20)}},
        }
        with TestClient(app, base_url="http://127.0.0.1:8000") as http:
            response = http.post(
                "/mcp",
                content=json.dumps(body),
                headers={
                    "Content-Type": "application/json",
                    "Accept": "application/json, text/event-stream",
                },
            )
        assert response.status_code == 413
        refusal = response.json()
        assert refusal["jsonrpc"] == "2.0" and refusal["error"]["code"] == -32600
        assert "limit of 4194304 bytes" in refusal["error"]["message"]
        assert "x" not in memory
    finally:
        memory.close()
