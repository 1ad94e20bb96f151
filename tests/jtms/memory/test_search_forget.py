"""Issue 58, items 1 and 2: ranked full-text search and forgetting (purge, drop), on both
backends (the ``memory_location`` fixture: SQLite, and PostgreSQL with JTMS_TEST_POSTGRES)."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from serve_helpers import jtms

from jtms.memory.memory import Memory
from jtms.serve.tools import MemoryAccess, build_server
from theory.model.errors import InputError

SECRET = "xq7zz-Ada-Lovelace-record"  # the erased text: in no byte of the memory afterwards
SOURCE = "Dr Quintus Varga"


def malaria(db: str) -> Memory:
    """A small memory about malaria vaccines: two evidence, claims with one and two supports."""
    memory = Memory.create(db)
    memory.add_evidence("trial_7", text="Malaria vaccines cut deaths in the 2024 trial")
    memory.add_evidence("survey_2", text="Bed nets reduce malaria cases")
    memory.add_evidence("patient_9", text=f"patient note {SECRET}", author=SOURCE)
    memory.add_claim("c_vaccine", [["trial_7"]], text="The vaccine works against malaria")
    memory.add_claim("c_nets", [["survey_2"]], text="Nets work")
    memory.add_claim("c_both", [["trial_7"], ["survey_2"]], text="Malaria can be reduced")
    memory.add_claim("c_patient", [["patient_9"]], text="this patient responded to the vaccine")
    memory.add_claim("c_mixed", [["patient_9", "survey_2"], ["trial_7"]], text="mixed support")
    return memory


def ids(page: Any) -> list[str]:
    return [hit.id for hit in page.hits]


def test_search_stems_prefixes_ranks_and_reports_certificates(memory_location):
    with malaria(memory_location()) as memory:
        # "vaccine" finds "vaccines" (stemming) and a prefix finds whole words
        assert "trial_7" in ids(memory.search("vaccine"))
        assert "trial_7" in ids(memory.search("vacc"))
        assert set(ids(memory.search("malaria vaccine"))) == {"trial_7", "c_vaccine"}
        # ids are searched too, split at underscores
        assert ids(memory.search("survey")) == ["survey_2"]
        hits = {hit.id: hit for hit in memory.search("malaria vaccine").hits}
        assert hits["c_vaccine"].certificate == memory.explain("c_vaccine").certificate
        assert hits["trial_7"].certificate is None  # evidence: no certificate
        assert {hit.active for hit in hits.values()} == {True}


def test_search_is_active_only_unless_asked_and_pages_as_of_the_first_event(memory_location):
    with malaria(memory_location()) as memory:
        memory.audit(["trial_7"], reason="retracted")
        assert "c_vaccine" not in ids(memory.search("vaccine"))
        every = {hit.id: hit for hit in memory.search("vaccine", active_only=False).hits}
        assert not every["c_vaccine"].active and every["c_vaccine"].certificate is None
        assert every["c_vaccine"].as_dict()["status"] == "inactive"
        first = memory.search("malaria", active_only=False, limit=2)
        assert first.count == 4 and len(first.hits) == 2 and first.cursor
        memory.add_evidence("late", text="malaria malaria malaria")  # after the first page
        rest = []
        cursor = first.cursor
        while cursor:
            page = memory.search("malaria", active_only=False, limit=2, cursor=cursor)
            assert page.event == first.event and page.count == 4
            rest += ids(page)
            cursor = page.cursor
        assert "late" not in ids(first) + rest
        assert len(set(ids(first) + rest)) == 4
        assert "late" in ids(memory.search("malaria"))
        with pytest.raises(InputError, match="other arguments"):
            memory.search("malaria", limit=2, cursor=first.cursor)  # active_only differs
        with pytest.raises(InputError, match="at least one word"):
            memory.search(" ?! ")


def test_the_index_is_written_in_the_writes_transaction(memory_location):
    with malaria(memory_location()) as memory:

        def fail(point: str) -> None:
            if point == "commit":
                raise RuntimeError("crash before commit")

        memory.test_hook = fail
        with pytest.raises(RuntimeError):
            memory.add_evidence("ghost", text="phantom vaccine")
        memory.test_hook = None
        assert "ghost" not in ids(memory.search("phantom", active_only=False))
        memory.add_evidence("ghost", text="phantom vaccine")
        assert ids(memory.search("phantom")) == ["ghost"]


def test_context_ranks_by_the_search(memory_location):
    with malaria(memory_location()) as memory:
        context = memory.context(400, query="vaccine")
        first = [claim.id for claim in context.claims][:2]
        assert set(first) == {"c_vaccine", "c_patient"}  # the two claims the search finds


def test_an_older_sqlite_memory_gets_its_index_on_open(tmp_path: Path):
    db = str(tmp_path / "old.db")
    malaria(db).close()
    connection = sqlite3.connect(db)  # as a release before the index left it
    with connection:
        connection.execute("DROP TABLE node_search")
        connection.execute("DROP TRIGGER node_search_insert")
        connection.execute("DROP TABLE erasures")
    connection.close()
    with Memory.open(db) as memory:
        assert set(ids(memory.search("malaria vaccine"))) == {"trial_7", "c_vaccine"}
        memory.purge("patient_9", reason="erasure request")
        assert memory.node("patient_9")["text"] == ""


def test_purge_erases_content_and_retires_exactly_as_an_audit(memory_location):
    with malaria(memory_location()) as memory:
        expected = memory.preview(["patient_9"]).retired
        assert memory.node("patient_9")["author"] == SOURCE
        result = memory.purge("patient_9", reason="erasure request #42", reviewer="dpo")
        assert result.audit.retired == expected == {"patient_9", "c_patient"}
        assert memory.is_active("c_mixed")  # kept by its other justification
        record = memory.node("patient_9")
        assert (record["text"], record["author"], record["expression"], record["value"]) == (
            "",
            None,
            None,
            None,
        )
        event = result.audit.audit_id
        assert memory.erasures() == {"patient_9": event}
        (audit,) = [e for e in memory.events() if e["id"] == event]
        assert (audit["kind"], audit["actor"], audit["reason"]) == (
            "audit",
            "dpo",
            "erasure request #42",
        )
        assert all(e["actor"] != SOURCE for e in memory.events())  # the creating event's too
        assert memory.explain("patient_9").erased_by == event
        assert memory.explain("patient_9", as_of=event - 1).erased_by is None
        assert memory.search(SECRET, active_only=False).hits == ()
        assert memory.search("note", active_only=False).hits == ()  # a word of its text
        assert "patient_9" in ids(memory.search("patient", active_only=False))  # its id stays
        assert ids(memory.search("patient_9", active_only=False)) == ["patient_9"]
        assert memory.search("patient_9", active_only=False).hits[0].erased_by == event
        withdrawn = memory.context(500).withdrawn
        assert any(item["id"] == "patient_9" and item["erased"] for item in withdrawn)
        with pytest.raises(InputError, match="is a purge"):
            memory.reinstate(event)
        with pytest.raises(InputError, match="already purged"):
            memory.purge("patient_9", reason="again")
        with pytest.raises(InputError, match="unknown id"):
            memory.purge("nobody", reason="x")


def test_nothing_else_may_rewrite_a_node(memory_location, tmp_path):
    db = memory_location()
    malaria(db).close()
    if db.startswith("postgresql"):
        import psycopg

        from jtms.store.postgres.location import parse_location

        place = parse_location(db)
        with psycopg.connect(place.conninfo) as connection:
            with pytest.raises(psycopg.Error, match="immutable"):
                connection.execute(
                    f"UPDATE \"{place.schema}\".nodes SET text = '', author = NULL WHERE num = 2"
                )
    else:
        connection = sqlite3.connect(db)
        with pytest.raises(sqlite3.DatabaseError, match="immutable"):
            connection.execute("UPDATE nodes SET text = '', author = NULL WHERE num = 2")
        with pytest.raises(sqlite3.DatabaseError, match="immutable"):
            connection.execute("UPDATE events SET actor = NULL WHERE id = 4")
        connection.close()


def sqlite_bytes(db: str) -> bytes:
    return b"".join(
        Path(db + suffix).read_bytes()
        for suffix in ("", "-wal", "-shm", "-journal")
        if Path(db + suffix).exists()
    )


def postgres_bytes(db: str) -> bytes:
    """Every relation file of the memory's schema (tables, indexes, TOAST), read by the
    server after a CHECKPOINT wrote its buffers out (pg_read_binary_file: superuser)."""
    import psycopg

    from jtms.store.postgres.location import parse_location

    place = parse_location(db)
    found = []
    with psycopg.connect(place.conninfo, autocommit=True) as connection:
        connection.execute("CHECKPOINT")
        relations = connection.execute(
            "SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s UNION SELECT c.reltoastrelid FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s "
            "AND c.reltoastrelid <> 0 UNION SELECT i.indexrelid FROM pg_index i "
            "JOIN pg_class c ON c.oid = i.indrelid WHERE c.oid IN (SELECT reltoastrelid "
            "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s)",
            (place.schema, place.schema, place.schema),
        ).fetchall()
        for (oid,) in relations:
            (path,) = connection.execute("SELECT pg_relation_filepath(%s)", (oid,)).fetchone()
            if path is None:
                continue
            (size,) = connection.execute("SELECT pg_relation_size(%s)", (oid,)).fetchone()
            if size:
                (data,) = connection.execute("SELECT pg_read_binary_file(%s)", (path,)).fetchone()
                found.append(bytes(data))
    return b"".join(found)


def test_no_byte_of_the_memory_keeps_the_erased_content(memory_location):
    db = memory_location()
    memory = malaria(db)
    for k in range(300):  # several pages of other rows around the erased one
        memory.add_evidence(f"filler_{k}", text=f"filler evidence {k} about bed nets")
    read = postgres_bytes if db.startswith("postgresql") else sqlite_bytes
    before = read(db)  # SQLite: the file and its WAL while the memory is open (a server's)
    assert SECRET.encode() in before and SOURCE.encode() in before  # the scan sees them
    assert memory.purge("patient_9", reason="erasure request").scrubbed
    after = read(db)
    memory.close()
    assert len(after) > 10_000
    for erased in (SECRET, SOURCE, "xq7zz", "Lovelace", "Varga"):
        assert erased.encode() not in after, erased


def test_mcp_search_and_purge(tmp_path: Path):
    db = str(tmp_path / "m.db")
    malaria(db).close()
    memory = Memory.open(db)
    server = build_server(MemoryAccess(memory))

    async def main() -> None:
        async with Client(server) as client:
            found = await client.call_tool("search", {"query": "vaccine", "limit": 1})
            payload = found.structured_content
            assert payload["counts"]["hits"] == 3 and len(payload["hits"]) == 1
            assert payload["hits"][0]["status"] == "active" and payload["cursor"]
            following = await client.call_tool(
                "search", {"query": "vaccine", "limit": 1, "cursor": payload["cursor"]}
            )
            assert following.structured_content["hits"][0]["id"] != payload["hits"][0]["id"]
            purged = await client.call_tool(
                "purge", {"id": "patient_9", "reason": "erasure request"}
            )
            result = purged.structured_content
            assert result["purged"] == "patient_9" and result["retired"] == [
                "c_patient",
                "patient_9",
            ]
            explained = await client.call_tool("explain", {"id": "patient_9"})
            assert explained.structured_content["erased_by"] == result["audit_id"]

    try:
        anyio.run(main)
    finally:
        memory.close()


def test_cli_search_purge_and_drop(tmp_path: Path):
    db = str(tmp_path / "m.db")
    malaria(db).close()
    found = json.loads(jtms("search", "malaria vaccine", "--db", db, "--json").stdout)
    assert set(found) == {"query", "active_only", "hits", "counts", "event", "cursor"}
    assert {hit["id"] for hit in found["hits"]} == {"trial_7", "c_vaccine"}
    purged = json.loads(
        jtms("purge", "patient_9", "--reason", "erasure", "--db", db, "--json").stdout
    )
    assert purged["purged"] == "patient_9" and purged["scrubbed"] is True
    history = json.loads(jtms("history", "patient_9", "--db", db, "--json").stdout)
    assert history["erased_by"] == purged["audit_id"]
    refused = jtms("drop", "--db", db, check=False)  # no terminal: refused, nothing removed
    assert refused.returncode == 2 and "--yes" in refused.stderr and Path(db).exists()
    stranger = tmp_path / "notes.txt"
    stranger.write_text("not a memory")
    refused = jtms("drop", "--db", str(stranger), "--yes", check=False)
    assert refused.returncode == 2 and stranger.exists()
    dropped = json.loads(jtms("drop", "--db", db, "--yes", "--json").stdout)
    assert dropped["dropped"] and not Path(db).exists()
    assert not Path(db + "-wal").exists()


def test_drop_removes_a_postgres_memory(memory_location: Callable[[], str]):
    db = memory_location()
    if not db.startswith("postgresql"):
        pytest.skip("the SQLite drop is tested with the CLI above")
    malaria(db).close()
    assert json.loads(jtms("drop", "--db", db, "--yes", "--json").stdout)["dropped"]
    with pytest.raises(InputError, match="no memory"):
        Memory.open(db)


def test_the_explorer_says_the_content_was_erased(tmp_path: Path):
    from tests.test_explorer import explorer, get

    db = str(tmp_path / "m.db")
    malaria(db).close()
    with Memory.open(db) as memory:
        event = memory.purge("patient_9", reason="erasure request").audit.audit_id
    with explorer(db) as base:
        status, body = get(base + "/node?id=patient_9")
        assert status == 200 and f"content erased (purge: audit {event})" in body
        assert SECRET not in body


PAST = "2020-01-01T00:00:00Z"


@pytest.mark.slow  # waits for a valid_until to pass
def test_expired_evidence_is_audited_at_the_first_read_or_write(memory_location):
    db = memory_location()
    soon = datetime.now(timezone.utc) + timedelta(seconds=1.5)
    with Memory.create(db) as memory:
        memory.add_evidence("price", text="old price list", valid_until=soon)
        memory.add_evidence("quote", valid_until="2999-01-01T00:00:00+01:00")
        memory.add_evidence("catalog")
        memory.add_claim("cheap", [["price"]])
        memory.add_claim("offer", [["price"], ["catalog"]])
        before = memory.last_event  # not due yet: nothing recorded
        assert memory.is_active("cheap")
    time.sleep(max(0.0, (soon - datetime.now(timezone.utc)).total_seconds()) + 0.1)
    with Memory.open(db) as memory:  # another process: its first read records the expiry
        assert not memory.is_active("cheap") and memory.is_active("offer")
        assert not memory.is_active("price") and memory.is_active("quote")
        expiry = memory.events()[-1]
        assert expiry["id"] == before + 1
        assert (expiry["kind"], expiry["reason"], expiry["actor"]) == (
            "audit",
            "expired",
            "jtms-expiry",
        )
        assert expiry["roots"] == ["price"] and expiry["deactivated"] == ["cheap", "price"]
        assert memory.as_of(before).is_active("cheap")  # before it was recorded
        assert memory.last_event == before + 1  # recorded once
        assert memory.explain("cheap").kept_out_by == (before + 1,)


def test_a_write_records_the_expiry_first(memory_location):
    with Memory.create(memory_location()) as memory:
        memory.add_evidence("price", valid_until=PAST)
        memory.add_claim("cheap", [["price"]])  # its write records the expiry, then adds
        events = memory.events()
        assert [e["kind"] for e in events[-2:]] == ["audit", "add-claim"]
        assert not memory.is_active("cheap")
        graph = {
            "nodes": [
                {"id": "old", "kind": "evidence", "valid_until": PAST},
                {"id": "c", "kind": "claim"},
            ],
            "justifications": [{"claim": "c", "antecedents": ["old"]}],
        }
        memory.import_graph(graph)
        assert not memory.is_active("c") and memory.events()[-1]["roots"] == ["old"]
        with pytest.raises(InputError, match="valid_until"):
            memory.add_evidence("bad", valid_until="next tuesday")
        with pytest.raises(InputError, match="only evidence expires"):
            memory.import_graph(
                {"nodes": [{"id": "x", "kind": "claim", "valid_until": PAST}], "justifications": []}
            )


def test_a_view_of_the_past_counts_expired_evidence_as_audited(tmp_path: Path):
    """An event written after the evidence's valid_until but before its expiry was recorded
    (here: by a writer that does not record expiries, a row planted as an older jtms would
    leave it) reads with the evidence audited."""
    db = str(tmp_path / "m.db")
    with Memory.create(db) as memory:
        memory.add_evidence("price", valid_until="2999-01-01T00:00:00Z")
        memory.add_claim("cheap", [["price"]])
        last = memory.last_event
    connection = sqlite3.connect(db)
    with connection:  # the expiry moved to the past, as if that time had come
        connection.execute("DROP TRIGGER expiries_no_update")
        connection.execute("UPDATE expiries SET until = '2020-01-01T00:00:00.000+00:00'")
    connection.close()
    with Memory.open(db) as memory:
        assert not memory.as_of(last).is_active("cheap")  # the view respects it
        assert not memory.is_active("cheap")  # and the live read recorded it


def test_export_shows_erasures_and_expiries_and_imports_them(memory_location, tmp_path: Path):
    import io

    from jtms.memory.jsonl import export_memory, import_memory

    db = memory_location()
    with malaria(db) as memory:
        memory.add_evidence("quote", valid_until="2999-01-01T00:00:00Z")
        event = memory.purge("patient_9", reason="erasure request").audit.audit_id
    out = io.StringIO()
    export_memory(db, out)
    text = out.getvalue()
    assert SECRET not in text and SOURCE not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[0]["tables"][-2:] == ["expiries", "erasures"]
    assert {"table": "erasures", "row": {"node": 2, "event": event}} in lines
    target = str(tmp_path / "copy.jsonl")
    Path(target).write_text(text)
    copy = memory_location()
    import_memory(target, copy)
    with Memory.open(copy) as imported:
        assert imported.erasures() == {"patient_9": event}
        assert imported.explain("patient_9").erased_by == event
        assert not imported.is_active("c_patient")
    plain = memory_location()
    Memory.create(plain).close()
    out = io.StringIO()
    export_memory(plain, out)  # no purge, no expiry: the file of before
    assert "expiries" not in out.getvalue() and "erasures" not in out.getvalue()
