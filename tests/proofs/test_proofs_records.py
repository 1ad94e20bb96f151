"""The stored record of the large bounded runs and the docs table generated from it."""

from __future__ import annotations

from pathlib import Path

from proofs.records import BEGIN, END, RECORD, load, table, write_table

DOC = Path(__file__).resolve().parents[2] / "docs" / "proofs.md"


def test_every_stored_instance_came_out_as_expected():
    rows = load()
    assert rows and all(r["ok"] for r in rows)
    assert {r["kind"] for r in rows} == {"solve", "certify", "mutant"}
    certified = [r for r in rows if r["kind"] == "certify"]
    assert all(r["result"] == "UNSAT" and r["lemmas"] > 0 for r in certified)
    mutants = [r for r in rows if r["kind"] == "mutant"]
    assert mutants and all(r["result"] == "SAT" for r in mutants)


def test_docs_table_is_the_one_the_record_gives():
    text = DOC.read_text()
    committed = text.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    assert committed == table(load()).strip(), (
        "run: python -m proofs.records table --write docs/proofs.md"
    )


def test_table_reports_failures_and_the_certified_bound(tmp_path):
    rows = load()
    bad = [dict(rows[0], ok=False, result="SAT")] + rows[1:]
    assert "Every stored instance as expected: NO" in table(bad)
    doc = tmp_path / "doc.md"
    doc.write_text(f"head\n{BEGIN}\nold\n{END}\ntail\n")
    write_table(doc, rows)
    assert doc.read_text().startswith("head\n" + BEGIN) and doc.read_text().endswith(
        END + "\ntail\n"
    )
    assert RECORD.stat().st_size < 200_000  # small source data, not a cache
