"""The store, on every backend (``memory_location`` in tests/conftest.py: SQLite and
PostgreSQL): bad input through the CLI (exit 2, store unchanged), crash safety (SIGKILL
mid-audit) and serialised concurrent writers; SQLite's immutability triggers (PostgreSQL's:
tests/jtms/store/test_postgres.py)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import memory_dump

from jtms.cli import main
from jtms.memory.memory import Memory, load_memory, load_structure
from theory.model.errors import InputError
from theory.model.structure import SupportStructure
from theory.semantics.fixpoint import active_state

ROOT = Path(__file__).resolve().parents[3]

GRAPH = {
    "nodes": [
        {"id": "e1", "kind": "evidence", "text": "assay A shows X"},
        {"id": "e2", "kind": "evidence", "text": "assay B shows X"},
        {"id": "e3", "kind": "evidence", "text": "dose", "expression": "2*3", "value": "6"},
        {"id": "c1", "kind": "claim", "text": "mechanism M"},
        {"id": "c2", "kind": "claim", "text": "plan P"},
        {"id": "c3", "kind": "claim", "text": "loop partner"},
    ],
    "justifications": [
        {"claim": "c1", "antecedents": ["e1"]},
        {"claim": "c1", "antecedents": ["e2"]},
        {"claim": "c2", "antecedents": ["c1", "e3"]},
        {"claim": "c3", "antecedents": ["c2"]},
        {"claim": "c2", "antecedents": ["c3"]},
    ],
}


def _structure() -> SupportStructure:
    from theory.io.graphfile import parse_graph

    return parse_graph(GRAPH)


def _make(path: str, tmp_path: Path) -> str:
    graph = tmp_path / "graph.json"
    graph.write_text(json.dumps(GRAPH))
    assert main(["init", "--db", path]) == 0
    assert main(["import", str(graph), "--db", path]) == 0
    return path


@pytest.fixture
def db(memory_location, tmp_path) -> str:
    """A memory holding GRAPH, on each backend."""
    return _make(memory_location(), tmp_path)


@pytest.fixture
def sqlite_db(tmp_path) -> Path:
    return Path(_make(str(tmp_path / "memory.db"), tmp_path))


_dump = memory_dump


def _json(capsys, argv: list[str]) -> dict:
    capsys.readouterr()
    assert main(argv + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)


# --- the API and the CLI ---------------------------------------------------------------------


def test_cli_audit_reinstate_history_explain(db, capsys):
    # the dry run keeps what the audit then keeps, on the justification intact after it (c1's
    # support pointer before the audit is e1, the one it breaks)
    dry = _json(
        capsys, ["audit", "--invalidate", "e1", "--reason", "r", "--dry-run", "--db", str(db)]
    )
    out = _json(
        capsys, ["audit", "--invalidate", "e1", "--reason", "contaminated", "--db", str(db)]
    )
    assert dry["kept"] == out["kept"]
    assert out["retired"] == ["e1"]
    assert out["kept"] == [
        {"id": "c1", "surviving_justification": ["e2"]},
        {"id": "c2", "surviving_justification": ["c1", "e3"]},
        {"id": "c3", "surviving_justification": ["c2"]},
    ]
    first = out["audit_id"]
    out = _json(
        capsys,
        ["audit", "--invalidate", "e2", "--reason", "also", "--db", str(db), "--reviewer", "ana"],
    )
    assert out["retired"] == ["c1", "c2", "c3", "e2"]  # the c2/c3 loop does not survive
    assert out["kept"] == []
    dry = _json(
        capsys, ["audit", "--invalidate", "e3", "--reason", "x", "--dry-run", "--db", str(db)]
    )
    assert dry["audit_id"] is None and dry["retired"] == ["e3"]
    out = _json(capsys, ["explain", "c2", "--db", str(db)])
    assert out["active"] is False and out["withdrawn_by"] == first + 1
    out = _json(capsys, ["reinstate", str(first), "--db", str(db)])
    assert out["reactivated"] == ["c1", "c2", "c3", "e1"]
    out = _json(capsys, ["explain", "c3", "--db", str(db)])
    assert out["active"] and out["evidence"] == ["e1", "e3"]
    assert [s["claim"] for s in out["certificate"]] == ["c1", "c2", "c3"]
    out = _json(capsys, ["history", "c1", "--db", str(db)])
    assert [r["status"] for r in out["revisions"]] == ["active", "inactive", "active"]
    assert [r["kind"] for r in out["revisions"]] == ["import", "audit", "reinstate"]
    assert out["revisions"][1]["actor"] == "ana"
    out = _json(capsys, ["history", "e1", "--db", str(db)])
    assert out["audited_by"] == [first]
    with Memory.open(db) as memory:
        assert memory.integrity_problems() == []


def test_cli_add_evidence_and_claim(db, capsys):
    assert _json(capsys, ["add-evidence", "e9", "--text", "new", "--db", str(db)])["active"]
    out = _json(
        capsys, ["add-claim", "c9", "--because", "e9,c1", "--because", "e3", "--db", str(db)]
    )
    assert out["active"] is True
    capsys.readouterr()  # a claim justified only by itself could never be active: refused
    assert main(["add-claim", "c10", "--because", "c10", "--db", str(db)]) == 2
    assert "'c10' is justified only by itself" in capsys.readouterr().err
    out = _json(capsys, ["add-claim", "p", "--premise", "--db", str(db)])
    assert out["active"] is True
    with Memory.open(db) as memory:
        assert memory.integrity_problems() == []


def test_load_structure_is_the_current_state(db):
    with Memory.open(db) as memory:
        memory.audit(["e2"], reason="r")
        memory.audit(["c1"], reason="claim audit")
        expected = memory.active_ids()
    structure = load_structure(db)
    assert "e2" not in structure.nodes and "c1" in structure.nodes
    assert active_state(structure) == expected
    whole, blocked = load_memory(db)
    assert blocked == {"e2", "c1"}
    assert active_state(whole, blocked) == expected


# --- immutability in the database --------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE revisions SET status = 'active'",
        "DELETE FROM revisions",
        "UPDATE events SET reason = 'rewritten'",
        "DELETE FROM events WHERE kind = 'audit'",
        "UPDATE nodes SET text = 'rewritten'",
        "DELETE FROM nodes",
        "UPDATE justifications SET antecedents = '0'",
        "DELETE FROM justifications",
    ],
)
def test_revisions_are_immutable_in_the_database(sqlite_db, statement):
    db = sqlite_db
    with Memory.open(db) as memory:
        memory.audit(["e1"], reason="r")
    before = _dump(db)
    connection = sqlite3.connect(db)
    with pytest.raises(sqlite3.IntegrityError, match="immutable"):
        connection.execute(statement)
    connection.close()
    assert _dump(db) == before


# --- bad input: exit 2, one clear line, nothing changed ------------------------------------------

BAD = [
    (
        ["audit", "--invalidate", "nope", "--reason", "r"],
        "unknown id: no node of this memory has it",
    ),
    (["audit", "--invalidate", "e1,,e2", "--reason", "r"], "expected ID"),
    (["audit", "--invalidate", "e1", "--reason", " "], "needs a reason"),
    (["add-evidence", "e1"], "duplicate id"),
    (["add-claim", "c1", "--because", "e1"], "duplicate id"),
    (["add-claim", "c7", "--because", "e1,ghost"], "unknown antecedent 'ghost'"),
    (["add-evidence", "e8", "--expression", "1+1"], "needs both"),
    (["reinstate", "99"], "no such audit"),
    (["reinstate", "x"], "must be a whole number"),
    (["history", "ghost"], "unknown id"),
    (["explain", "ghost"], "unknown id"),
    (["context", "--budget", "-1"], "--budget"),
]

BAD_FILES = [
    ("{not json", "malformed JSON"),
    (
        json.dumps({"nodes": [{"id": "e1", "kind": "evidence"}], "justifications": []}),
        "duplicate id",
    ),
    (
        json.dumps({"nodes": [{"id": "x", "kind": "evidence"}, {"id": "x", "kind": "claim"}]}),
        "duplicate id",
    ),
    (
        json.dumps(
            {
                "nodes": [{"id": "x", "kind": "evidence"}],
                "justifications": [{"claim": "x", "antecedents": []}],
            }
        ),
        "evidence cannot have a justification",
    ),
    (
        json.dumps(
            {
                "nodes": [{"id": "y", "kind": "claim"}],
                "justifications": [{"claim": "y", "antecedents": ["ghost"]}],
            }
        ),
        "unknown antecedent",
    ),
    (json.dumps({"nodes": [{"id": "z", "kind": "elephant"}]}), "kind must be"),
    (json.dumps({"nodes": [{"id": "z", "kind": "evidence", "expression": "1"}]}), "needs both"),
]


@pytest.mark.slow
@pytest.mark.parametrize("argv, message", BAD)
def test_bad_input_exits_2_and_changes_nothing(db, capsys, argv, message):
    before = _dump(db)
    capsys.readouterr()
    assert main(argv + ["--db", str(db)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert _dump(db) == before


@pytest.mark.slow
@pytest.mark.parametrize("content, message", BAD_FILES)
def test_bad_graph_file_exits_2_and_changes_nothing(db, tmp_path, capsys, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    before = _dump(db)
    capsys.readouterr()
    assert main(["import", str(bad), "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and str(bad) in err
    assert _dump(db) == before


def test_missing_or_foreign_database_exits_2(tmp_path, capsys):
    assert main(["history", "x", "--db", str(tmp_path / "none.db")]) == 2
    assert "no memory here" in capsys.readouterr().err
    foreign = tmp_path / "foreign.db"
    foreign.write_text("this is not sqlite" * 100)
    assert main(["history", "x", "--db", str(foreign)]) == 2
    assert "not a jtms memory" in capsys.readouterr().err
    assert main(["init", "--db", str(foreign)]) == 2
    assert "already exists" in capsys.readouterr().err


# --- crash safety ------------------------------------------------------------------------------


def _script(body: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(body)]


@pytest.mark.slow
def test_sigkill_mid_audit_leaves_the_pre_audit_state(db):
    before = _dump(db)
    child = subprocess.Popen(
        _script(f"""
        import sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from jtms.memory.memory import Memory
        memory = Memory.open({str(db)!r})
        def pause():
            print("writing", flush=True)
            time.sleep(60)
        memory._before_commit = pause
        memory.audit(["e1", "e2"], reason="never lands")
    """),
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert child.stdout.readline().strip() == "writing"  # revisions written, not committed
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == -signal.SIGKILL
    with Memory.open(db) as memory:
        assert memory.integrity_problems() == []
        assert memory.open_audits() == {}
        assert memory.active_ids() == active_state(_structure())
    assert _dump(db) == before


@pytest.mark.slow
def test_concurrent_audits_are_serialised(db, tmp_path):
    """c1 <- e1 | e2. A audits e1 (c1 kept), B audits e2 while A holds the write lock: B must
    plan on A's result (c1 retired), not on the state it loaded before A committed."""
    ready = tmp_path / "b-loaded"
    a = subprocess.Popen(
        _script(f"""
        import sys, time, pathlib
        sys.path.insert(0, {str(ROOT)!r})
        from jtms.memory.memory import Memory
        memory = Memory.open({str(db)!r})
        def hold():
            print("locked", flush=True)
            deadline = time.time() + 20
            while not pathlib.Path({str(ready)!r}).exists() and time.time() < deadline:
                time.sleep(0.01)
            time.sleep(0.3)  # B is now waiting for the lock
        memory._before_commit = hold
        result = memory.audit(["e1"], reason="A")
        print(sorted(result.retired), flush=True)
    """),
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert a.stdout.readline().strip() == "locked"
    b = subprocess.Popen(
        _script(f"""
        import sys, pathlib
        sys.path.insert(0, {str(ROOT)!r})
        from jtms.memory.memory import Memory
        memory = Memory.open({str(db)!r})
        memory.active_ids()  # load the (soon stale) state
        pathlib.Path({str(ready)!r}).touch()
        result = memory.audit(["e2"], reason="B")
        print(sorted(result.retired), flush=True)
    """),
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    out_a, _ = a.communicate(timeout=60)
    out_b, _ = b.communicate(timeout=60)
    assert a.returncode == 0 and b.returncode == 0
    assert out_a.strip() == "['e1']"
    assert out_b.strip() == "['c1', 'c2', 'c3', 'e2']"
    structure = _structure()
    with Memory.open(db) as memory:
        audits = memory.open_audits()
        assert sorted(audits.values()) == [("e1",), ("e2",)]
        assert memory.active_ids() == active_state(structure, ["e1", "e2"])
        assert memory.integrity_problems() == []
        reasons = [e["reason"] for e in memory.table("events") if e["kind"] == "audit"]
        assert reasons == ["A", "B"]


def test_add_justification_and_claim_roots(db):
    with Memory.open(db) as memory:
        memory.audit(["e1"], reason="r1")
        claim_audit = memory.audit(["c1"], reason="the claim itself is wrong")
        assert claim_audit.retired == {"c1", "c2", "c3"}
        # a new justification for a blocked claim does not bring it back
        memory.add_justification("c1", ["e3"])
        assert not memory.is_active("c1")
        memory.add_evidence("e4")
        change = memory.add_justification("c2", ["e4"])
        assert change.activated == {"c2", "c3"}
        assert [r["kind"] for r in memory.history("c3")] == ["import", "audit", "add-justification"]
        back = memory.reinstate(claim_audit.audit_id)
        assert back.activated == {"c1"}
        assert memory.integrity_problems() == []
        with pytest.raises(InputError, match="already recorded"):
            memory.add_justification("c2", ["e4"])
        with pytest.raises(InputError, match="evidence cannot have a justification"):
            memory.add_justification("e4", ["e3"])


def test_explain_text_shows_the_ends_of_a_long_certificate(tmp_path, capsys):
    """A claim at the end of a 300-claim chain: the text shows --limit steps (default 50),
    the half nearest the evidence and the half nearest the claim, and says how many it left
    out; --all shows every step, and --json lists every step."""
    claims = [f"c{i}" for i in range(300)]
    pairs = [("c0", ["e"])] + [(claims[i], [claims[i - 1]]) for i in range(1, 300)]
    db = tmp_path / "chain.db"
    with Memory.create(db) as memory:
        memory.import_graph(SupportStructure.build(["e"], claims, pairs))
    assert main(["explain", "c299", "--db", str(db)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 + 50 + 1
    assert lines[1] == "  c0 <- e" and lines[-1] == "  c299 <- c298"
    assert lines[26].startswith("  ... 250 more of 300 steps")
    assert main(["explain", "c299", "--db", str(db), "--limit", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:] == ["  c0 <- e", "  c1 <- c0", lines[3], "  c298 <- c297", "  c299 <- c298"]
    assert main(["explain", "c299", "--db", str(db), "--all"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 301
    out = _json(capsys, ["explain", "c299", "--db", str(db)])
    assert len(out["certificate"]) == 300


def test_imports_and_batches_write_their_expiries_in_one_statement(memory_location, monkeypatch):
    """An import's (and a batch's) expiries go in one bulk write (SQLite ``executemany``,
    PostgreSQL ``COPY``), never a statement per evidence item; stored as add_evidence's."""
    with Memory.create(memory_location()) as memory:
        store = memory._store
        bulk: list[int] = []
        add_expiries = store.add_expiries

        def one_row(*args):
            raise AssertionError("an expiry written row by row")

        def counted(rows, event):
            bulk.append(event)
            return add_expiries(rows, event)

        monkeypatch.setattr(store, "add_expiry", one_row)
        monkeypatch.setattr(store, "add_expiries", counted)
        expiring = [
            {"id": f"e{k}", "kind": "evidence", "valid_until": f"2999-01-0{k}T01:00:00+01:00"}
            for k in range(1, 4)
        ]
        memory.import_graph({"nodes": expiring, "justifications": []})
        memory.add_batch([{**node, "id": f"b{node['id']}"} for node in expiring])
        assert bulk == [memory.last_event - 1, memory.last_event]  # one call per write
        wanted = [f"2999-01-0{k}T00:00:00.000+00:00" for k in range(1, 4)]
        assert store.expiries() == dict(enumerate(wanted + wanted))
