"""`jtms serve` over stdio, driven by the MCP SDK's own client (a real `jtms serve` process):
the tool contract of DESIGN.md section 4, results equal to the CLI's `--json`, tool errors that
keep the server serving, writes by another process, and resource change notifications."""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from jtms.reconsolidation import Memory
from jtms.serve.tools import MemoryAccess, build_server
from tests.serve_helpers import call, env, error, jtms, jtms_json, new_memory

pytestmark = pytest.mark.timeout(180)

TOOLS = {
    "add_evidence": {"id", "text", "source", "expression", "value"},
    "add_claim": {"id", "justifications", "text"},
    "add_justification": {"claim", "antecedents"},
    "audit": {"invalidate", "reason", "reviewer", "dry_run"},
    "reinstate": {"audit_id"},
    "state": {"ids"},
    "explain": {"id", "as_of"},
    "history": {"id"},
    "context": {"budget", "query"},
    "check": set(),
    "review": {"dry_run"},
    "add_nogood": {"id", "nodes"},
    "diagnose": set(),
}
READING = {"state", "explain", "history", "context", "check", "diagnose"}


def stdio(db: str, *extra: str) -> Client:
    return Client(StdioServerParameters(command=sys.executable,
                                        args=["-m", "jtms", "serve", "--db", db, *extra],
                                        env=env()))


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
                assert {n: set(t.input_schema.get("properties", {})) for n, t in listed.items()} == TOOLS
                assert all(t.output_schema and t.description for t in listed.values())

                await call(client, "add_evidence", id="assay", text="assay A shows X", source="lab")
                await call(client, "add_evidence", id="paper", text="paper says X")
                await call(client, "add_evidence", id="calc", expression="6*7", value="42")
                added = await call(client, "add_claim", id="x", justifications=[["assay"], ["paper"]],
                                   text="X holds")
                assert added["active"] is True and added["id"] == "x"
                await call(client, "add_claim", id="plan", justifications=[["x", "assay"]])
                premise = await call(client, "add_claim", id="axiom", justifications=[[]])
                assert premise["active"] is True

                preview = await call(client, "audit", invalidate=["assay"], reason="contaminated",
                                     dry_run=True)
                assert preview["audit_id"] is None and preview["dry_run"] is True
                cli_preview = jtms_json("audit", "--db", db, "--invalidate", "assay",
                                        "--reason", "contaminated", "--dry-run")
                assert without_seconds(preview) == without_seconds(cli_preview)

                audited = await call(client, "audit", invalidate=["assay"], reason="contaminated",
                                     reviewer="ana")
                assert audited["retired"] == ["assay", "plan"]
                assert audited["kept"] == [{"id": "x", "surviving_justification": ["paper"]}]
                assert isinstance(audited["audit_id"], int)

                state = await call(client, "state")
                assert state == {"active": ["axiom", "calc", "paper", "x"],
                                 "inactive": ["assay", "plan"]}
                assert await call(client, "state", ids=["plan", "x"]) == {"active": ["x"],
                                                                          "inactive": ["plan"]}
                for node in ("x", "plan", "assay"):
                    assert await call(client, "explain", id=node) == jtms_json("explain", node,
                                                                               "--db", db)
                assert await call(client, "history", id="assay") == jtms_json("history", "assay",
                                                                              "--db", db)
                context = await call(client, "context", budget=200)
                assert context == jtms_json("context", "--db", db, "--budget", "200")
                assert "assay" in context["text"] and context["withdrawn"]

                checked = await call(client, "check")
                cli_check = json.loads(jtms("check", "--db", db, "--json", check=False).stdout)
                assert without_seconds(checked) == without_seconds(cli_check)
                assert await call(client, "review", dry_run=True) == jtms_json(
                    "review", "--db", db, "--dry-run")

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
                assert added == {"event_id": added["event_id"], "id": "n1",
                                 "nodes": ["effective", "inert"], "active": True}
                assert "unknown id" in await error(client, "add_nogood", id="n2", nodes=["ghost"])
                assert await call(client, "state", ids=["n1", "inert"]) == {
                    "active": ["inert", "n1"], "inactive": []}
                report = await call(client, "diagnose")
                cli = json.loads(jtms("diagnose", "--db", db, "--json", check=False).stdout)
                assert report == cli
                assert [d["invalidate"] for d in report["diagnoses"]][0] == ["assay"]
                preview = await call(client, "audit", invalidate=["trial"], reason="r", dry_run=True)
                # the kept claim's surviving justification is one the previewed audit leaves intact
                assert preview["kept"] == [{"id": "effective", "surviving_justification": ["anecdote"]}]

    anyio.run(main)


def test_bad_calls_are_tool_errors_and_the_server_keeps_serving(tmp_path):
    db = new_memory(tmp_path / "m.db")

    async def main() -> None:
        with anyio.fail_after(120):
            async with stdio(db) as client:
                await call(client, "add_evidence", id="e1")
                assert "unknown audit id" in await error(client, "audit", invalidate=["nope"],
                                                         reason="r")
                assert "unknown id" in await error(client, "explain", id="nope")
                assert "invalidate" in await error(client, "audit", reason="r")  # missing
                assert "budget" in await error(client, "context", budget="lots")  # wrong type
                assert "invalidate" in await error(client, "audit", invalidate=["e1"] * 10_001,
                                                   reason="r")  # oversized
                assert "duplicate id" in await error(client, "add_evidence", id="e1")
                assert "no such audit" in await error(client, "reinstate", audit_id=999)
                assert "unknown antecedent" in await error(client, "add_claim", id="c",
                                                           justifications=[["ghost"]])
                assert "needs a reason" in await error(client, "audit", invalidate=["e1"],
                                                       reason=" ")
                # nothing was changed by the bad calls, and the next good call works
                assert await call(client, "state") == {"active": ["e1"], "inactive": []}
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
                assert await call(client, "state") == {"active": ["c", "e2"], "inactive": ["e1"]}
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
                assert node["broken_justifications"] == [{"antecedents": ["e1"], "inactive": ["e1"]}]
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
