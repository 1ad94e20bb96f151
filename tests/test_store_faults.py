"""Every database fault is exit 2, one line on stderr, and nothing changed (the file's bytes
are compared before and after each command)."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from jtms.cli import main
from jtms.memory.memory import Memory
from theory.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
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
        if "supports" not in s and "checkpoints" not in s and "_by_event" not in s
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
