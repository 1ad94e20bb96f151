"""The PostgreSQL backend on a real server (JTMS_TEST_POSTGRES; see tests/conftest.py):
append-only triggers, namespaces, notifications, faults (exit 2, one line, nothing changed).

The tests that hold for every backend (the memory API, the CLI, the property tests) run on
both through the ``memory_location`` fixture; this file has what is PostgreSQL's own.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import postgres_dsn, postgres_location

from jtms.cli import main
from jtms.memory.jsonl import export_lines
from jtms.memory.memory import Memory
from theory.model.errors import InputError

pytestmark = pytest.mark.postgres

psycopg = pytest.importorskip("psycopg")

ROOT = Path(__file__).resolve().parents[3]

GRAPH = {
    "nodes": [
        {"id": "e1", "kind": "evidence", "text": "assay A"},
        {"id": "e2", "kind": "evidence", "text": "assay B"},
        {"id": "c1", "kind": "claim", "text": "mechanism"},
        {"id": "c2", "kind": "claim", "text": "plan"},
    ],
    "justifications": [
        {"claim": "c1", "antecedents": ["e1"]},
        {"claim": "c1", "antecedents": ["e2"]},
        {"claim": "c2", "antecedents": ["c1"]},
    ],
}


@pytest.fixture
def dsn() -> str:
    return postgres_dsn()


@pytest.fixture
def memories(dsn: str) -> Iterator[list[str]]:
    """Unique memory locations in the test database, dropped afterwards."""
    from jtms.store.postgres import drop_memories

    made: list[str] = []
    yield made
    drop_memories(made)


def _fresh(dsn: str, made: list[str]) -> str:
    location = postgres_location(dsn, f"test_{uuid.uuid4().hex[:16]}")
    made.append(location)
    return location


@pytest.fixture
def memory(dsn: str, memories: list[str]) -> str:
    location = _fresh(dsn, memories)
    with Memory.create(location) as m:
        m.import_graph(GRAPH, source="graph.json")
    return location


def _dump(location: str) -> list[str]:
    with Memory.open(location) as m:
        return list(export_lines(m))


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _schema(location: str) -> str:
    from jtms.store.postgres import parse_location

    return parse_location(location).schema


# --- the database enforces the guarantees ---------------------------------------------------------


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE {s}.revisions SET status = 'active'",
        "DELETE FROM {s}.revisions",
        "UPDATE {s}.events SET reason = 'rewritten'",
        "DELETE FROM {s}.events WHERE kind = 'audit'",
        "UPDATE {s}.nodes SET text = 'rewritten'",
        "DELETE FROM {s}.nodes",
        "TRUNCATE {s}.nodes CASCADE",
        "UPDATE {s}.justifications SET antecedents = '{{0}}'",
        "DELETE FROM {s}.supports",
        "TRUNCATE {s}.events CASCADE",
    ],
)
def test_history_is_append_only_in_the_database(memory, dsn, statement):
    with Memory.open(memory) as m:
        m.audit(["e1"], reason="r")
    before = _dump(memory)
    with psycopg.connect(dsn, autocommit=True) as connection:
        with pytest.raises(psycopg.Error, match="immutable"):
            connection.execute(statement.format(s=f'"{_schema(memory)}"'))
    assert _dump(memory) == before


@pytest.mark.parametrize(
    "statement, message",
    [
        ("INSERT INTO {s}.revisions VALUES (999, 12345, 'active', 2)", "missing node"),
        (
            "INSERT INTO {s}.nodes VALUES (4, 'x', 'claim', '', NULL, NULL, NULL, 999, 'active')",
            "missing event",
        ),
        (
            "INSERT INTO {s}.nodes VALUES (5, 'x', 'claim', '', NULL, NULL, NULL, 2, 'active')",
            "not the next dense numbers",
        ),
        ("INSERT INTO {s}.justifications VALUES (3, 2, '{{0,777}}', 2)", "missing node"),
        ("INSERT INTO {s}.justifications VALUES (9, 2, '{{1}}', 2)", "not the next dense"),
        ("INSERT INTO {s}.supports VALUES (999, 3, 55, 1, 2)", "missing node or justification"),
        (
            "INSERT INTO {s}.events VALUES (9, 'reinstate', 't', NULL, NULL, NULL, 1, NULL)",
            "missing audit",
        ),
    ],
)
def test_references_are_checked_by_the_database(memory, dsn, statement, message):
    before = _dump(memory)
    with psycopg.connect(dsn, autocommit=True) as connection:
        with pytest.raises(psycopg.errors.ForeignKeyViolation, match=message):
            connection.execute(statement.format(s=f'"{_schema(memory)}"'))
    assert _dump(memory) == before


def test_a_statement_sent_unawaited_that_fails_fails_its_write(memory, monkeypatch):
    """A write's inserts are sent in pipeline mode, their answers awaited with COMMIT's: one
    that the database refuses (here a revision of a missing node, sent with the audit's
    support pointers) still fails the write, with the database's reason; nothing is written,
    the memory's state is read again, and the next write works."""
    from jtms.store.postgres.store import PostgresStore

    before = _dump(memory)
    original = PostgresStore.add_supports

    def add_supports_and_a_bad_revision(self, event, pointers):
        original(self, event, pointers)
        self.add_revisions(event, "inactive", [10**6])

    with Memory.open(memory) as m:
        assert m.active_ids() == {"e1", "e2", "c1", "c2"}
        monkeypatch.setattr(PostgresStore, "add_supports", add_supports_and_a_bad_revision)
        with pytest.raises(InputError, match="missing node"):
            m.audit(["e1", "e2"], reason="refused")
        monkeypatch.undo()
        assert m.active_ids() == {"e1", "e2", "c1", "c2"} and m.open_audits() == {}
        assert _dump(memory) == before
        retired = m.audit(["e1"], reason="lands").retired
        assert retired == {"e1"}  # c1 stands on e2
        assert m.integrity_problems() == []


def test_writers_to_one_memory_wait_for_each_other_but_not_for_other_memories(dsn, memories):
    """A writer holding memory A's lock blocks a second writer of A (past a short busy
    timeout: exit 2 saying how long it waited), never a writer of B."""
    a, b = _fresh(dsn, memories), _fresh(dsn, memories)
    for location in (a, b):
        with Memory.create(location) as m:
            m.import_graph(GRAPH, source="g")
    holder = Memory.open(a)
    entered, release = threading.Event(), threading.Event()

    def hold(point: str) -> None:
        if point == "commit":
            entered.set()
            release.wait(30)

    holder.test_hook = hold
    thread = threading.Thread(target=lambda: holder.add_evidence("held"))
    thread.start()
    try:
        assert entered.wait(30)
        with Memory.open(b, busy_timeout=0.5) as other:
            other.add_evidence("free")  # another memory: no wait
        with Memory.open(a, busy_timeout=0.5) as same:
            started = time.monotonic()
            with pytest.raises(InputError, match="locked by another writer: waited"):
                same.add_evidence("blocked")
            assert time.monotonic() - started >= 0.4
    finally:
        release.set()
        thread.join(30)
        holder.close()
    with Memory.open(a) as m:
        assert "held" in m and "blocked" not in m and m.integrity_problems() == []


def test_a_read_is_one_snapshot(memory):
    """Inside one snapshot, a commit by another process is not seen; the next read sees it."""
    with Memory.open(memory) as reader, Memory.open(memory) as writer:
        with reader.snapshot():
            before, events = reader.active_ids(), reader.table("events")
            writer.add_evidence("new")
            assert reader.active_ids() == before and "new" not in reader
            assert "new" not in reader.texts() and reader.table("events") == events
        assert "new" in reader and "new" in reader.texts()


def test_a_listener_learns_of_foreign_writes_without_polling(memory):
    with Memory.open(memory) as listener:
        seen = listener.last_event
        assert listener.wait_for_change(seen, timeout=0.2) == seen  # nothing happened
        child = subprocess.Popen(
            [
                sys.executable,
                "-c",
                textwrap.dedent(f"""
            import sys, time
            sys.path.insert(0, {str(ROOT)!r})
            from jtms.memory.memory import Memory
            time.sleep(0.5)
            with Memory.open({memory!r}) as m:
                m.audit(["e1", "e2"], reason="contaminated")
        """),
            ],
            cwd=ROOT,
        )
        started = time.monotonic()
        newest = listener.wait_for_change(seen, timeout=30)
        waited = time.monotonic() - started
        child.wait(30)
        assert child.returncode == 0
        assert newest == seen + 1 and waited < 25
        assert listener.last_event == newest  # caught up by event id
        assert listener.active_ids() == set()


# --- namespaces ----------------------------------------------------------------------------------


def test_memories_are_namespaces_of_one_database(dsn, memories, capsys):
    a, b = _fresh(dsn, memories), _fresh(dsn, memories)
    assert _run(capsys, "init", "--db", a)[0] == 0
    code, _, err = _run(capsys, "init", "--db", a)
    assert code == 2 and "already exists" in err and len(err.strip().splitlines()) == 1
    assert _run(capsys, "init", "--db", b)[0] == 0
    assert _run(capsys, "add-evidence", "x", "--text", "only in A", "--db", a)[0] == 0
    assert _run(capsys, "add-evidence", "x", "--text", "only in B", "--db", b)[0] == 0  # same id
    code, out, _ = _run(capsys, "memories", "--db", dsn, "--json")
    listed = {m["name"]: m for m in json.loads(out)["memories"]}
    for location in (a, b):
        name = location.rsplit("=", 1)[1]
        assert listed[name]["location"].endswith(f"?memory={name}")
        assert listed[name]["nodes"] == 1 and listed[name]["events"] == 2
    with Memory.open(a) as ma, Memory.open(b) as mb:
        assert ma.node("x")["text"] == "only in A" and mb.node("x")["text"] == "only in B"
    code, _, err = _run(
        capsys, "history", "x", "--db", postgres_location(dsn, "test_no_such_memory")
    )
    assert code == 2 and "no memory 'test_no_such_memory'" in err


WRITER = """
import json, sys
sys.path.insert(0, {root!r})
from jtms.memory.memory import Memory
name, location, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
log = []
with Memory.open(location) as memory:
    for k in range(rounds):
        node = f"{{name}}_{{k}}"
        if k % 3 == 2:
            result = memory.audit([f"{{name}}_{{k - 1}}"], reason=name)
            log.append(["audit", result.audit_id, sorted(result.retired)])
        elif k % 3 == 1:
            change = memory.add_claim(node, [[f"{{name}}_{{k - 1}}"]], text=location)
            log.append(["claim", change.event_id, node])
        else:
            change = memory.add_evidence(node, text=location)
            log.append(["evidence", change.event_id, node])
print(json.dumps(log))
"""


def test_interleaved_writers_of_two_memories_never_cross(dsn, memories):
    """Three processes write to A and three to B at the same time; each memory then holds
    exactly its own writers' nodes (their texts name the memory) and dense event ids."""
    a, b = _fresh(dsn, memories), _fresh(dsn, memories)
    for location in (a, b):
        Memory.create(location).close()
    script = WRITER.format(root=str(ROOT))
    children = [
        (
            location,
            name,
            subprocess.Popen(
                [sys.executable, "-c", script, name, location, "12"],
                stdout=subprocess.PIPE,
                text=True,
                cwd=ROOT,
            ),
        )
        for location, name in [(a, "p0"), (b, "p0"), (a, "p1"), (b, "p1"), (a, "p2"), (b, "p2")]
    ]
    logs: dict[str, list] = {a: [], b: []}
    for location, _name, child in children:
        out, _ = child.communicate(timeout=120)
        assert child.returncode == 0
        logs[location] += json.loads(out)
    for location in (a, b):
        with Memory.open(location) as m:
            nodes = m.table("nodes")
            assert {n["text"] for n in nodes} == {location}
            assert len(nodes) == 3 * 8
            events = [e["id"] for e in m.table("events")]
            assert events == list(range(1, 2 + 3 * 12))
            assert sorted(e for _, e, _ in logs[location]) == events[1:]
            assert m.integrity_problems() == []


# --- faults: exit 2, one line, nothing changed --------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _one_line_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], *needles: str) -> str:
    code, _, err = _run(capsys, *argv)
    assert code == 2, err
    line = err.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line
    for needle in needles:
        assert needle in line
    return line


@pytest.mark.parametrize(
    "command", [["init"], ["history", "e1"], ["add-evidence", "x"], ["memories"], ["export"]]
)
def test_server_down_is_one_line(capsys, command):
    location = f"postgresql://postgres@127.0.0.1:{_free_port()}/test?memory=m"
    _one_line_exit_2(
        capsys, command + ["--db", location], "cannot connect to PostgreSQL", "Connection refused"
    )


def test_missing_database_is_one_line(dsn, capsys):
    base = dsn.rsplit("/", 1)[0]
    location = f"{base}/jtms_no_such_database_{uuid.uuid4().hex[:8]}?memory=m"
    _one_line_exit_2(capsys, ["history", "e1", "--db", location], "does not exist")


def test_bad_memory_names_are_bad_input(dsn, capsys):
    for name in ("", "a-b", "x" * 51, "drop;table"):
        _one_line_exit_2(capsys, ["init", "--db", postgres_location(dsn, name)], "memory name")


@pytest.fixture(scope="module")
def password_server() -> Iterator[str]:
    """A private PostgreSQL server that checks passwords (the shared one trusts everyone):
    initdb with scram-sha-256 on a free port; user ``postgres``, password ``right``."""
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    initdb = shutil.which("initdb") or (str(candidates[-1]) if candidates else None)
    if initdb is None:
        pytest.skip("initdb not found: cannot start a server that checks passwords")
    bindir = Path(initdb).parent
    folder = Path(tempfile.mkdtemp(prefix="jtms-test-pg-"))  # not under pytest's 0700 folder
    data, pwfile = folder / "data", folder / "pw"
    pwfile.write_text("right\n")
    prefix: list[str] = []
    if os.geteuid() == 0:  # initdb refuses to run as root
        runuser = shutil.which("runuser")
        if runuser is None:
            pytest.skip("running as root without runuser: cannot start a private server")
        prefix = [runuser, "-u", "postgres", "--"]
        shutil.chown(folder, "postgres")
        shutil.chown(pwfile, "postgres")
    port = _free_port()
    pg_ctl = str(bindir / "pg_ctl")
    try:
        for argv in (
            [
                initdb,
                "-D",
                str(data),
                "-U",
                "postgres",
                "--auth=scram-sha-256",
                f"--pwfile={pwfile}",
                "-N",
            ],
            [
                pg_ctl,
                "-D",
                str(data),
                "-w",
                "-t",
                "60",
                "-l",
                str(folder / "log"),
                "-o",
                f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off",
                "start",
            ],
        ):
            done = subprocess.run(prefix + argv, capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, f"{argv[0]}: {done.stderr or done.stdout}"
        yield f"postgresql://postgres:{{password}}@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            prefix + [pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(folder, ignore_errors=True)


def test_wrong_password_is_one_line_and_hides_the_password(password_server, capsys):
    right = password_server.format(password="right") + "?memory=m"
    wrong = password_server.format(password="wrong-secret") + "?memory=m"
    line = _one_line_exit_2(capsys, ["init", "--db", wrong], "password authentication failed")
    assert "wrong-secret" not in line and "***" in line
    assert _run(capsys, "init", "--db", right)[0] == 0
    line = _one_line_exit_2(
        capsys, ["add-evidence", "x", "--db", wrong], "password authentication failed"
    )
    with Memory.open(right) as m:
        assert len(m.table("events")) == 1 and m.table("nodes") == []


def test_connection_killed_mid_audit_leaves_the_pre_audit_state(memory, dsn, capsys, monkeypatch):
    """The server ends the writer's connection (pg_terminate_backend from another one) after
    the audit's rows are written, before COMMIT: exit 2, one line, the memory as before."""
    before = _dump(memory)
    opened = Memory.open

    def open_with_killer(location, *args, **kwargs):
        m = opened(location, *args, **kwargs)

        def kill(point: str) -> None:
            if point == "commit":
                with psycopg.connect(dsn, autocommit=True) as other:
                    other.execute("SELECT pg_terminate_backend(%s)", (m._store.backend_pid,))
                time.sleep(0.2)

        m.test_hook = kill
        return m

    monkeypatch.setattr(Memory, "open", open_with_killer)
    line = _one_line_exit_2(
        capsys,
        ["audit", "--invalidate", "e1,e2", "--reason", "never lands", "--db", memory],
        "connection",
    )
    assert "nothing written" in line
    monkeypatch.undo()
    assert _dump(memory) == before
    with Memory.open(memory) as m:
        assert m.integrity_problems() == []
        assert m.open_audits() == {} and m.active_ids() == {"e1", "e2", "c1", "c2"}


def test_two_inits_of_one_memory_at_once(dsn, memories):
    location = _fresh(dsn, memories)
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from jtms.cli import main
        raise SystemExit(main(["init", "--db", {location!r}]))
    """)
    children = [
        subprocess.Popen(
            [sys.executable, "-c", script], stderr=subprocess.PIPE, text=True, cwd=ROOT
        )
        for _ in range(4)
    ]
    results = [(child.wait(60), child.stderr.read()) for child in children]
    assert sorted(code for code, _ in results) == [0, 2, 2, 2]
    assert all(
        "already exists" in err and len(err.strip().splitlines()) == 1
        for code, err in results
        if code == 2
    )
    with Memory.open(location) as m:
        assert [e["kind"] for e in m.table("events")] == ["init"]


# --- load ----------------------------------------------------------------------------------------


def test_eight_writers_and_four_readers_equal_a_serial_replay(dsn, memories, tmp_path):
    """8 writer and 4 reader processes on one PostgreSQL memory for a few seconds
    (tests/memory_stress.py; ``benchmarks/bench_postgres.py --load`` runs it longer): no
    unexpected error, a sound store, every write and the final store equal to a serial replay."""
    sys.path.insert(0, str(Path(__file__).parents[2]))
    import memory_stress

    location = _fresh(dsn, memories)
    summary = memory_stress.run(location, seconds=6, writers=8, readers=4, seed=11, folder=tmp_path)
    print(json.dumps({k: v for k, v in summary.items() if k != "first_errors"}))
    assert summary["unexpected_errors"] == 0, summary["first_errors"]
    assert summary["exit_codes"] == [0] * 12
    assert summary["integrity_problems"] == []
    assert summary["replay_problems"] == []
    assert summary["writes"] > 40 and summary["reads"] > 20


def test_large_writes_go_through_copy_and_equal_sqlite(dsn, memories, tmp_path):
    """An import, an audit and a reinstatement of 400+ rows each (PostgreSQL writes them with
    COPY, small writes with one INSERT) give the same rows as on SQLite, times aside."""
    n = 450
    graph = {
        "nodes": [{"id": "e0", "kind": "evidence"}, {"id": "e1", "kind": "evidence"}]
        + [{"id": f"c{k}", "kind": "claim", "text": f"step\t{k}\n"} for k in range(n)],
        "justifications": [{"claim": "c0", "antecedents": ["e0"]}]
        + [{"claim": f"c{k}", "antecedents": [f"c{k - 1}"]} for k in range(1, n)]
        + [{"claim": "c300", "antecedents": ["e1"]}],
    }
    tables = {}
    for location in (str(tmp_path / "m.db"), _fresh(dsn, memories)):
        with Memory.create(location) as m:
            m.import_graph(graph, source="chain")
            audit = m.audit(["e0"], reason="all of it")
            assert len(audit.retired) == 301
            assert len(m.reinstate(audit.audit_id).activated) == 301
            m.audit(["e1", "c10"], reason="again")
            assert m.integrity_problems() == []
            tables[location] = {
                t: [{k: v for k, v in row.items() if k != "time"} for row in m.table(t)]
                for t in ("events", "nodes", "justifications", "revisions", "supports")
            }
    sqlite, postgres = tables.values()
    assert len(sqlite["revisions"]) > 600 and len(sqlite["supports"]) > 400
    assert postgres == sqlite


def test_wait_for_change_on_each_backend(memory_location):
    """The same call on both backends (PostgreSQL: LISTEN/NOTIFY; SQLite: checks every 50 ms)."""
    location = memory_location()
    with Memory.create(location) as m:
        m.import_graph(GRAPH, source="g")
    with Memory.open(location) as waiting, Memory.open(location) as writer:
        seen = waiting.last_event
        assert waiting.wait_for_change(timeout=0.1) == seen
        timer = threading.Timer(0.3, lambda: writer.add_evidence("late"))
        timer.start()
        try:
            assert waiting.wait_for_change(timeout=20) == seen + 1
        finally:
            timer.join()
        assert "late" in waiting.active_ids()


def test_an_idle_session_ended_by_the_server_is_opened_again(memory, dsn):
    """A long-lived process whose idle connection the server ended (restart, administrator)
    reconnects on its next call and catches up; a write in flight is never retried."""
    with Memory.open(memory) as warm, Memory.open(memory) as other:
        assert warm.is_active("c1")
        with psycopg.connect(dsn, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (warm._store.backend_pid,))
        time.sleep(0.2)
        other.audit(["e1", "e2"], reason="while the other session was gone")
        assert not warm.is_active("c1")  # reconnected, caught up
        warm.add_evidence("e9")  # and writes again
        assert "e9" in other.active_ids() and warm.integrity_problems() == []


# --- the batch layout of revisions and supports ---------------------------------------------------


@pytest.mark.parametrize(
    "statement",
    [
        # a batch must start where the stored ones end
        "INSERT INTO {s}.revision_batches VALUES (999, 'active', 2, '{{1}}')",
        "INSERT INTO {s}.support_batches VALUES (2, 2, '{{2}}', '{{0}}', '{{1}}')",
        # two new batches of one statement must follow each other
        "INSERT INTO {s}.revision_batches SELECT n, 'active', 2, '{{1,2}}' FROM "
        "(SELECT coalesce(max(seq), 0) + 1 AS n FROM {s}.revisions UNION ALL "
        "SELECT coalesce(max(seq), 0) + 2 FROM {s}.revisions) t",
    ],
)
def test_batch_sequence_numbers_stay_dense(memory, dsn, statement):
    with Memory.open(memory) as m:
        m.audit(["e1", "e2"], reason="r")
    before = _dump(memory)
    with psycopg.connect(dsn, autocommit=True) as connection:
        with pytest.raises(psycopg.errors.ForeignKeyViolation, match="do not follow"):
            connection.execute(statement.format(s=f'"{_schema(memory)}"'))
    assert _dump(memory) == before


def _raw_rows(dsn: str, location: str) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table of a memory, read with SQL (a corrupt memory cannot be
    exported): what must be the same before and after a command that fails."""
    schema = _schema(location)
    with psycopg.connect(dsn, autocommit=True) as connection:
        tables = [
            name
            for (name,) in connection.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = %s "
                "AND table_type = 'BASE TABLE' ORDER BY table_name",
                (schema,),
            )
        ]
        return {
            t: connection.execute(f'SELECT * FROM "{schema}"."{t}" ORDER BY 1').fetchall()
            for t in tables
        }


@pytest.mark.parametrize(
    "statement, message",
    [
        (
            "UPDATE {s}.justifications SET antecedents = '{{999}}' WHERE num = 0",
            "justifications row 0: antecedents [999]: 999 is not a node of this memory",
        ),
        (
            "UPDATE {s}.justifications SET antecedents = '{{NULL}}' WHERE num = 0",
            "justifications row 0: antecedents [None]: None is not a node of this memory",
        ),
        (
            "UPDATE {s}.justifications SET antecedents = '{{{{0}},{{1}}}}' WHERE num = 0",
            "justifications row 0: antecedents [[0], [1]]: [0] is not a node of this memory",
        ),
        (
            "UPDATE {s}.justifications SET antecedents = '{{2,2}}' WHERE num = 2",
            "justifications row 2: antecedents [2, 2] are not sorted without repeats",
        ),
        (
            "UPDATE {s}.justifications SET claim = 0 WHERE num = 1",
            "justifications row 1: claim 0 is not a claim of this memory",
        ),
        (
            "UPDATE {s}.events SET roots = '{{zzz}}' WHERE kind = 'audit'",
            "events row 3: root 'zzz' is not a node of this memory",
        ),
        (
            "UPDATE {s}.events SET roots = ARRAY[NULL]::text[] WHERE kind = 'audit'",
            "events row 3: root None is not a node of this memory",
        ),
        (
            "UPDATE {s}.events SET id = 10 WHERE id = 2",
            "events row 3: no event 2 before it (event ids have no gaps)",
        ),
        (
            "UPDATE {s}.nodes SET event = 99 WHERE num = 3",
            "nodes row 3: event 99 is not an event of this memory (1 to 3)",
        ),
        (
            "UPDATE {s}.revision_batches SET nodes = '{{99}}'",
            "node 99 is not a node of this memory",
        ),
        (
            "UPDATE {s}.revision_batches SET nodes = '{{NULL}}'",
            "node None is not a node of this memory",
        ),
        (
            "UPDATE {s}.support_batches SET nodes = array_fill(NULL::integer, "
            "ARRAY[cardinality(nodes)]) WHERE event = 3",
            "node None is not a node of this memory",
        ),
        (
            "UPDATE {s}.support_batches SET ranks = array_fill(-5::bigint, "
            "ARRAY[cardinality(ranks)]) WHERE event = 3",
            "rank -5 is not a derivation rank",
        ),
        (
            "INSERT INTO {s}.nogoods VALUES ('g1', '{{e1,zz}}', '', NULL, 3, 'inactive', 1)",
            "nogoods row 'g1': node 'zz' is not a node of this memory",
        ),
    ],
)
def test_a_row_edited_by_hand_is_a_corrupt_memory(memory, dsn, capsys, statement, message):
    """Rows edited behind the triggers (session_replication_role = replica turns them off):
    every command says corrupt memory in one line naming the row, exits 2 and writes nothing."""
    with Memory.open(memory) as m:
        m.audit(["e1"], reason="r")  # event 3: a revision batch and a support batch
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute("SET session_replication_role = replica")
        connection.execute(statement.format(s=f'"{_schema(memory)}"'))
    before = _raw_rows(dsn, memory)
    for argv in (["state", "--json"], ["history", "c1"], ["add-evidence", "e9"]):
        code, _, err = _run(capsys, *argv, "--db", memory)
        assert code == 2, (argv, err)
        assert "corrupt memory (" in err and message in err, err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert _raw_rows(dsn, memory) == before


def test_history_and_withdrawals_match_sqlite(dsn, memories, tmp_path):
    """The per-node reads of the batch layout (history, the last withdrawal, the withdrawn
    list) give SQLite's answers after audits and reinstatements of overlapping regions."""
    n = 120
    graph = {
        "nodes": [{"id": f"e{k}", "kind": "evidence"} for k in range(6)]
        + [{"id": f"c{k}", "kind": "claim"} for k in range(n)],
        "justifications": [
            {"claim": f"c{k}", "antecedents": [f"e{k % 6}"] + ([f"c{k - 7}"] if k >= 7 else [])}
            for k in range(n)
        ]
        + [{"claim": f"c{k}", "antecedents": [f"e{(k + 1) % 6}"]} for k in range(0, n, 5)],
    }
    answers = []
    for location in (str(tmp_path / "m.db"), _fresh(dsn, memories)):
        with Memory.create(location) as m:
            m.import_graph(graph, source="g")
            first = m.audit(["e0", "e1"], reason="one")
            m.audit(["e2"], reason="two")
            m.reinstate(first.audit_id)
            m.audit(["e1", "e3"], reason="three")
            ids = [f"e{k}" for k in range(6)] + [f"c{k}" for k in range(n)]
            answers.append(
                (
                    {
                        i: [{k: v for k, v in r.items() if k != "time"} for r in m.history(i)]
                        for i in ids
                    },
                    {i: m.explain(i).withdrawn_by for i in ids},
                    [{k: v for k, v in r.items() if k != "time"} for r in m.withdrawn()],
                )
            )
    sqlite, postgres = answers
    assert any(len(h) > 2 for h in sqlite[0].values())
    assert postgres == sqlite


def _install_per_row_layout(dsn: str, location: str, source: str) -> None:
    """A memory of the per-row layout (schema version 3, as the previous release made it),
    holding every row of ``source``."""
    schema, origin = f'"{_schema(location)}"', f'"{_schema(source)}"'
    old_schema = (ROOT / "tests" / "fixtures" / "postgres_schema_v3.sql").read_text()
    tables = (  # the per-row layout's append-only tables
        "events",
        "nodes",
        "justifications",
        "revisions",
        "supports",
        "nogoods",
        "nogood_revisions",
        "idempotency_keys",
    )

    with psycopg.connect(dsn, autocommit=True) as connection:
        with connection.transaction():
            connection.execute(f"CREATE SCHEMA {schema}")
            connection.execute(f"SET LOCAL search_path TO {schema}")
            connection.execute(old_schema)
            for table in tables:
                connection.execute(
                    f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                    f"FOR EACH ROW EXECUTE FUNCTION refuse_change()"
                )
                connection.execute(
                    f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                    f"FOR EACH STATEMENT EXECUTE FUNCTION refuse_change()"
                )
                connection.execute(
                    f"CREATE TRIGGER {table}_references AFTER INSERT ON {table} REFERENCING "
                    f"NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION check_references()"
                )
            for table in ("meta", "checkpoints", *tables):
                connection.execute(
                    f"INSERT INTO {schema}.{table} SELECT * FROM {origin}.{table} ORDER BY 1"
                )
            connection.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")


def test_upgrade_brings_the_per_row_layout_to_batches(dsn, memories, capsys):
    source, old = _fresh(dsn, memories), _fresh(dsn, memories)
    with Memory.create(source) as m:
        m.import_graph(GRAPH, source="graph.json")
        audit = m.audit(["e1"], reason="r")
        m.reinstate(audit.audit_id)
        m.audit(["e1", "e2"], reason="again")
    _install_per_row_layout(dsn, old, source)
    with pytest.raises(InputError, match="schema version 3.*jtms upgrade --db"):
        Memory.open(old)
    code, out, err = _run(capsys, "upgrade", "--db", old)
    assert code == 0, err
    assert _dump(old) == _dump(source)
    code, out, err = _run(capsys, "upgrade", "--db", old)
    assert code == 0 and "already up to date" in out
    assert _checkpoint_storage(dsn, old) == "e"
    tables = []
    for location in (source, old):
        with Memory.open(location) as m:
            assert m.integrity_problems() == []
            m.reinstate(max(m.open_audits()))
            m.audit(["e2"], reason="after")
            tables.append(
                {
                    t: [{k: v for k, v in r.items() if k != "time"} for r in m.table(t)]
                    for t in ("events", "revisions", "supports")
                }
            )
    assert tables[0] == tables[1]


def _checkpoint_storage(dsn: str, location: str) -> str:
    with psycopg.connect(dsn, autocommit=True) as connection:
        row = connection.execute(
            "SELECT a.attstorage FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND c.relname = 'checkpoints' AND a.attname = 'data'",
            (_schema(location),),
        ).fetchone()
    assert row is not None
    return str(row[0])


def test_checkpoints_are_stored_uncompressed_and_upgrade_makes_them_so(dsn, memories, capsys):
    """A checkpoint blob of megabytes, compressed by PostgreSQL's default storage, took about
    ten times as long to store as uncompressed (docs/postgres.md): new memories store it
    EXTERNAL, and ``jtms upgrade`` brings an older memory there (its rows stay readable)."""
    location = _fresh(dsn, memories)
    with Memory.create(location) as m:
        m.import_graph(GRAPH, source="graph.json")
        m.checkpoint()
    assert _checkpoint_storage(dsn, location) == "e"
    code, out, err = _run(capsys, "upgrade", "--db", location)
    assert code == 0 and "already up to date" in out
    with psycopg.connect(dsn, autocommit=True) as connection:  # as memories were made before
        connection.execute(
            f'ALTER TABLE "{_schema(location)}".checkpoints ALTER COLUMN data SET STORAGE EXTENDED'
        )
    with Memory.open(location) as m:  # opens as it is, without upgrading
        assert m.is_active("c2") and m.checkpoint_event is not None
    assert _checkpoint_storage(dsn, location) == "x"
    code, out, err = _run(capsys, "upgrade", "--db", location)
    assert code == 0 and "upgraded" in out, err
    assert _checkpoint_storage(dsn, location) == "e"
    with Memory.open(location) as m:
        assert m.integrity_problems() == [] and m.is_active("c2")
        m.audit(["e1", "e2"], reason="r")
        m.checkpoint()
        assert not m.is_active("c2")
    with Memory.open(location) as m:
        assert not m.is_active("c2")
    code, out, err = _run(capsys, "upgrade", "--db", location)
    assert code == 0 and "already up to date" in out


# --- integer arrays in PostgreSQL's binary format -------------------------------------------------


@pytest.mark.parametrize(
    "numbers",
    [[], [0], [1, -2, 3], list(range(5000)), [(1 << 31) - 1, -(1 << 31)]],
    ids=["empty", "zero", "signs", "long", "bounds"],
)
def test_integer_arrays_reach_the_server_as_sent(dsn: str, numbers: list[int]) -> None:
    """jtms.store.postgres.arrays: what an audit sends as integer[] and bigint[] (its
    revisions, support pointers and ranks) arrives element for element, with its type."""
    from jtms.store.postgres.arrays import BigIntArray, IntArray
    from jtms.store.postgres.connection import connect

    with connect(dsn, dsn) as connection:
        wide = [n * (1 << 20) for n in numbers]
        row = connection.execute(
            "SELECT %s, pg_typeof(%s)::text, %s, pg_typeof(%s)::text",
            (IntArray(numbers), IntArray(numbers), BigIntArray(wide), BigIntArray(wide)),
        ).fetchone()
    assert row == (numbers, "integer[]", wide, "bigint[]")


def test_an_integer_out_of_range_is_refused_before_it_is_sent() -> None:
    from jtms.store.postgres.arrays import IntArray

    with pytest.raises(OverflowError):
        IntArray([1 << 31])
    with pytest.raises(OverflowError):
        IntArray([-(1 << 31) - 1])
