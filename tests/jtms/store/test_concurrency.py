"""The memory across processes: one snapshot per read, latest state per write, catch-up from
the log, open from a checkpoint, and a bounded multi-process stress run against a serial replay.

Deterministic interleavings use the documented test seam ``Memory.test_hook``: at a named
point where another process could commit, the hook commits from a second connection.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jtms.engine.incremental import SupportState
from jtms.memory.memory import Memory
from theory.io.graphfile import parse_graph
from theory.model.errors import InputError
from theory.semantics.fixpoint import active_state
from theory.semantics.revision import exact
from theory.testing import strategies as jst

sys.path.insert(0, str(Path(__file__).parents[2]))
import memory_stress  # noqa: E402

pytestmark = pytest.mark.slow

GRAPH = {
    "nodes": [{"id": i, "kind": "evidence"} for i in ("e1", "e2", "e3")]
    + [{"id": i, "kind": "claim"} for i in ("c1", "c2", "c3")],
    "justifications": [
        {"claim": "c1", "antecedents": ["e1"]},
        {"claim": "c1", "antecedents": ["e2"]},
        {"claim": "c2", "antecedents": ["c1", "e3"]},
        {"claim": "c3", "antecedents": ["c2"]},
        {"claim": "c2", "antecedents": ["c3"]},
    ],
}


def _make(path: str) -> str:
    with Memory.create(path) as memory:
        memory.import_graph(GRAPH, source="graph")
    return path


@pytest.fixture
def db(memory_location) -> str:
    """A memory holding GRAPH, on each backend (tests/conftest.py)."""
    return _make(memory_location())


@pytest.fixture
def sqlite_db(tmp_path) -> Path:
    return Path(_make(str(tmp_path / "memory.db")))


def _once(action):
    """A hook that runs ``action`` the first time the memory reaches one named point."""

    def make(point: str):
        fired = []

        def hook(name: str) -> None:
            if name == point and not fired:
                fired.append(name)
                action()

        return hook, fired

    return make


def _same_state(warm: Memory, path: Path | str) -> None:
    with Memory.open(path) as cold:
        assert warm.active_ids() == cold.active_ids()
        assert warm.open_audits() == cold.open_audits()
        assert list(warm.state.support) == list(cold.state.support)
        assert warm.integrity_problems() == []


# --- one snapshot per read ---------------------------------------------------------------------


@pytest.mark.parametrize("warm", [False, True])
def test_a_commit_during_a_read_is_not_seen_by_it(db, warm):
    """Another process commits between the reads of a load or a catch-up ("load" point): the
    read sees one state (the fixpoint of what it read), never a mix; the next read sees the commit."""
    reader, other = Memory.open(db), Memory.open(db)
    if warm:
        reader.active_ids()
        other.add_evidence("e4")  # the reader is now one event behind: it will catch up
    before = other.active_ids()

    def commit() -> None:
        other.add_claim("c9", [["e2"]])
        other.audit(["e1", "e2"], reason="while the reader reads")

    hook, fired = _once(commit)("load")
    reader.test_hook = hook
    with reader.snapshot():
        active, structure, blocked = reader.active_ids(), reader.structure(), reader.blocked_ids()
    assert fired
    assert active == before and "c9" not in structure.nodes and blocked == frozenset()
    assert active_state(structure, blocked) == active
    assert reader.active_ids() == other.active_ids()  # the next read catches up
    assert reader.loads == 1
    _same_state(reader, db)


def test_a_writer_plans_on_what_committed_before_it_took_the_lock(db):
    """c1 <- e1 | e2. B is warm; A audits e1 just before B takes the write lock ("write"
    point); B's audit of e2 must retire c1 (planned on A's result, not on B's stale state)."""
    a, b = Memory.open(db), Memory.open(db)
    b.active_ids()
    hook, fired = _once(lambda: a.audit(["e1"], reason="A"))("write")
    b.test_hook = hook
    result = b.audit(["e2"], reason="B")
    assert fired
    assert result.retired == {"e2", "c1", "c2", "c3"}
    graph = parse_graph(GRAPH)
    assert result.retired == exact(graph, frozenset({"e1", "e2"})) - exact(graph, frozenset({"e1"}))
    assert b.loads == 1
    _same_state(b, db)


CASES = [
    ("write", "audit"),
    ("write", "add_claim"),
    ("write", "reinstate"),
    ("write", "add_justification"),
] + [(point, read) for point in ("read", "load") for read in ("explain", "preview", "context")]


@pytest.mark.parametrize("point, operation", CASES)
def test_every_point_and_operation_sees_one_state(db, point, operation):
    """At each point where another process can commit, a second connection commits writes that
    interact with the operation. A write ("write": before the lock) plans on them; a read
    started before them ("load": inside its snapshot) does not see them, one started after
    ("read") does; the final state equals a cold open and is sound. (Inside a write's lock,
    "load" and "commit", another process cannot commit: it waits.)"""
    a, b = Memory.open(db), Memory.open(db)
    first = a.audit(["e3"], reason="setup")  # c2 and c3 out
    b.active_ids()
    a.add_evidence("e6")  # b is one event behind: it will catch up

    def commit() -> None:
        a.reinstate(first.audit_id)  # c2 and c3 back
        a.audit(["e1"], reason="other process")  # c1 now rests on e2 only
        a.add_evidence("e5")

    hook, fired = _once(commit)(point)
    b.test_hook = hook
    seen = point != "load"  # does the operation see the commit?
    if operation == "audit":
        assert b.audit(["e2"], reason="B").retired == {"e2", "c1", "c2", "c3"}
    elif operation == "add_claim":
        assert b.add_claim("c7", [["c2"]]).activated == {"c7"}
    elif operation == "reinstate":
        with pytest.raises(InputError, match="already reinstated"):
            b.reinstate(first.audit_id)
    elif operation == "add_justification":
        assert b.add_justification("c3", ["e2"]).activated == frozenset()  # c3 is back already
    elif operation == "explain":
        assert b.explain("c2").active == seen
    elif operation == "preview":
        assert b.preview(["e2"]).retired == ({"e2", "c1", "c2", "c3"} if seen else {"e2"})
    else:
        assert ("c2" in {c.id for c in b.context(500).claims}) == seen
    assert fired
    assert b.loads == 1
    _same_state(b, db)


# --- catch-up in O(changes) and open from a checkpoint ------------------------------------------


def test_catch_up_applies_every_kind_of_event_without_reloading(db):
    a, b = Memory.open(db), Memory.open(db)
    early = a.audit(["e1"], reason="known to b")
    b.active_ids()
    a.import_graph(
        {
            "nodes": [{"id": "x", "kind": "evidence"}, {"id": "y", "kind": "claim"}],
            "justifications": [{"claim": "y", "antecedents": ["x"]}],
        },
        source="more",
    )
    a.add_evidence("e4")
    a.add_claim("c4", [["c1", "e4"], ["y"]])
    a.add_justification("c3", ["y"])
    late = a.audit(["e2", "x"], reason="unknown to b")
    a.reinstate(early.audit_id)
    a.checkpoint()
    a.audit(["e3"], reason="after the checkpoint")
    a.reinstate(late.audit_id)
    assert b.active_ids() == a.active_ids()
    assert b.loads == 1
    _same_state(b, db)


def test_open_never_recomputes_the_fixpoint(db, monkeypatch):
    with Memory.open(db) as memory:
        memory.audit(["e1"], reason="r")
        memory.checkpoint()
        memory.add_claim("c5", [["c1"]])
        expected = memory.active_ids()

    def forbidden(self):  # the whole-graph derivation of jtms.engine.incremental
        raise AssertionError("the fixpoint of the whole graph was recomputed")

    monkeypatch.setattr(SupportState, "_derive_all", forbidden)
    with Memory.open(db) as memory:
        assert memory.active_ids() == expected
        assert memory.audit(["e2"], reason="r2").retired == {"e2", "c1", "c2", "c3", "c5"}
    with Memory.open(db) as memory:
        assert memory.integrity_problems() == []


def test_an_unusable_checkpoint_falls_back_to_the_log(sqlite_db):
    db = sqlite_db
    with Memory.open(db) as memory:
        memory.audit(["e1"], reason="r")
        memory.checkpoint()
        memory.audit(["e2"], reason="r")
        expected = memory.active_ids()
    connection = sqlite3.connect(db)
    connection.execute("UPDATE checkpoints SET data = x'00ff'")
    connection.commit()
    connection.close()
    with Memory.open(db) as memory:
        assert memory.active_ids() == expected
        assert memory.integrity_problems() == []


def test_writers_refresh_the_checkpoint_as_the_tail_grows(memory_location, monkeypatch):
    import jtms.memory.memory as reconsolidation

    monkeypatch.setattr(reconsolidation, "CHECKPOINT_MIN_ROWS", 3)
    path = memory_location()
    with Memory.create(path) as memory:
        assert memory.checkpoint_event is None
        change = memory.import_graph(GRAPH, source="g")  # 4 pointers > 3 rows: checkpoint
        assert memory.checkpoint_event == change.event_id
        small = memory.add_evidence("e9")  # 1 row: the tail is short, none
        assert memory.checkpoint_event == change.event_id
        audit = memory.audit(["e1", "e2"], reason="r")  # 4 statuses + 1 row: checkpoint
        assert memory.checkpoint_event == audit.audit_id > small.event_id
        assert memory.integrity_problems() == []
    with Memory.open(path) as memory:
        assert memory.integrity_problems() == []


def _reopened_from_checkpoints(path: str, monkeypatch, full: int) -> set[str]:
    """The active ids a new process opens from the stored checkpoints (whose full blob is of
    event ``full``), never recomputing the fixpoint; its integrity check passes."""
    with monkeypatch.context() as patch:
        patch.setattr(SupportState, "_derive_all", lambda self: 1 / 0)
        with Memory.open(path) as other:
            active = set(other.active_ids())
            assert other._loaded is not None and other._loaded.full_checkpoint is not None
            assert other._loaded.full_checkpoint[0] == full
            assert other.integrity_problems() == []
            return active


def test_a_refresh_over_an_unchanged_index_stores_the_state_alone(memory_location, monkeypatch):
    """Audits change the state, not the index: their checkpoint refresh stores a state blob
    over the full one of the import (two rows, the full one kept), opening reads both and
    never recomputes the fixpoint; an addition grows the index and the next refresh is full
    again. A state blob whose full one is gone is not used, and is not built on."""
    import jtms.memory.memory as reconsolidation
    from jtms.memory import checkpoint

    monkeypatch.setattr(reconsolidation, "CHECKPOINT_MIN_ROWS", 3)
    path = memory_location()

    def stored(memory: Memory) -> tuple[int, int | None, int]:
        """The newest checkpoint's event, its base, and its size."""
        with memory.snapshot():
            saved = memory._store.checkpoint()
            assert saved is not None
            return saved.event, checkpoint.base_of(saved.data), len(saved.data)

    def rows(memory: Memory) -> int:
        with memory.snapshot():
            found = memory._store._db.execute("SELECT count(*) FROM checkpoints").fetchall()
        return int(found[0][0])

    def reopened_state(memory: Memory) -> set[str]:
        return _reopened_from_checkpoints(path, monkeypatch, stored(memory)[1] or stored(memory)[0])

    with Memory.create(path) as memory:
        imported = memory.import_graph(GRAPH, source="g").event_id
        event, base, full_size = stored(memory)
        assert (event, base) == (imported, None)
        first = memory.audit(["e1", "e2"], reason="r")  # 4 statuses + 1 row: a refresh
        event, base, size = stored(memory)
        assert (event, base) == (first.audit_id, imported) and size < full_size
        assert rows(memory) == 2
        assert reopened_state(memory) == set(memory.active_ids())
        back = memory.reinstate(first.audit_id)  # 4 statuses and pointers: a refresh
        assert stored(memory)[:2] == (back.event_id, imported) and rows(memory) == 2
        assert reopened_state(memory) == set(memory.active_ids())
        memory.add_claim("c9", [["e3"], ["c1"]])  # the index grows
        third = memory.audit(["e1", "e2", "e3"], reason="r")
        assert stored(memory)[:2] == (third.audit_id, None) and rows(memory) == 1
        assert reopened_state(memory) == set(memory.active_ids())
        back = memory.reinstate(third.audit_id)
        assert stored(memory)[:2] == (back.event_id, third.audit_id)
        fourth = memory.audit(["e2"], reason="r")
        with memory._store.write():  # another writer's refresh dropped the full one
            memory._store._db.execute(f"DELETE FROM checkpoints WHERE event = {third.audit_id}")
        expected = set(memory.active_ids())
        with Memory.open(path) as other:  # the state blob alone is not used: the log serves
            assert set(other.active_ids()) == expected and other.integrity_problems() == []
        memory.reinstate(fourth.audit_id)
        memory.checkpoint()  # the refresh finds no full blob to build on: a full one
        assert stored(memory)[1] is None and rows(memory) == 1
        assert reopened_state(memory) == set(memory.active_ids())


def test_a_refresh_after_a_few_additions_stores_the_state_alone(memory_location, monkeypatch):
    """A memory that gains a few claims (at most 1/8 of the nodes and justifications of its
    full blob) refreshes with a state blob over the grown index: opening reads the full blob,
    the nodes and justifications added since from the store, then the state, and never
    recomputes the fixpoint. Past 1/8, the refresh is a full blob again."""
    import jtms.memory.memory as reconsolidation
    from jtms.memory import checkpoint

    monkeypatch.setattr(reconsolidation, "CHECKPOINT_MIN_ROWS", 3)
    path = memory_location()
    graph = {
        "nodes": [{"id": f"e{k}", "kind": "evidence"} for k in range(20)]
        + [{"id": f"c{k}", "kind": "claim"} for k in range(30)],
        "justifications": [
            {"claim": f"c{k}", "antecedents": [f"e{k % 20}"] + ([f"c{k - 1}"] if k else [])}
            for k in range(30)
        ]
        + [{"claim": f"c{k}", "antecedents": [f"e{(k + 7) % 20}"]} for k in range(0, 30, 3)],
    }

    def stored(memory: Memory) -> tuple[int, int | None]:
        with memory.snapshot():
            saved = memory._store.checkpoint()
            assert saved is not None
            return saved.event, checkpoint.base_of(saved.data)

    def reopened(memory: Memory, full: int) -> set[str]:
        return _reopened_from_checkpoints(path, monkeypatch, full)

    with Memory.create(path) as memory:
        imported = memory.import_graph(graph, source="g").event_id
        for k in range(3):  # 3 nodes and 4 justifications: within 1/8 of 50 and of 40
            memory.add_evidence(f"n{k}")
            memory.add_claim(f"m{k}", [[f"n{k}", "c3"]] + ([["e5"]] if k == 0 else []))
            audit = memory.audit(["e0", "e7", f"n{k}"], reason="r")  # 7 retired: a refresh
            event, base = stored(memory)
            assert (event, base) == (audit.audit_id, imported)
            assert reopened(memory, imported) == set(memory.active_ids())
            memory.reinstate(audit.audit_id)
            assert reopened(memory, imported) == set(memory.active_ids())
        for k in range(3, 8):  # 8 nodes added: past 1/8 of 50
            memory.add_evidence(f"n{k}")
        audit = memory.audit(["e0", "e7"], reason="r")
        assert stored(memory) == (audit.audit_id, None)
        assert reopened(memory, audit.audit_id) == set(memory.active_ids())


def test_a_state_blob_over_a_grown_index_needs_the_additions():
    """checkpoint.decode of a state blob taken after the index grew: without a way to read
    the additions it is not used; with one, the index and state are those encoded."""
    from jtms.engine.incremental import GrowingIndex
    from jtms.memory import checkpoint

    index = GrowingIndex()
    index.extend([("e1", True), ("c1", False)], [(1, (0,))], canonical=True)
    full = checkpoint.encode(SupportState(index), {}, 5)
    index.extend([("e2", True), ("c2", False)], [(3, (1, 2)), (1, (2,))], canonical=True)
    grown = SupportState(index)
    blob = checkpoint.encode_state(grown, {}, 7, base=5)
    assert checkpoint.decode(blob, 7, full) is None

    def extend(target: GrowingIndex, nodes: int, justifications: int) -> None:
        assert (target.size, len(target.just_claim)) == (2, 1) and (nodes, justifications) == (4, 3)
        target.extend([("e2", True), ("c2", False)], [(3, (1, 2)), (1, (2,))], canonical=True)

    restored = checkpoint.decode(blob, 7, full, extend)
    assert restored is not None
    assert (restored.nodes, restored.justifications) == (4, 3)
    assert (restored.base_nodes, restored.base_justifications) == (2, 1)
    assert restored.index.ids == index.ids
    assert bytes(restored.state.active) == bytes(grown.active)
    assert list(restored.state.support) == list(grown.support)
    assert bytes(restored.state.pointer) == bytes(grown.pointer)
    assert restored.state.verify() == []


def test_a_state_blob_is_used_only_over_its_own_full_blob():
    from jtms.engine.incremental import GrowingIndex
    from jtms.memory import checkpoint

    index = GrowingIndex()
    index.extend([("e1", True), ("c1", False)], [(1, (0,))], canonical=True)
    state = SupportState(index)
    full = checkpoint.encode(state, {}, 5)
    blob = checkpoint.encode_state(state, {}, 7, base=5)
    assert checkpoint.base_of(blob) == 5 and checkpoint.base_of(full) is None
    restored = checkpoint.decode(blob, 7, full)
    assert restored is not None and bytes(restored.state.active) == bytes(state.active)
    assert checkpoint.decode(blob, 7, None) is None  # no base
    assert checkpoint.decode(blob, 6, full) is None  # not this event
    assert checkpoint.decode(blob, 7, blob) is None  # a base that is no full blob
    assert checkpoint.decode(blob, 7, checkpoint.encode(state, {}, 4)) is None  # another base
    index.extend([("c2", False)], [(2, (1,))], canonical=True)
    grown = SupportState(index)
    assert checkpoint.decode(checkpoint.encode_state(grown, {}, 7, base=5), 7, full) is None


@settings(max_examples=150)
@given(jst.support_structures(cycles=True, max_evidence=5, max_claims=10), st.data())
def test_a_checkpoint_restores_the_state_in_either_width(structure, data):
    """A blob restores the active flags, pointers, ranks and pointer flags it was made from,
    whether it holds them as int32 (the default) or as int64 with the flags (past 2**31, and
    the version-5 and state-1 blobs of earlier releases, which are still read)."""
    from unittest import mock

    from jtms.engine.incremental import GrowingIndex
    from jtms.memory import checkpoint

    state = SupportState(GrowingIndex.of(structure))
    roots = state.index.numbers(data.draw(jst.audits(structure, min_size=1)))
    state.apply(state.plan_retract(roots))
    narrow_full = checkpoint.encode(state, {}, 5)
    with mock.patch.object(checkpoint, "NARROW", 0):
        wide_full = checkpoint.encode(state, {}, 5)
        wide_state = checkpoint.encode_state(state, {}, 7, base=5)
    assert len(narrow_full) < len(wide_full)
    old_full = wide_full.replace(checkpoint.MAGIC, b"jtms-checkpoint 5\n", 1)
    old_state = wide_state.replace(checkpoint.STATE_MAGIC, b"jtms-checkpoint-state 1\n", 1)
    for blob, event, base in (
        (narrow_full, 5, None),
        (checkpoint.encode_state(state, {}, 7, base=5), 7, narrow_full),
        (wide_full, 5, None),
        (old_full, 5, None),
        (old_state, 7, old_full),
    ):
        restored = checkpoint.decode(blob, event, base)
        assert restored is not None
        got = restored.state
        assert bytes(got.active) == bytes(state.active)
        assert list(got.support) == list(state.support) and list(got.rank) == list(state.rank)
        assert bytes(got.pointer) == bytes(state.pointer)
        assert got.verify() == []


# --- many processes ------------------------------------------------------------------------------


def test_random_multi_process_stress_equals_a_serial_replay(tmp_path):
    """3 writers and 2 readers for 8 s (tests/memory_stress.py): no unexpected error, a sound
    store, and every write and the final store equal to replaying the writes in event order.
    On the code before the storage seam (d4c3d07) the same run raised IndexError, unknown-id
    errors and mixed-snapshot reads (over 100 in 10 s)."""
    summary = memory_stress.run(tmp_path / "stress.db", seconds=8, writers=3, readers=2, seed=7)
    print(json.dumps({k: v for k, v in summary.items() if k != "first_errors"}))
    assert summary["unexpected_errors"] == 0, summary["first_errors"]
    assert summary["exit_codes"] == [0] * 5
    assert summary["integrity_problems"] == []
    assert summary["replay_problems"] == []
    assert summary["writes"] > 50 and summary["reads"] > 20
