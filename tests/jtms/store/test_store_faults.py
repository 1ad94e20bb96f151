"""Every database fault is exit 2, one line on stderr, and nothing changed (the file's bytes
are compared before and after each command)."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from jtms.cli import main
from jtms.memory.memory import Memory
from jtms.store.protocol import CorruptMemory
from theory.model.errors import InputError
from theory.model.ids import id_problem

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
WRITES = [
    ["add-evidence", "e9"],
    ["audit", "--invalidate", "e1", "--reason", "r"],
    ["add-claim", "c9", "--because", "e1"],
    ["reinstate", "2"],
]
READS = [
    ["history", "e1"],
    ["explain", "e1"],
    ["context", "--budget", "50"],
    ["audit", "--invalidate", "e1", "--reason", "r", "--dry-run"],
]


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "memory.db"
    with Memory.create(path) as memory:
        memory.add_evidence("e1")
        memory.add_claim("c1", [["e1"]])
    return path


def _bytes(path: Path) -> bytes | None:
    if path.is_dir():
        return repr(sorted(p.name for p in path.iterdir())).encode()
    return path.read_bytes() if path.exists() else None


def _fails(capsys, argv: list[str], db: Path, message: str) -> str:
    """Run ``argv`` on ``db``: exit 2, one line naming ``message``, the file's bytes unchanged."""
    before = _bytes(db)
    capsys.readouterr()
    assert main(argv + ["--db", str(db)]) == 2, argv
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    assert _bytes(db) == before, f"{argv} changed {db}"
    return err


@contextlib.contextmanager
def _read_only(path: Path) -> Iterator[None]:
    """``path`` (a file or a folder) not writable, also for root (the immutable attribute)."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(mode & 0o555)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("running as root without chattr: cannot make a file read-only")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


@pytest.mark.parametrize("which", ["file", "folder"])
def test_read_only_file_or_folder(db, capsys, which):
    with _read_only(db if which == "file" else db.parent):
        for argv in WRITES:
            _fails(capsys, argv, db, "read-only memory")
        before = db.read_bytes()
        for argv in READS:  # reads still work
            assert main(argv + ["--db", str(db)]) == 0, argv
        assert db.read_bytes() == before
    if which == "folder":
        with _read_only(db.parent):
            _fails(capsys, ["init"], db.parent / "new.db", "cannot create the memory")


def test_corrupt_file(db, capsys):
    data = bytearray(db.read_bytes())
    assert len(data) > 8192
    data[100 : len(data)] = b"\xa5" * (len(data) - 100)  # the header survives, the pages do not
    db.write_bytes(bytes(data))
    for argv in WRITES[:2] + READS[:2]:
        _fails(capsys, argv, db, "")
    err = _fails(capsys, ["history", "e1"], db, "memory")
    assert "corrupt" in err or "not a jtms memory" in err


def test_not_sqlite_at_all(tmp_path, capsys):
    path = tmp_path / "notes.db"
    path.write_text("this is not sqlite" * 100)
    for argv in WRITES + READS:
        _fails(capsys, argv, path, "not a jtms memory (not an SQLite database)")
    _fails(capsys, ["init"], path, "already exists")


@pytest.mark.parametrize("journal", ["delete", "wal"])
def test_foreign_sqlite_file_is_refused_before_any_write(tmp_path, capsys, journal):
    path = tmp_path / "other.sqlite"
    connection = sqlite3.connect(path)
    connection.execute(f"PRAGMA journal_mode = {journal}")
    connection.execute("CREATE TABLE t (x)")
    connection.execute("INSERT INTO t VALUES (1)")
    connection.commit()
    connection.close()
    header = path.read_bytes()[18:20]  # the file format bytes: 1 1 rollback journal, 2 2 WAL
    for argv in WRITES + READS + [["import", str(tmp_path / "g.json")]]:
        _fails(capsys, argv, path, "not a jtms memory")
    assert path.read_bytes()[18:20] == header
    _fails(capsys, ["init"], path, "already exists")
    # an SQLite file with a meta table of another application
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE meta (key TEXT, value TEXT)")
    connection.execute("INSERT INTO meta VALUES ('application', 'someone-else')")
    connection.commit()
    connection.close()
    _fails(capsys, ["history", "e1"], path, "another application")


def test_empty_file(tmp_path, capsys):
    path = tmp_path / "empty.db"
    path.write_bytes(b"")
    for argv in WRITES + READS:
        _fails(capsys, argv, path, "empty file, not a jtms memory")
    assert path.stat().st_size == 0
    assert main(["init", "--db", str(path)]) == 0  # an empty file may become a memory
    assert main(["add-evidence", "e1", "--db", str(path)]) == 0


def test_empty_sqlite_database(tmp_path, capsys):
    path = tmp_path / "blank.db"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE t (x)")
    connection.execute("DROP TABLE t")  # a valid SQLite file without tables
    connection.commit()
    connection.close()
    for argv in WRITES + READS:
        _fails(capsys, argv, path, "not a jtms memory")


@pytest.mark.parametrize(
    "version, advice",
    [
        ("1", "jtms upgrade"),
        ("3", "jtms upgrade"),
        ("99", "upgrade jtms-revision"),
        ("two", "restore the memory from a backup"),
        ("\u00b2", "restore the memory from a backup"),  # a digit int() does not read
    ],
)
def test_other_schema_version(db, capsys, version, advice):
    connection = sqlite3.connect(db)
    connection.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (version,))
    connection.commit()
    connection.close()
    for argv in WRITES + READS:
        err = _fails(capsys, argv, db, f"schema version {version}, this jtms reads version 4")
        assert advice in err


@pytest.mark.parametrize(
    "version, shown",
    [("v\x852", "'v\\x852'"), ("1\u20282", "'1\\u20282'"), ("9" * 5000, "9" * 20)],
)
def test_a_schema_version_is_shown_in_one_line(db, capsys, version, shown):
    """A version with a line break (NEL, LINE SEPARATOR) is shown as its repr, a long one cut;
    5000 digits are not read as a number (int() refuses them)."""
    connection = sqlite3.connect(db)
    connection.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (version,))
    connection.commit()
    connection.close()
    err = _fails(capsys, ["history", "e1"], db, f"schema version {shown}, this jtms reads")
    assert "restore the memory from a backup" in err


def test_writer_lock_held_past_the_busy_timeout(db, capsys, monkeypatch):
    monkeypatch.setenv("JTMS_BUSY_TIMEOUT", "0.3")
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        before = db.read_bytes()
        started = time.monotonic()
        for argv in WRITES:
            err = _fails(capsys, argv, db, "locked by another writer: waited 0.")
            assert "busy timeout 0.3 s" in err
        assert time.monotonic() - started >= 4 * 0.3
        for argv in READS:  # readers are not blocked by a writer (WAL)
            assert main(argv + ["--db", str(db)]) == 0
        assert db.read_bytes() == before
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert main(["add-evidence", "e9", "--db", str(db)]) == 0
    monkeypatch.setenv("JTMS_BUSY_TIMEOUT", "soon")
    _fails(capsys, ["history", "e1"], db, "JTMS_BUSY_TIMEOUT must be a number")


def test_two_inits_of_one_path_at_once(tmp_path):
    path = tmp_path / "race.db"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = time.time() + 1.0
    code = (
        "import sys, time; t = float(sys.argv[1]); time.sleep(max(0, t - time.time()));"
        "from jtms.cli import main; raise SystemExit(main(['init', '--db', sys.argv[2]]))"
    )
    children = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(start), str(path)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    results = [(child.wait(timeout=60), child.stderr.read()) for child in children]
    for child in children:
        child.stdout.close()
        child.stderr.close()
    assert sorted(code for code, _ in results) == [0, 2, 2, 2], results
    for code, err in results:
        if code == 2:
            assert "already exists" in err and len(err.strip().splitlines()) == 1, err
    with Memory.open(path) as memory:
        assert memory.integrity_problems() == []
        assert [e["kind"] for e in memory.table("events")] == ["init"]


def test_init_that_loses_the_lock_keeps_the_winners_memory(tmp_path, monkeypatch):
    """The interleaving behind a CI failure of the test above: init A creates the empty
    file; init B finds it empty, takes the write lock first and installs the schema; A then
    finds the schema and says "already exists". A must not remove the file it created: it
    holds B's memory now (A used to unlink it, so B's exit 0 left no memory behind)."""
    from jtms.store import sqlite as backend

    path = tmp_path / "race.db"
    real_connect = backend.SqliteStore._connect
    raced = []

    def connect(location, durability, timeout):
        if not raced:  # A's connection: B runs its whole init first, into A's empty file
            raced.append(True)
            backend.SqliteStore.create(location).close()
        return real_connect(location, durability, timeout)

    monkeypatch.setattr(backend.SqliteStore, "_connect", staticmethod(connect))
    with pytest.raises(InputError, match="already exists"):
        backend.SqliteStore.create(path)
    monkeypatch.undo()
    with Memory.open(path) as memory:
        assert memory.integrity_problems() == []
        assert [e["kind"] for e in memory.table("events")] == ["init"]


def test_missing_folder_or_a_folder(tmp_path, capsys):
    missing = tmp_path / "nowhere" / "memory.db"
    for argv in [["init"]] + WRITES + READS:
        _fails(capsys, argv, missing, "does not exist")
    assert not missing.parent.exists()
    _fails(capsys, ["history", "e1"], tmp_path / "none.db", "no memory here")
    for argv in [["init"], ["history", "e1"]]:
        _fails(capsys, argv, tmp_path, "is a folder")


def test_upgrade_a_version_1_memory(tmp_path, capsys):
    """A memory written by the version-1 code (commit d4c3d07's schema: no supports, no
    checkpoints) is refused with the advice, then `jtms upgrade` makes it usable and exact."""
    from jtms.store import sqlite as backend

    path = tmp_path / "old.db"
    script = [
        s
        for s in backend._split(backend.SCHEMA + backend._triggers())
        if "supports" not in s
        and "checkpoints" not in s
        and "_by_event" not in s
        # nor what came after version 1 and is added on the first writable open
        and not any(t in s for t in ("expiries", "erasures", "node_search"))
    ]
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    for statement in script:
        connection.execute(statement)
    connection.executescript("""
        INSERT INTO meta VALUES ('application', 'jtms-memory'), ('schema_version', '1');
        INSERT INTO events (id, kind, time) VALUES (1, 'init', 't'), (2, 'import', 't');
        INSERT INTO events (id, kind, time, roots) VALUES (3, 'audit', 't', '["e1"]');
        INSERT INTO nodes VALUES (0, 'e1', 'evidence', '', NULL, NULL, NULL, 2, 'active');
        INSERT INTO nodes VALUES (1, 'e2', 'evidence', '', NULL, NULL, NULL, 2, 'active');
        INSERT INTO nodes VALUES (2, 'c1', 'claim', '', NULL, NULL, NULL, 2, 'active');
        INSERT INTO nodes VALUES (3, 'c2', 'claim', '', NULL, NULL, NULL, 2, 'active');
        INSERT INTO justifications VALUES (0, 2, '0', 2), (1, 2, '1', 2), (2, 3, '2', 2);
        INSERT INTO revisions (node, status, event) VALUES (0, 'inactive', 3);
    """)
    connection.close()
    err = _fails(capsys, ["history", "c1"], path, "schema version 1, this jtms reads version 4")
    assert f"run `jtms upgrade --db {path}`" in err
    assert main(["upgrade", "--db", str(path)]) == 0
    assert main(["upgrade", "--db", str(path)]) == 0  # nothing left to do
    with Memory.open(path) as memory:
        assert memory.integrity_problems() == []
        assert memory.active_ids() == {"e2", "c1", "c2"}
        assert memory.explain("c2").evidence == ("e2",)
        assert memory.audit(["e2"], reason="r").retired == {"e2", "c1", "c2"}
        assert memory.integrity_problems() == []


def test_a_new_memory_is_current_and_has_no_per_row_indexes(tmp_path, capsys):
    """A new SQLite memory holds support batches and node_revisions, none of version 3's
    per-row tables and indexes, and `jtms upgrade` has nothing to do."""
    import json

    path = tmp_path / "m.db"
    with Memory.create(path) as memory:
        memory.import_graph(
            {
                "nodes": [{"id": "e1", "kind": "evidence"}, {"id": "c1", "kind": "claim"}],
                "justifications": [{"claim": "c1", "antecedents": ["e1"]}],
            }
        )
    with contextlib.closing(sqlite3.connect(path)) as connection:
        names = {n for (n,) in connection.execute("SELECT name FROM sqlite_master")}
    assert {"support_batches", "node_revisions", "support_batches_by_event"} <= names
    assert not names & {"supports", "supports_by_node", "revisions_by_node", "supports_by_event"}
    assert main(["upgrade", "--db", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["upgraded"] is False
    with Memory.open(path) as memory:
        assert memory.integrity_problems() == []
        memory.audit(["e1"], reason="test")
        assert memory.active_ids() == frozenset()


def _per_node_truth(path: Path) -> tuple[dict, dict, dict]:
    """Each node's revisions, last deactivation and last status, read from the revisions
    table alone (what node_revisions must give)."""
    with contextlib.closing(sqlite3.connect(path)) as connection:
        rows = connection.execute("SELECT seq, node, status, event FROM revisions ORDER BY seq")
        seqs: dict[int, list[int]] = {}
        last_off: dict[int, int] = {}
        last: dict[int, str] = {}
        for seq, node, status, event in rows:
            seqs.setdefault(node, []).append(seq)
            last[node] = status
            if status == "inactive":
                last_off[node] = event
    return seqs, last_off, last


def test_node_revisions_are_written_in_bulk_and_read_with_the_rows_since(tmp_path, monkeypatch):
    """History by node comes from node_revisions (bulk-written every few audits here) plus the
    revisions written since; at every step it equals the revisions table read node by node,
    and integrity checks the two agree."""
    from jtms.store import sqlite as backend

    monkeypatch.setattr(backend, "NODE_REVISIONS_PENDING", 5)
    path = tmp_path / "m.db"
    memory = Memory.create(path)
    nodes = [{"id": f"e{i}", "kind": "evidence"} for i in range(6)]
    nodes += [{"id": f"c{i}", "kind": "claim"} for i in range(6)]
    justifications = [{"claim": f"c{i}", "antecedents": [f"e{i}"]} for i in range(6)]
    justifications += [{"claim": f"c{i}", "antecedents": [f"c{i - 1}"]} for i in range(1, 6)]
    memory.import_graph({"nodes": nodes, "justifications": justifications})
    store = memory._store
    merged = 0
    for step in range(12):
        audit = memory.audit([f"e{step % 6}", f"e{(step * 5) % 6}"], reason=f"step {step}")
        if step % 3:
            memory.reinstate(audit.audit_id)
        seqs, last_off, last = _per_node_truth(path)
        with memory.snapshot():
            for num in range(12):
                assert [r.seq for r in store.history(num)[1:]] == seqs.get(num, []), (step, num)
                assert store.last_deactivation(num) == last_off.get(num)
            status = store.stored_status()
            assert {n: status[n] for n in last} == last
            assert sorted(w.node for w in store.withdrawals()) == sorted(
                memory._loaded_now().index.ids[n] for n, s in last.items() if s == "inactive"
            )
            merged = store._db.execute("SELECT count(*) FROM node_revisions").fetchone()[0]
        assert memory.integrity_problems() == []
    assert merged > 0  # the bulk writes happened
    memory.close()
    with contextlib.closing(sqlite3.connect(path)) as connection:  # an index that lost a row
        connection.execute(
            "DELETE FROM node_revisions WHERE (node, seq) = "
            "(SELECT node, seq FROM node_revisions LIMIT 1)"
        )
        connection.commit()
    with Memory.open(path) as memory:
        assert "node_revisions differs from the revisions it indexes" in memory.integrity_problems()


def test_upgrade_from_version_3_indexes_the_revisions_by_node(tmp_path, capsys, monkeypatch):
    """Version 3 indexed revisions row by row (revisions_by_node). Such a memory is refused
    with the advice; `jtms upgrade` writes node_revisions and drops the index; history is
    the same as before."""
    import json

    from jtms.store import sqlite as backend

    monkeypatch.setattr(backend, "NODE_REVISIONS_PENDING", 3)
    path = tmp_path / "m.db"
    with Memory.create(path) as memory:
        memory.import_graph(
            {
                "nodes": [
                    {"id": "e1", "kind": "evidence"},
                    {"id": "e2", "kind": "evidence"},
                    {"id": "c1", "kind": "claim"},
                ],
                "justifications": [
                    {"claim": "c1", "antecedents": ["e1"]},
                    {"claim": "c1", "antecedents": ["e2"]},
                ],
            }
        )
        for _ in range(3):
            memory.reinstate(memory.audit(["e1", "e2"], reason="r").audit_id)
        memory.audit(["e1"], reason="last")
    assert main(["history", "c1", "--db", str(path), "--json"]) == 0
    before = json.loads(capsys.readouterr().out)
    with Memory.open(path) as memory:
        active = memory.active_ids()
        with memory.snapshot():
            pointers = memory._store.supports(-1, memory._store.last_event())
    assert len({p.event for p in pointers}) > 2
    with contextlib.closing(sqlite3.connect(path)) as connection:  # as version 3 left it
        connection.executescript("""
            DROP TABLE node_revisions;
            DELETE FROM meta WHERE key = 'revisions_indexed';
            CREATE INDEX revisions_by_node ON revisions (node, seq);
            DROP TABLE support_batches;
            CREATE TABLE supports (
                seq           INTEGER PRIMARY KEY,
                node          INTEGER NOT NULL REFERENCES nodes (num),
                justification INTEGER NOT NULL REFERENCES justifications (num),
                rank          INTEGER NOT NULL,
                event         INTEGER NOT NULL REFERENCES events (id)
            );
            CREATE INDEX supports_by_event ON supports (event);
            CREATE INDEX supports_by_node ON supports (node, seq);
            CREATE TRIGGER supports_no_update BEFORE UPDATE ON supports
                BEGIN SELECT RAISE(ABORT, 'supports are immutable (append-only memory)'); END;
            UPDATE meta SET value = '3' WHERE key = 'schema_version';
        """)
        connection.executemany(
            "INSERT INTO supports VALUES (?, ?, ?, ?, ?)",
            [(p.seq, p.node, p.justification, p.rank, p.event) for p in pointers],
        )
        connection.commit()
    err = _fails(capsys, ["history", "c1"], path, "schema version 3, this jtms reads version 4")
    assert f"run `jtms upgrade --db {path}`" in err
    assert main(["upgrade", "--db", str(path)]) == 0
    capsys.readouterr()
    assert main(["history", "c1", "--db", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == before
    with contextlib.closing(sqlite3.connect(path)) as connection:
        names = {n for (n,) in connection.execute("SELECT name FROM sqlite_master")}
    assert {"node_revisions", "support_batches"} <= names
    assert not names & {"revisions_by_node", "supports", "supports_by_node", "supports_no_update"}
    with Memory.open(path) as memory:
        assert memory.integrity_problems() == []
        assert memory.active_ids() == active
        with memory.snapshot():
            assert memory._store.supports(-1, memory._store.last_event()) == pointers
        memory.reinstate(memory.audit(["e2"], reason="after").audit_id)
        assert memory.integrity_problems() == []


def test_integrity_reads_every_support_batch(tmp_path):
    """The support pointers are arrays in one row per write: integrity checks each pointer's
    justification is one of its node's, and that the sequence numbers are dense."""
    from array import array

    path = tmp_path / "m.db"
    with Memory.create(path) as memory:
        memory.import_graph(
            {
                "nodes": [{"id": "e1", "kind": "evidence"}, {"id": "e2", "kind": "evidence"}]
                + [{"id": "c1", "kind": "claim"}, {"id": "c2", "kind": "claim"}],
                "justifications": [
                    {"claim": "c1", "antecedents": ["e1"]},
                    {"claim": "c1", "antecedents": ["e2"]},
                    {"claim": "c2", "antecedents": ["c1"]},
                ],
            }
        )
        memory.audit(["e1"], reason="switches c1")
        assert memory.integrity_problems() == []
    with contextlib.closing(sqlite3.connect(path)) as connection:
        connection.execute("DROP TRIGGER support_batches_no_update")
        (first, data) = connection.execute(
            "SELECT first_seq, justifications FROM support_batches ORDER BY first_seq LIMIT 1"
        ).fetchone()
        wrong = array("q")
        wrong.frombytes(data)
        wrong[0] = 2 if wrong[0] != 2 else 0  # c2's justification for c1, or c1's for c2
        connection.execute(
            "UPDATE support_batches SET justifications = ? WHERE first_seq = ?",
            (wrong.tobytes(), first),
        )
        connection.commit()
    with Memory.open(path) as memory:
        assert any("is not one of node" in p for p in memory.integrity_problems())
    with contextlib.closing(sqlite3.connect(path)) as connection:
        connection.execute(
            "UPDATE support_batches SET justifications = ? WHERE first_seq = ?", (data, first)
        )
        connection.execute(
            "UPDATE support_batches SET first_seq = first_seq + 1 "
            "WHERE first_seq = (SELECT max(first_seq) FROM support_batches)"
        )
        connection.commit()
    with Memory.open(path) as memory:
        assert any("not dense" in p for p in memory.integrity_problems())


# --- rows edited by hand ----------------------------------------------------------------------
#
# A memory whose triggers were dropped and whose rows were then edited: every command says
# "corrupt memory (TABLE row ROW: PROBLEM)" in one line and exits 2, never a traceback, and
# nothing is written.

EDITED_GRAPH = {
    "nodes": [{"id": "e1", "kind": "evidence"}, {"id": "e2", "kind": "evidence"}]
    + [{"id": c, "kind": "claim"} for c in ("c1", "c2", "c3")],
    "justifications": [
        {"claim": "c1", "antecedents": ["e1"]},  # 0: antecedents '0'
        {"claim": "c1", "antecedents": ["e2"]},  # 1: '1'
        {"claim": "c2", "antecedents": ["c1", "e2"]},  # 2: '1 2'
        {"claim": "c3", "antecedents": ["c2"]},  # 3: '3'
    ],
    "nogoods": [{"id": "g1", "nodes": ["c3", "e1"]}],
}


def _edited_memory(path: Path, checkpoint: bool = False) -> None:
    """Events 1 (init) to 6: an import, an audit of e1, its reinstatement, a claim c4 on c1
    and an audit of e2 (nodes 0-5, justifications 0-4, revisions, pointers, a nogood)."""
    with Memory.create(path) as memory:
        memory.import_graph(EDITED_GRAPH)
        memory.reinstate(memory.audit(["e1"], reason="r").audit_id)
        memory.add_claim("c4", [["c1"]])
        memory.audit(["e2"], reason="r")
        if checkpoint:
            memory.checkpoint()


def _edit(path: Path, *statements: str | tuple[str, tuple[Any, ...]]) -> None:
    """Drop the memory's triggers (and let CHECK constraints pass), then run ``statements``
    (each SQL, or SQL and its parameters): what a person editing the file by hand can do."""
    with contextlib.closing(sqlite3.connect(path)) as connection:
        for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger'"
        ).fetchall():
            connection.execute(f"DROP TRIGGER {name}")
        connection.execute("PRAGMA ignore_check_constraints = ON")
        connection.execute("PRAGMA synchronous = OFF")  # a test file: no need to sync it
        for statement in statements:
            sql, parameters = (statement, ()) if isinstance(statement, str) else statement
            connection.execute(sql, parameters)
        connection.commit()


@pytest.mark.parametrize(
    "statement, message",
    [
        (  # the cases of the bug report: an IndexError, a ValueError, a JSONDecodeError, ...
            "UPDATE justifications SET antecedents = '999' WHERE num = 0",
            "justifications row 0: antecedents [999]: 999 is not a node of this memory",
        ),
        (
            "UPDATE justifications SET antecedents = 'x y' WHERE num = 0",
            "justifications row 0: antecedents 'x y' are not space-separated node numbers",
        ),
        (
            "INSERT INTO events (id, kind, time, roots) "
            "VALUES (7, 'audit', '2026-12-05T14:16:11.000+00:00', 'zzz')",
            "events row 7: roots 'zzz' are not a JSON list of node ids",
        ),
        ("UPDATE nodes SET id = x'ff' WHERE id = 'c2'", "nodes row 3: id b'\\xff' is not text"),
        (  # ... a TypeError in sorting the ids, and an AssertionError in `history`
            "UPDATE events SET id = 10 WHERE id = 2",
            "events row 3: no event 2 before it (event ids have no gaps)",
        ),
        (  # more of the schema's invariants
            "UPDATE justifications SET antecedents = '2 1' WHERE num = 2",
            "justifications row 2: antecedents [2, 1] are not sorted without repeats",
        ),
        (
            "UPDATE justifications SET antecedents = '-1' WHERE num = 3",
            "justifications row 3: antecedents [-1]: -1 is not a node of this memory",
        ),
        (
            "UPDATE justifications SET claim = 99 WHERE num = 1",
            "justifications row 1: claim 99 is not a claim of this memory",
        ),
        (
            "UPDATE justifications SET claim = 0 WHERE num = 1",
            "justifications row 1: claim 0 is not a claim of this memory",
        ),
        (
            "UPDATE justifications SET claim = 'c1' WHERE num = 1",
            "justifications row 1: claim 'c1' is not a claim of this memory",
        ),
        (
            "UPDATE nodes SET event = 99 WHERE num = 5",
            "nodes row 5: event 99 is not an event of this memory (1 to 6)",
        ),
        (
            "UPDATE nodes SET num = 9 WHERE num = 5",
            "nodes row 9: the numbers have a gap (there is no 5)",
        ),
        ("UPDATE nodes SET status = 'maybe' WHERE num = 2", "nodes row 2: status 'maybe' is not"),
        (
            "UPDATE nodes SET event = 'x' WHERE num = 2",
            "nodes row 2: event 'x' is not an event of this memory (1 to 6)",
        ),
        (
            "UPDATE justifications SET event = 2.5 WHERE num = 4",
            "justifications row 4: event 2.5 is not an event of this memory (1 to 6)",
        ),
        ("UPDATE revisions SET node = 99 WHERE seq = 1", "revisions row 1: node 99 is not a node"),
        (
            "UPDATE support_batches SET justifications = x'ffffffffffffffff' "
            "WHERE first_seq = (SELECT max(first_seq) FROM support_batches)",
            "justification -1 is not a justification of this memory",
        ),
        (
            "UPDATE support_batches SET nodes = 'abcdefgh' "
            "WHERE first_seq = (SELECT max(first_seq) FROM support_batches)",
            "nodes, justifications and ranks are not 1 64-bit integers each",
        ),
        (
            'UPDATE events SET roots = \'["e1", "nobody"]\' WHERE id = 3',
            "events row 3: root 'nobody' is not a node of this memory",
        ),
        ("UPDATE nogoods SET nodes = '[\"zz\"]'", "nogoods row 'g1': node 'zz' is not a node"),
        ("UPDATE nogoods SET id = 'c1'", "nogoods row 'c1': id 'c1' is a node's"),
    ],
)
def test_a_row_edited_by_hand_is_a_corrupt_memory(tmp_path, capsys, statement, message):
    path = tmp_path / "memory.db"
    _edited_memory(path)
    _edit(path, statement)
    for argv in (["state", "--json"], ["history", "c1"], WRITES[1]):
        err = _fails(capsys, argv, path, message)
        assert "corrupt memory (" in err and err.endswith("; nothing written"), err


def test_a_corrupt_memory_is_one_line_from_the_console_script(tmp_path):
    """The same through ``python -m jtms`` in a process of its own: exit 2, one line."""
    path = tmp_path / "memory.db"
    _edited_memory(path)
    _edit(path, "UPDATE justifications SET antecedents = '999' WHERE num = 0")
    before = path.read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "jtms", "state", "--json", "--db", str(path)],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == "", done
    assert done.stderr.strip().splitlines() == [
        f"jtms: error: {path}: corrupt memory (justifications row 0: antecedents [999]: 999 is "
        "not a node of this memory); nothing written"
    ]
    assert path.read_bytes() == before


@functools.cache
def _edited_templates() -> dict[bool, bytes]:
    """The bytes of the memory of :func:`_edited_memory`, without and with a checkpoint."""
    with tempfile.TemporaryDirectory() as folder:
        made = {}
        for checkpoint in (False, True):
            path = Path(folder) / f"{checkpoint}.db"
            _edited_memory(path, checkpoint)
            made[checkpoint] = path.read_bytes()
    return made


def _rows_of(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the memory (the tables it has)."""
    with contextlib.closing(sqlite3.connect(path)) as connection:
        tables = [
            name
            for (name,) in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        return {t: connection.execute(f"SELECT * FROM {t}").fetchall() for t in tables}


def _columns_of(path: Path, table: str) -> list[str]:
    with contextlib.closing(sqlite3.connect(path)) as connection:
        return [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]


# values of every SQLite type, with many near the ones stored (small numbers, ids, JSON lists
# of ids, lists of numbers), so that edits reach the checks past the parsers
_NEAR_IDS = st.sampled_from(["e1", "e2", "c1", "c2", "c3", "c4", "g1", "zz", ""])
_VALUES = st.one_of(
    st.integers(-3, 12),
    st.integers(-(2**63), 2**63 - 1),
    st.binary(max_size=24),
    _NEAR_IDS,
    st.lists(_NEAR_IDS, max_size=3).map(json.dumps),
    st.lists(st.integers(-2, 9), max_size=3).map(lambda ns: " ".join(map(str, ns))),
    st.sampled_from(
        ["active", "inactive", "audit", "claim", "evidence", "2026-01-01T00:00:00+00:00"]
    ),
    st.none() | st.floats(allow_nan=False) | st.text(max_size=12),
)
# one value of each kind that breaks a column somewhere (the sweep below sets each in turn)
_BAD_VALUES = [None, -1, 99, 2**63 - 1, 1.5, "", "x y", "zz", "[]", '["zz"]', "999", b"\xff"]
_BAD_VALUES += [b"\xff" * 8, "active", "claim"]

# the columns opening a memory reads (its index, state, audits and nogoods)
_LOADED = [
    (table, column)
    for table, columns in {
        "events": "id kind time roots target",
        "nodes": "num id kind event status",
        "justifications": "num claim antecedents event",
        "revisions": "seq node status event",
        "support_batches": "first_seq event count nodes justifications ranks",
        "nogoods": "id nodes event status",
        "checkpoints": "event data",
    }.items()
    for column in columns.split()
]
_TABLES = sorted({t for t, _ in _LOADED}) + [
    "node_revisions",
    "nogood_revisions",
    "idempotency_keys",
    "meta",
]


@settings(max_examples=500, deadline=None)
@given(
    checkpoint=st.sampled_from([False, False, True]),  # a checkpoint covers the rows before it
    where=st.one_of(
        st.sampled_from(_LOADED), st.tuples(st.sampled_from(_TABLES), st.integers(0, 8))
    ),
    pick=st.integers(0, 10**6),
    value=_VALUES,
)
def test_any_one_value_edited_by_hand_opens_or_is_a_corrupt_memory(checkpoint, where, pick, value):
    """One column of one row of a small memory set to any value of any type (triggers
    dropped, CHECK constraints off): opening it and reading its state either works or raises
    CorruptMemory (exit 2 from the CLI, one line), never another exception; nothing is written."""
    table, column = where
    outcome = _edit_one_value(_edited_templates()[checkpoint], table, column, pick, value)
    event(outcome)


def test_each_column_read_on_opening_set_to_each_kind_of_bad_value():
    """The sweep beside the random test: every column that opening reads, in the first and
    the last row of its table, set to each value of :data:`_BAD_VALUES` in turn."""
    template = _edited_templates()[False]
    outcomes: dict[str, int] = {}
    for table, column in _LOADED:
        for pick in (0, -1):
            for value in _BAD_VALUES:
                outcome = _edit_one_value(template, table, column, pick, value)
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert outcomes.get("CorruptMemory", 0) > 100, outcomes  # the sweep reaches the checks


def _edit_one_value(template: bytes, table: str, column: str | int, pick: int, value: Any) -> str:
    """Set ``column`` (a name, or a position among the table's columns) of row ``pick`` of
    ``table`` in a copy of the memory ``template`` to ``value``, then read it every way
    (:func:`_read_everything`, ``jtms state``): what happened, or AssertionError."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "memory.db"
        path.write_bytes(template)
        rows = _rows_of(path).get(table, [])
        if not rows:
            return "no such row"  # (a memory without a checkpoint has no checkpoint rows)
        row = rows[pick % len(rows)]
        columns = _columns_of(path, table)
        if isinstance(column, int):
            column = columns[column % len(columns)]
        where = " AND ".join(f"{c} IS ?" for c in columns)
        try:
            _edit(path, (f"UPDATE {table} SET {column} = ? WHERE {where}", (value, *row)))
        except sqlite3.Error:
            return "the edit was refused"  # NOT NULL, UNIQUE or an INTEGER PRIMARY KEY
        before = path.read_bytes()
        outcome = _read_everything(path, table)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["state", "--json", "--db", str(path)])
        shown = f"{table}.{column} = {value!r}: {err.getvalue()}"
        assert code in (0, 2), shown
        if code == 2:
            assert len(err.getvalue().strip().splitlines()) == 1, shown
            assert "Traceback" not in err.getvalue(), shown
        assert path.read_bytes() == before, shown
        return outcome


def _read_everything(path: Path, table: str) -> str:
    """Open the memory and read its state, the history and the record of each node, and the
    events: each works or raises CorruptMemory (another InputError only for the meta table:
    a foreign file or another schema version). Says which."""
    try:
        with Memory.open(path) as memory, memory.snapshot():
            ids = list(memory.state.index.ids)
            memory.active_ids()
            memory.open_audits()
            memory.nogoods()
            memory.events()
            for node_id in ids:
                if id_problem(node_id) is None:  # (no caller can name another: InputError)
                    memory.history(node_id)
                    memory.node(node_id)
    except CorruptMemory:
        return "CorruptMemory"
    except InputError:
        if table != "meta":
            raise
        return "InputError"
    return "read"
