"""Lossless export and import of a whole memory (``jtms export`` / ``jtms import-memory``):
SQLite -> PostgreSQL -> SQLite keeps history, explanations, node records and the active state;
every bad file is refused with one line and creates nothing."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jtms.cli import main
from jtms.memory.jsonl import export_lines, import_memory
from jtms.memory.memory import Memory
from theory import strategies as jst
from theory.fixpoint import active_state

GRAPH = {
    "nodes": [
        {"id": "e1", "kind": "evidence", "text": "assay A shows X", "author": "ana"},
        {"id": "e2", "kind": "evidence", "text": "tab\there, newline\nand \\ backslash"},
        {"id": "e3", "kind": "evidence", "text": "dose", "expression": "2*3", "value": "6"},
        {"id": "c1", "kind": "claim", "text": "mechanism M — ünïcode"},
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
    "nogoods": [
        {"id": "z2", "nodes": ["c1", "e3"], "text": "cannot both hold"},
        {"id": "a1", "nodes": ["e1", "e2"], "text": "one assay is wrong"},
    ],
}


def _build(location: str) -> None:
    """A memory that exercises every kind of event and row."""
    with Memory.create(location) as m:
        m.import_graph(GRAPH, source="graph.json", author="importer")
        m.add_evidence("e4", text="late", author="bob", expression="1+1", value="2")
        m.add_claim("c4", [["e4", "c1"], ["e3"]], text="two ways", author="bob")
        m.add_claim("p", [[]], text="a premise")
        m.add_justification("c3", ["e4"], author="cy")
        m.add_nogood("g1", ["c4", "p"], text="incompatible plans", author="dee")
        first = m.audit(["e1"], reason="contaminated", reviewer="ana")
        m.audit(["e2", "c4"], reason="also", reviewer="bob")
        m.reinstate(first.audit_id, reason="cleared", reviewer="ana")
        m.audit(["c1"], reason="the claim itself")


def _view(location: str) -> dict:
    """Everything a user can ask of a memory, per node."""
    with Memory.open(location) as m, m.snapshot():
        ids = sorted(m.structure().nodes)
        assert m.integrity_problems() == []
        return {
            "active": sorted(m.active_ids()),
            "open_audits": m.open_audits(),
            "withdrawn": m.withdrawn(),
            "nodes": {
                i: {
                    "history": m.history(i),
                    "explain": m.explain(i).as_dict(),
                    "record": m.node(i),
                    "audited_by": m.audits_naming(i),
                }
                for i in ids
            },
            "nogoods": [
                (g.id, sorted(g.nodes), g.text, m.is_active(g.id), m.history(g.id))
                for g in m.nogoods()
            ],
        }


def _export(location: str) -> list[str]:
    with Memory.open(location) as m:
        return list(export_lines(m))


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_sqlite_to_postgres_to_sqlite_is_lossless(tmp_path, capsys):
    from conftest import postgres_dsn, postgres_location

    from jtms.store.postgres import drop_memory

    dsn = postgres_dsn()
    source, back = str(tmp_path / "source.db"), str(tmp_path / "back.db")
    pg = postgres_location(dsn, f"test_export_{tmp_path.name[-20:]}".replace("-", "_"))
    drop_memory(pg)
    try:
        _build(source)
        first = tmp_path / "first.jsonl"
        code, out, err = _cli(capsys, "export", "--db", source)
        assert code == 0, err
        first.write_text(out)
        code, _, err = _cli(capsys, "import-memory", str(first), "--db", pg, "--json")
        assert code == 0, err
        second = tmp_path / "second.jsonl"
        assert _cli(capsys, "export", "--db", pg, "-o", str(second))[0] == 0
        assert _cli(capsys, "import-memory", str(second), "--db", back)[0] == 0
        assert second.read_text() == first.read_text()  # the very same file
        assert _export(back) == first.read_text().splitlines()
        view = _view(source)
        assert _view(pg) == view and _view(back) == view  # history, explain, active state
        assert view["active"] == sorted(active_state(_structure_of(source), ["e2", "c4", "c1"]))
    finally:
        drop_memory(pg)


def _structure_of(location: str):
    with Memory.open(location) as m:
        return m.structure()


def test_round_trip_on_each_backend(memory_location, tmp_path):
    source, target = memory_location(), memory_location()
    _build(source)
    lines = _export(source)
    file = tmp_path / "m.jsonl"
    file.write_text("\n".join(lines) + "\n")
    summary = import_memory(file, target)
    assert summary.counts["events"] == 11 and summary.counts["nodes"] == 9
    assert summary.counts["nogoods"] == 3 and summary.counts["nogood_revisions"] > 0
    assert _export(target) == lines
    assert _view(target) == _view(source)
    with Memory.open(target) as m:  # the imported memory keeps working
        audit = m.audit(["e3"], reason="after import")
        assert "e3" in audit.retired and "e3" not in m.active_ids()
        assert m.integrity_problems() == []
        assert audit.audit_id == 12


def _bad_files(lines: list[str]) -> list[tuple[str, str, str]]:
    header, *rows, end = lines
    records = [json.loads(line) for line in rows]
    last = max(k for k, r in enumerate(records) if r["table"] == "revisions")
    flipped = [dict(r) for r in records]
    row = dict(flipped[last]["row"])
    row["status"] = "inactive" if row["status"] == "active" else "active"
    flipped[last] = {"table": "revisions", "row": row}
    gap = [dict(r) for r in records]
    gap[1] = {"table": "events", "row": {**gap[1]["row"], "id": 7}}
    dump = json.dumps
    return [
        ("truncated", "\n".join(lines[:-1]), "truncated export"),
        ("not json", "\n".join([header, "{oops", end]), "malformed JSON"),
        ("no header", "\n".join(rows + [end]), "not a jtms memory export"),
        ("empty", "", "empty file"),
        (
            "inconsistent status",
            "\n".join([header] + [dump(r) for r in flipped] + [end]),
            "inconsistent export",
        ),
        ("event gap", "\n".join([header] + [dump(r) for r in gap] + [end]), "expected 2"),
        (
            "bad key",
            "\n".join([header, dump({"table": "nodes", "row": {"num": 0}}), end]),
            "needs exactly the keys",
        ),
        (
            "newer version",
            "\n".join([dump({**json.loads(header), "version": 99})] + rows + [end]),
            "export format version 99",
        ),
    ]


@pytest.mark.parametrize("case", range(8))
def test_bad_export_files_create_nothing(memory_location, tmp_path, capsys, case):
    source, target = memory_location(), memory_location()
    _build(source)
    name, content, message = _bad_files(_export(source))[case]
    bad = tmp_path / f"{name.replace(' ', '_')}.jsonl"
    bad.write_text(content)
    code, _, err = _cli(capsys, "import-memory", str(bad), "--db", target)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (name, err)
    code, _, err = _cli(capsys, "history", "e1", "--db", target)
    assert code == 2 and "no memory" in err  # the target was not left behind


def test_import_into_an_existing_memory_is_refused(memory_location, tmp_path, capsys):
    source, target = memory_location(), memory_location()
    _build(source)
    Memory.create(target).close()
    before = _export(target)
    file = tmp_path / "m.jsonl"
    assert _cli(capsys, "export", "--db", source, "-o", str(file))[0] == 0
    code, _, err = _cli(capsys, "import-memory", str(file), "--db", target)
    assert code == 2 and "already exists" in err
    assert _export(target) == before


def test_export_to_an_unwritable_path_is_one_line(memory_location, tmp_path, capsys):
    source = memory_location()
    _build(source)
    code, _, err = _cli(capsys, "export", "--db", source, "-o", str(tmp_path / "no" / "m.jsonl"))
    assert code == 2 and "cannot write the export" in err and len(err.strip().splitlines()) == 1


@settings(max_examples=15, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_export_import_keeps_any_sequence_of_writes(memory_location, tmp_path, data):
    structure = data.draw(jst.support_structures(cycles=True, max_evidence=4, max_claims=6))
    source, target = memory_location(), memory_location()
    ids = sorted(structure.nodes)
    with Memory.create(source, durability="off") as m:
        m.import_graph(structure, source="g")
        for _ in range(data.draw(st.integers(0, 5), label="steps")):
            audits = sorted(m.open_audits())
            if audits and data.draw(st.booleans(), label="reinstate"):
                m.reinstate(data.draw(st.sampled_from(audits)))
            else:
                m.audit(
                    data.draw(st.lists(st.sampled_from(ids), min_size=1, max_size=2, unique=True)),
                    reason="r",
                )
        lines = list(export_lines(m))
    (tmp_path / "m.jsonl").write_text("\n".join(lines) + "\n")
    import_memory(tmp_path / "m.jsonl", target)
    assert _export(target) == lines
    assert _view(target) == _view(source)
