"""The reviewer: recorded calculations are re-executed through a whitelist parser, never
executed as Python; discrepancies become one audit."""

from __future__ import annotations

import json
import sqlite3

import pytest
import sympy

from jtms.cli import main
from jtms.reconsolidation import Memory
from jtms.reviewer import recheck, review
from jtms.safe_expr import UnsafeExpression, parse_expression

INJECTIONS = [
    "__import__('os').system('touch /tmp/jtms-pwned')",
    "().__class__.__bases__[0].__subclasses__()",
    "exec('1')",
    "eval('1+1')",
    "open('/etc/passwd').read()",
    "lambda: 1",
    "[x for x in (1, 2)]",
    "x",
    "sqrt(x=4)",
    "sympify('1')",
    "Symbol('a')",
    "'abc'",
    "sqrt.__globals__",
    "2; import os",
    "9**9**9",
    "(10**1000)**1000",
    "factorial(10**6)",
    "1 if 1 else 2",
    "a.b",
    "1 < 2",
]


@pytest.mark.parametrize("text", INJECTIONS)
def test_injected_expressions_are_refused(text, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UnsafeExpression):
        parse_expression(text)
    assert not (tmp_path / "jtms-pwned").exists()


@pytest.mark.parametrize("text, value", [
    ("2*3", 6), ("1/3 + 1/6", sympy.Rational(1, 2)), ("sqrt(16)", 4), ("2**10", 1024),
    ("-(3 - 5) % 3", 2), ("factorial(5)", 120), ("Rational(1, 4)", sympy.Rational(1, 4)),
    ("pi", sympy.pi), ("binomial(5, 2)", 10), ("Abs(-2.5)", sympy.Float(2.5)),
])
def test_arithmetic_parses(text, value):
    assert parse_expression(text) == value


def test_recheck():
    assert recheck("e", "2*3", "6") is None
    assert recheck("e", "sqrt(2)", "1.4142135623730951") is None
    wrong = recheck("e", "2*3", "7")
    assert wrong is not None and "recomputed 6" in wrong.problem
    refused = recheck("e", "__import__('os')", "0")
    assert refused is not None and refused.problem.startswith("refused")


GRAPH = {
    "nodes": [
        {"id": "dose", "kind": "evidence", "expression": "2*3", "value": "7"},
        {"id": "area", "kind": "evidence", "expression": "pi*2**2", "value": "12.566370614359172"},
        {"id": "assay", "kind": "evidence"},
        {"id": "plan", "kind": "claim"},
        {"id": "fit", "kind": "claim"},
    ],
    "justifications": [
        {"claim": "plan", "antecedents": ["dose", "assay"]},
        {"claim": "fit", "antecedents": ["area"]},
    ],
}


def test_review_audits_discrepancies(tmp_path, capsys):
    db = tmp_path / "m.db"
    graph = tmp_path / "g.json"
    graph.write_text(json.dumps(GRAPH))
    assert main(["init", "--db", str(db)]) == 0
    assert main(["import", str(graph), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["review", "--dry-run", "--json", "--db", str(db)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["checked"] == 2 and out["audit_id"] is None
    assert [d["id"] for d in out["discrepancies"]] == ["dose"]
    assert main(["review", "--json", "--db", str(db)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["retired"] == ["dose", "plan"]
    with Memory.open(db) as memory:
        assert not memory.is_active("plan") and memory.is_active("fit")
        assert memory.open_audits() == {out["audit_id"]: ("dose",)}
    # reviewing again finds nothing new: the bad calculation is already invalidated
    assert main(["review", "--json", "--db", str(db)]) == 0
    assert json.loads(capsys.readouterr().out)["discrepancies"] == []


def test_unsafe_calculations_are_refused_on_input_and_by_the_reviewer(tmp_path, capsys):
    db = tmp_path / "m.db"
    assert main(["init", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["add-evidence", "evil", "--expression", "__import__('os').getcwd()",
                 "--value", "0", "--db", str(db)]) == 2
    assert "refused" in capsys.readouterr().err
    bad = dict(GRAPH, nodes=GRAPH["nodes"][:1] + [
        {"id": "evil", "kind": "evidence", "expression": "open('x').read()", "value": "1"}])
    bad["justifications"] = []
    graph = tmp_path / "bad.json"
    graph.write_text(json.dumps(bad))
    assert main(["import", str(graph), "--db", str(db)]) == 2
    assert "refused" in capsys.readouterr().err
    # a row written behind the API's back: the reviewer refuses it and does not audit it
    with Memory.open(db) as memory:
        memory.add_evidence("ok", expression="1+1", value="2")
    connection = sqlite3.connect(db)
    with connection:
        connection.execute(
            "INSERT INTO events (kind, time) VALUES ('add-evidence', 'now')")
        connection.execute(
            "INSERT INTO nodes (num, id, kind, text, expression, value, event, status) VALUES "
            "(1, 'evil', 'evidence', '', '__import__(\"os\").system(\"touch pwned\")', '0', "
            "(SELECT max(id) FROM events), 'active')")
    connection.close()
    with Memory.open(db) as memory:
        report = review(memory)
        assert report.discrepancies == [] and [r.id for r in report.refused] == ["evil"]
        assert report.audit is None
    assert not (tmp_path / "pwned").exists()
