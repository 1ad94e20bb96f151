"""Lossless export and import of a whole memory (``jtms export`` / ``jtms import-memory``):
SQLite -> PostgreSQL -> SQLite keeps history, explanations, node records and the active state;
every bad file is refused with one line and creates nothing."""

from __future__ import annotations

import functools
import json
import os
import tempfile

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from jtms.cli import main
from jtms.memory.jsonl import export_lines, import_memory
from jtms.memory.memory import Memory, load_structure
from theory.model.errors import InputError
from theory.semantics.fixpoint import active_state
from theory.testing import strategies as jst

pytestmark = pytest.mark.postgres

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


# --- exports that name what does not exist, or hold what no writer writes ------------------------
#
# Each is a valid export with one field changed. The import must refuse it before anything is
# written (exit 2, one line naming the file, the line and the problem): the replay and the
# load after it index by these numbers and ids, and a memory holding them crashed the import
# (IndexError, KeyError) or later commands (`check`, `state --as-of`).

BROKEN_ROWS = [
    # (name, table, which row of it, new values, what the message says)
    ("antecedent out of range", "justifications", 0, {"antecedents": [99]}, "antecedent 99"),
    ("claim out of range", "justifications", 0, {"claim": 99}, "claim 99 is not a node"),
    ("audit of an unknown id", "events", -1, {"roots": ["zz"]}, "root 'zz' is not a node"),
    ("nogood of an unknown id", "nogoods", 0, {"nodes": ["zz"]}, "'zz' is not a node"),
    ("support of no justification", "supports", 0, {"justification": 99}, "justification 99"),
    ("nogood with a node's id", "nogoods", 0, {"id": "e1"}, "nogood 'e1': duplicate id"),
    ("time not ISO", "events", -1, {"time": "yesterday"}, "time 'yesterday' is not an ISO"),
    ("time without offset", "events", 1, {"time": "2026-12-01T08:30:00"}, "UTC offset"),
    ("expression without value", "nodes", 0, {"expression": "2*3"}, "needs both"),
    ("expression refused", "nodes", 0, {"expression": "__import__('os')", "value": "1"}, "refused"),
    ("calculation of a claim", "nodes", 3, {"expression": "1+1", "value": "2"}, "only evidence"),
    ("evidence justified", "justifications", 0, {"claim": 0}, "is evidence"),
    ("antecedents unsorted", "justifications", 2, {"antecedents": [1, 0]}, "sorted, each once"),
    ("reinstatement of no audit", "events", 9, {"target": 2}, "target 2 is not an audit"),
    ("audit naming a node twice", "events", -1, {"roots": ["c1", "c1"]}, "twice"),
    ("second init event", "events", 1, {"kind": "init"}, "only the first event is the init"),
    ("unknown event kind", "events", 1, {"kind": "merge"}, "events.kind 'merge'"),
    ("node status", "nodes", 0, {"status": "on"}, "status 'on' is not active or inactive"),
    ("support rank", "supports", 0, {"rank": 0}, "rank 0"),
    ("revision of no nogood", "nogood_revisions", 0, {"nogood": "zz"}, "is not a nogood"),
]


def _changed(lines: list[str], table: str, which: int, values: dict) -> tuple[str, int]:
    """The export with row ``which`` of ``table`` changed, and that row's line number."""
    records = [json.loads(line) for line in lines]
    at = [n for n, r in enumerate(records) if r.get("table") == table][which]
    records[at]["row"].update(values)
    return "".join(json.dumps(r) + "\n" for r in records), at + 1


def _refused(capsys, bad, target: str, *message: str) -> None:
    """`jtms import-memory` of ``bad`` exits 2 with one line saying ``message``, and
    leaves no memory at ``target``."""
    code, out, err = _cli(capsys, "import-memory", str(bad), "--db", target)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and str(bad) in err, err
    for part in message:
        assert part in err, (part, err)
    code, _, err = _cli(capsys, "history", "e1", "--db", target)
    assert code == 2 and "no memory" in err  # nothing was written


@pytest.mark.parametrize("case", BROKEN_ROWS, ids=[case[0] for case in BROKEN_ROWS])
def test_export_naming_what_does_not_exist_is_refused(memory_location, tmp_path, capsys, case):
    name, table, which, values, message = case
    source, target = memory_location(), memory_location()
    _build(source)
    content, line = _changed(_export(source), table, which, values)
    bad = tmp_path / f"{name.replace(' ', '_')}.jsonl"
    bad.write_text(content)
    _refused(capsys, bad, target, f"line {line}: ", message)
    with pytest.raises(InputError, match=f"line {line}: "):  # the Python API alike
        import_memory(bad, target)


@pytest.mark.parametrize(
    ("version", "message"),
    [(True, "got true"), ("1", 'got "1"'), (None, "got null"), (1.0, "got 1.0"), (2, "version 2")],
)
def test_export_version_must_be_the_number_1(memory_location, tmp_path, capsys, version, message):
    source, target = memory_location(), memory_location()
    _build(source)
    header, *rest = _export(source)
    bad = tmp_path / "version.jsonl"
    bad.write_text("\n".join([json.dumps({**json.loads(header), "version": version}), *rest]))
    _refused(capsys, bad, target, message)


def test_end_line_counts_are_numbers(memory_location, tmp_path, capsys):
    source, target = memory_location(), memory_location()
    _build(source)
    *rest, end = _export(source)
    counts = json.loads(end)["end"]
    bad = tmp_path / "end.jsonl"
    bad.write_text("\n".join([*rest, json.dumps({"end": {**counts, "events": True}})]))
    _refused(capsys, bad, target, "counts do not match")


@functools.cache
def _sample_export() -> tuple[str, ...]:
    """The lines of one export of :func:`_build`'s memory (built once, on SQLite)."""
    with tempfile.TemporaryDirectory() as folder:
        location = os.path.join(folder, "sample.db")
        _build(location)
        return tuple(_export(location))


# values a changed field may take: numbers in and out of range (the sample has 11 events, 9
# nodes, 10 justifications), ids known and unknown, words the columns hold, wrong types
NUMBERS = st.one_of(st.integers(-2, 14), st.sampled_from([99, 2**62, 2**63]))
WORDS = st.sampled_from(
    ["zz", "e1", "e3", "c1", "c4", "g1", "a1", "p", "", " e1", "a,b", "x\x00"]
    + ["active", "inactive", "evidence", "claim", "audit", "reinstate", "init"]
    + ["yesterday", "2026-12-01T08:30:00", "2026-12-01T08:30:00+05:00", "2*3", "6", "1/0"]
    + ["__import__('os')"]
)
LISTS = st.sampled_from(
    [[], [0], [99], [1, 0], [0, 0], [-1], [0, 3], ["zz"], ["e1"], ["e1", "e1"], ["c1", "e1"]]
)
IDS = st.sampled_from(["e1", "e2", "e3", "e4", "c1", "c2", "c3", "c4", "p", "z2", "a1", "g1"])
ANY_VALUE = st.one_of(NUMBERS, WORDS, LISTS, st.sampled_from([None, True, 1.5, {}]))


def _values_like(value: object) -> st.SearchStrategy[object]:
    """Half the time a value of ``value``'s own type (a number out of range, an unknown id
    or one the sample has, a list naming what does not exist), else any value (a wrong
    type)."""
    like = NUMBERS if type(value) is int else LISTS if type(value) is list else IDS | WORDS
    return st.one_of(like, ANY_VALUE)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_one_changed_field_imports_soundly_or_is_refused(memory_location, tmp_path, data):
    """One field of a valid export changed at random: the import either makes a sound
    memory (integrity_problems() empty, readable by `check` and `state --as-of`, exported
    back to the very same file) or is refused with InputError, creating nothing; never any
    other exception."""
    records = [json.loads(line) for line in _sample_export()]
    at = data.draw(st.integers(0, len(records) - 2), label="line")  # 0: the header's version
    row = records[at]["row"] if at else records[at]
    column = data.draw(st.sampled_from(sorted(row)) if at else st.just("version"), label="field")
    row[column] = data.draw(_values_like(row[column]), label="value")
    changed = [json.dumps(r, separators=(",", ":")) for r in records]  # as `jtms export`
    path = tmp_path / "changed.jsonl"
    path.write_text("\n".join(changed) + "\n")
    target = memory_location()
    try:
        import_memory(path, target)
    except InputError as error:
        event("refused")
        assert "\n" not in str(error) and str(path) in str(error)
        with pytest.raises(InputError, match="no memory"):
            Memory.open(target).close()  # nothing was created
        return
    event("imported")
    with Memory.open(target) as m:
        assert m.integrity_problems() == []
        m.event_at("2100-01-01T00:00:00+00:00")  # `state --as-of`
        m.structure()  # the whole graph: `check`, `diagnose`, `review`, `export --format reasons`
        assert _export(target) == changed  # nothing lost or changed
    load_structure(target)  # the graph in force: `jtms check --db`
