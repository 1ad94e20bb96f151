"""Nogoods in the stored memory, on SQLite and on PostgreSQL (the ``memory_location``
fixture): Memory.add_nogood with history, import of graph files with nogoods,
Memory.diagnose with the audits in force, `jtms add-nogood`, `jtms diagnose --db
[--apply N]` and `jtms review --apply`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jtms.cli import main
from jtms.memory.memory import Memory
from theory.io.graphfile import graph_to_dict, load_document
from theory.model.errors import InputError
from theory.model.structure import Nogood, SupportStructure
from theory.testing import strategies as jst
from theory.testing.reference import brute_force_diagnoses

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "contradiction.json"


def example_memory(path: Path | str) -> Memory:
    memory = Memory.create(path)
    memory.import_graph(load_document(EXAMPLE), source=str(EXAMPLE))
    return memory


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_imported_nogoods_are_stored_and_diagnosed(memory_location: Callable[[], str]) -> None:
    db = memory_location()
    with example_memory(db) as memory:
        assert memory.nogoods() == (
            Nogood(
                "verdict",
                frozenset({"effective", "inert"}),
                "the compound cannot be both effective and inert",
            ),
        )
        assert memory.is_active("verdict")
        report = memory.diagnose()
        assert [sorted(d.invalidate) for d in report.diagnoses] == [
            ["assay"],
            ["model"],
            ["trial1", "trial2"],
        ]
        assert memory.node("verdict")["kind"] == "nogood"
        assert memory.integrity_problems() == []


def test_add_nogood_history_follows_audits_and_reinstatements(
    memory_location: Callable[[], str],
) -> None:
    db = memory_location()
    with example_memory(db) as memory:
        memory.add_nogood(
            "n2", ["dosing", "screen"], text="no dosing while screening", author="ana"
        )
        assert memory.is_active("n2")
        audit = memory.audit(["trial1", "trial2"], reason="trials unblinded")
        assert not memory.is_active("n2") and not memory.is_active("verdict")
        assert audit.audit_id is not None
        memory.reinstate(audit.audit_id)
        assert memory.is_active("n2")
        rows = [(r["kind"], r["status"]) for r in memory.history("n2")]
        assert rows == [("add-nogood", "active"), ("audit", "inactive"), ("reinstate", "active")]
        assert memory.history("n2")[0]["actor"] == "ana"
        assert memory.integrity_problems() == []
        # a second process (cold, then warm catching up) sees the same nogoods and statuses
        with Memory.open(db) as other:
            assert other.is_active("n2")
            memory.audit(["assay", "model"], reason="assay and model retracted")
            assert not other.is_active("n2") and other.is_active("verdict") is False
            assert [r["status"] for r in other.history("n2")][-1] == "inactive"
            assert other.diagnose().active == ()


@pytest.mark.slow
@pytest.mark.parametrize(
    "nogood_id, nodes, message",
    [
        ("effective", ["inert"], "duplicate id"),
        ("verdict", ["inert"], "duplicate id"),
        ("n2", [], "at least one node"),
        ("n2", ["ghost"], "unknown id"),
        ("n2", "inert", "list of ids"),
        (" n2", ["inert"], "without surrounding spaces"),
    ],
)
def test_bad_nogoods_change_nothing(
    memory_location: Callable[[], str], nogood_id: str, nodes: list[str], message: str
) -> None:
    with example_memory(memory_location()) as memory:
        before = memory.last_event
        with pytest.raises(InputError) as raised:
            memory.add_nogood(nogood_id, nodes)
        assert message in str(raised.value)
        assert memory.last_event == before and len(memory.nogoods()) == 1


def test_a_node_cannot_take_a_nogood_id(memory_location: Callable[[], str]) -> None:
    db = memory_location()
    with example_memory(db) as memory:
        with pytest.raises(InputError, match="duplicate id"):
            memory.add_evidence("verdict")
        graph = {
            "nodes": [{"id": "x", "kind": "evidence"}],
            "nogoods": [{"id": "verdict", "nodes": ["x"]}],
        }
        with pytest.raises(InputError, match="duplicate id"):
            memory.import_graph(graph)
        assert "x" not in memory


def test_nogoods_survive_a_round_trip_through_the_graph_format(
    memory_location: Callable[[], str],
) -> None:
    with example_memory(memory_location()) as memory:
        memory.add_nogood("n2", ["dosing", "screen"])
        document = graph_to_dict(memory.structure())
    assert [g["id"] for g in document["nogoods"]] == ["n2", "verdict"]
    with Memory.create(memory_location()) as copy:
        copy.import_graph(document)
        assert {g.id: g.nodes for g in copy.nogoods()} == {
            "n2": frozenset({"dosing", "screen"}),
            "verdict": frozenset({"effective", "inert"}),
        }


@pytest.mark.slow
@settings(max_examples=40)
@given(jst.graphs_with_nogoods(max_evidence=4, max_claims=5, cycles=True), st.data())
def test_memory_diagnoses_with_audits_in_force_match_the_definition(
    g: SupportStructure, data: st.DataObject
) -> None:
    blocked = data.draw(jst.audits(g, max_size=2), label="audited")
    with Memory.create(":memory:") as memory:
        memory.import_graph(g)
        if blocked:
            memory.audit(sorted(blocked), reason="test")
        report = memory.diagnose()
        expected = brute_force_diagnoses(g, blocked)
        assert [(d.invalidate, d.retires, d.keeps) for d in report.diagnoses] == expected
        for d in report.diagnoses:  # the dry run is what the audit would do
            assert memory.preview(sorted(d.invalidate)).retired == d.retires
        for c in report.contradictions:
            assert memory.is_active(c.nogood.id) == c.active


# --- the CLI -----------------------------------------------------------------------------------


def test_add_nogood_and_diagnose_db(
    capsys: pytest.CaptureFixture[str], memory_location: Callable[[], str]
) -> None:
    db = memory_location()
    example_memory(db).close()
    code, out, _ = run(capsys, "add-nogood", "n2", "--nodes", "dosing,screen", "--db", db, "--json")
    assert code == 0 and json.loads(out)["active"] is True
    code, out, _ = run(capsys, "diagnose", "--db", db, "--json")
    assert code == 1
    payload = json.loads(out)
    assert [c["nogood"] for c in payload["contradictions"]] == ["n2", "verdict"]
    assert payload["diagnoses"][0]["invalidate"] == ["assay", "model"]
    assert payload["applied"] is None
    code, out, _ = run(capsys, "history", "n2", "--db", db, "--json")
    assert code == 0 and json.loads(out)["kind"] == "nogood"


def test_diagnose_apply_audits_the_chosen_diagnosis(
    capsys: pytest.CaptureFixture[str], memory_location: Callable[[], str]
) -> None:
    db = memory_location()
    example_memory(db).close()
    code, out, _ = run(capsys, "diagnose", "--db", db, "--apply", "2", "--json")
    assert code == 1  # a contradiction was found (and resolved by the audit)
    applied = json.loads(out)["applied"]
    assert applied["invalidate"] == ["model"] and applied["retired"] == ["inert", "model"]
    assert "verdict" in applied["reason"]
    with Memory.open(db) as memory:
        assert memory.open_audits() == {applied["audit_id"]: ("model",)}
        history = memory.history("verdict")
        assert history[-1]["status"] == "inactive" and "verdict" in history[-1]["reason"]
    code, out, _ = run(capsys, "diagnose", "--db", db)
    assert code == 0 and "none active" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--apply", "4"], "only 3 diagnosis(es)"),
        (["--apply", "0"], "must be >= 1"),
    ],
)
def test_diagnose_apply_bad_input_changes_nothing(
    capsys: pytest.CaptureFixture[str],
    memory_location: Callable[[], str],
    argv: list[str],
    message: str,
) -> None:
    db = memory_location()
    example_memory(db).close()
    with Memory.open(db) as memory:
        before = memory.last_event
    try:
        code = main(["diagnose", "--db", str(db), *argv])
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    with Memory.open(db) as memory:
        assert memory.last_event == before


def test_diagnose_usage_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "diagnose", EXAMPLE, "--apply", "1")
    assert code == 2 and "--db" in err
    code, _, err = run(capsys, "diagnose")
    assert code == 2 and "GRAPH" in err
    code, _, err = run(capsys, "diagnose", EXAMPLE, "--db", tmp_path / "m.db")
    assert code == 2 and "not both" in err
    code, _, err = run(capsys, "add-nogood", "n", "--nodes", "a", "--db", tmp_path / "none.db")
    assert code == 2 and err.count("\n") == 1


def test_review_reports_and_applies_the_cheapest_diagnosis(
    capsys: pytest.CaptureFixture[str], memory_location: Callable[[], str]
) -> None:
    db = memory_location()
    example_memory(db).close()
    code, out, _ = run(capsys, "review", "--db", db, "--json")
    payload = json.loads(out)
    assert [c["nogood"] for c in payload["contradictions"]] == ["verdict"]
    assert payload["proposed_diagnosis"]["invalidate"] == ["assay"]
    assert payload["diagnosis_audit"] is None
    code, out, _ = run(capsys, "review", "--db", db)
    assert "cheapest diagnosis: invalidate assay" in out
    code, out, _ = run(capsys, "review", "--db", db, "--apply", "--json")
    audit = json.loads(out)["diagnosis_audit"]
    assert audit["invalidate"] == ["assay"] and audit["retired"] == ["assay", "inert"]
    code, out, _ = run(capsys, "review", "--db", db, "--json")
    assert json.loads(out)["contradictions"] == [] and json.loads(out)["proposed_diagnosis"] is None
    code, _, err = run(capsys, "review", "--db", db, "--apply", "--dry-run")
    assert code == 2 and err.count("\n") == 1
