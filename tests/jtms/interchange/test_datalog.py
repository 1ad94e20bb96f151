"""`--from datalog`: positive programs grounded by clingo, read as graphs (facts evidence,
derived atoms claims, ground rule instances justifications), checked against clingo's own
model; what is not positive Datalog refused with its line; ids with commas in id lists."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jtms.cli import main
from jtms.interchange.datalog import FACT_PREFIX, read_datalog
from jtms.memory.memory import Memory
from theory.model.ids import id_problem, split_ids
from theory.semantics.fixpoint import active_state
from theory.semantics.revision import revise

clingo = pytest.importorskip("clingo", reason="clingo is the `clingo` extra")

TC = """% transitive closure
edge(1,2). edge(2,3). edge(3,1). edge(3,4).
edge(2,3) :- edge(1,2).
path(X,Y) :- edge(X,Y).
path(X,Z) :- path(X,Y), edge(Y,Z).
"""


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def program(tmp_path, text, name="p.lp"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_facts_are_evidence_rules_are_justifications(tmp_path):
    text = "e(1). e(2). q(X) :- e(X). r :- q(1), q(2). e(2) :- q(1).\n"
    imported = read_datalog(program(tmp_path, text))
    s = imported.structure
    assert sorted(s.evidence) == ["e(1)", FACT_PREFIX + "e(2)"]
    assert sorted(s.claims) == ["e(2)", "q(1)", "q(2)", "r"]
    got = sorted((j.claim, sorted(j.antecedents)) for j in s.justifications)
    assert got == [
        ("e(2)", ["fact:e(2)"]),  # the fact behind a derived atom
        ("e(2)", ["q(1)"]),  # e(2) :- q(1)
        ("q(1)", ["e(1)"]),
        ("q(2)", ["e(2)"]),  # a body names the derived atom, not its fact
        ("r", ["q(1)", "q(2)"]),
    ]
    counts = imported.report.to_dict()["counts"]
    assert counts == {
        "derived_atoms": 4,
        "evidence": 2,
        "facts": 2,
        "facts_also_derived": 1,
        "ground_rules": 4,
        "premises": 0,
    }


def _model(text: str) -> set[str]:
    """The atoms of the program's one stable model, by clingo's solver (the oracle)."""
    control = clingo.Control(["--warn=none"])
    control.add("base", [], text)
    control.ground([("base", [])])
    atoms: set[str] = set()
    control.solve(on_model=lambda m: atoms.update(str(s) for s in m.symbols(atoms=True)))
    return atoms


edges = st.sets(st.tuples(st.integers(1, 5), st.integers(1, 5)), max_size=9)


@settings(max_examples=40, deadline=None)
@given(edges=edges, derived_edges=edges)
def test_exact_revision_of_a_fact_is_clingo_without_it(tmp_path_factory, edges, derived_edges):
    """For transitive closure over random edges (some facts also derived): the graph's active
    atoms are clingo's model, and exact revision of each fact is clingo's model of the program
    without that fact."""
    facts = "".join(f"edge({a},{b}). " for a, b in sorted(edges))
    extra = "".join(f"edge({b},{a}) :- edge({a},{b}). " for a, b in sorted(derived_edges))
    rules = "path(X,Y) :- edge(X,Y). path(X,Z) :- path(X,Y), edge(Y,Z).\n"
    text = facts + extra + rules + "x.\n"  # one fact, so the program is never empty
    imported = read_datalog(program(tmp_path_factory.mktemp("dl"), text))
    s = imported.structure
    atoms = {n for n in active_state(s) if not n.startswith(FACT_PREFIX)}
    assert atoms == _model(text)
    for a, b in sorted(edges):
        fact = f"edge({a},{b})"
        node = FACT_PREFIX + fact if fact in s.claims else fact
        result = revise(s, [node], "exact")
        alive = {n for n in result.active if not n.startswith(FACT_PREFIX)}
        assert alive == _model(text.replace(f"edge({a},{b}). ", "", 1))


@pytest.mark.parametrize(
    "text, problem",
    [
        ("a. b :- a, not c.", "negation (not)"),
        ("a. b ; c :- a.", "a disjunctive head"),
        ("a. { b } :- a.", "a choice or aggregate head"),
        ("a(1). n(N) :- N = #count { X : a(X) }.", "in the body"),
        ("a. :- a.", "an integrity constraint"),
        ("a(1). b :- a(X) : a(X).", "in the body"),
        ("a. -b :- a.", "classical negation"),
        ("a. #external c.", "external statement"),
        ("a. #minimize { 1 : a }.", "minimize statement"),
        ("a. #program step(t). b :- a.", "#program part other than base"),
    ],
)
def test_what_is_not_positive_datalog_is_refused_with_its_line(tmp_path, capsys, text, problem):
    path = program(tmp_path, "% a comment\n" + text.replace(". ", ".\n"))
    code, out, err = run(capsys, "check", "--from", "datalog", path)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert problem in err and "not a positive Datalog program: line " in err
    line = int(err.split("line ")[1].split(":")[0])
    assert line >= 2  # the comment is line 1, the refused rule after it


def test_a_syntax_error_and_an_unsafe_rule_are_one_line(tmp_path, capsys):
    for text, message in (("a(.", "not a clingo program"), ("p(X) :- q.", "could not ground")):
        code, _, err = run(capsys, "check", "--from", "datalog", program(tmp_path, text))
        assert code == 2 and len(err.strip().splitlines()) == 1 and message in err, err


def test_evidence_makes_other_facts_premises(tmp_path, capsys):
    text = "node(1). node(2). edge(1,2). r(X) :- node(X). p(Y) :- r(X), edge(X,Y).\n"
    imported = read_datalog(program(tmp_path, text), evidence=["edge"])
    s = imported.structure
    assert sorted(s.evidence) == ["edge(1,2)"]
    assert {j.claim for j in s.justifications if not j.antecedents} == {"node(1)", "node(2)"}
    code, _, err = run(
        capsys, "check", "--from", "datalog", program(tmp_path, text), "--evidence", "nope"
    )
    assert code == 2 and "--evidence names 'nope'" in err
    graph = tmp_path / "g.json"
    graph.write_text('{"nodes": [], "justifications": []}', encoding="utf-8")
    code, _, err = run(capsys, "check", str(graph), "--evidence", "edge")
    assert code == 2 and "--evidence needs --from datalog" in err


def test_atoms_are_named_in_audit_and_claim(tmp_path, capsys):
    path = program(tmp_path, TC)
    code, out, _ = run(
        capsys, "revise", path, "--from", "datalog", "--audit", "edge(1,2), fact:edge(2,3)",
        "--rule", "exact", "--json",
    )  # fmt: skip
    payload = json.loads(out)
    assert code == 0 and payload["audit"] == ["edge(1,2)", "fact:edge(2,3)"]
    assert "path(3,4)" in payload["active"] and "path(1,4)" in payload["retired"]
    code, out, _ = run(
        capsys, "check", path, "--from", "datalog", "--claim", "path(3,4),path(2,1)", "--json"
    )
    assert code == 1 and [c["id"] for c in json.loads(out)["claims"]] == ["path(2,1)", "path(3,4)"]
    code, out, _ = run(
        capsys, "supports", path, "--from", "datalog", "--claim", "path(2,1)", "--json"
    )
    assert code == 0 and json.loads(out)["minimal_justifications"] == [
        ["edge(1,2)", "edge(3,1)"],
        ["edge(3,1)", "fact:edge(2,3)"],
    ]


def test_import_stores_atoms_and_audits_name_them(tmp_path, capsys, memory_location):
    db = memory_location()
    Memory.create(db).close()
    argv = ["import", "--from", "datalog", program(tmp_path, TC), "--db", db, "--json"]
    code, out, _ = run(capsys, *argv)
    assert code == 0 and json.loads(out)["import"]["format"] == "datalog"
    code, out, err = run(capsys, "audit", "--db", db, "--invalidate", "edge(3,1),edge(3,4)",
                         "--reason", "test", "--json")  # fmt: skip
    assert code == 0, err
    with Memory.open(db) as memory:
        active = memory.active_ids()
        assert {"edge(3,1)", "edge(3,4)"} <= memory.blocked_ids()
        assert "path(1,2)" in active and not {"path(3,3)", "path(1,4)"} & active


def test_ids_with_commas_inside_parentheses():
    assert split_ids("a, b,c") == ["a", "b", "c"]  # today's lists
    assert split_ids('path(1,2),e("x,(",1), f(g(1,2),3)') == [
        "path(1,2)",
        'e("x,(",1)',
        "f(g(1,2),3)",
    ]
    assert split_ids("a(,b") == ["a(", "b"]  # an unmatched parenthesis does not group
    assert id_problem("path(1,2)") is None and id_problem('e("x,(",1)') is None
    assert "comma outside parentheses" in id_problem("a,b")
    assert "comma outside parentheses" in id_problem("p(1),q")


def test_a_missing_clingo_names_the_extra(tmp_path, capsys, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "clingo", None)
    code, _, err = run(capsys, "check", "--from", "datalog", program(tmp_path, TC))
    assert code == 2 and "pip install 'jtms-revision[clingo]'" in err


def test_facts_read_without_and_with_their_tree_are_the_same_evidence(tmp_path):
    """Plain facts take the fast path (their printed text); facts with strings, pools or a
    comparison body walk the tree: both are evidence, and a rule reads both."""
    text = 'p(1). p("a,b"). p(2;3). p(X) :- X = 4..5. q(X) :- p(X).\n'
    s = read_datalog(program(tmp_path, text)).structure
    assert sorted(s.evidence) == sorted(["p(1)", 'p("a,b")', "p(2)", "p(3)", "p(4)", "p(5)"])
    assert {j.claim: sorted(j.antecedents) for j in s.justifications}['q("a,b")'] == ['p("a,b")']
    assert len(s.claims) == 6


def test_the_summary_counts_what_the_full_check_finds(tmp_path, capsys):
    path = program(tmp_path, TC)
    code, out, _ = run(capsys, "check", path, "--from", "datalog", "--json")
    full = json.loads(out)
    code2, out, _ = run(capsys, "check", path, "--from", "datalog", "--summary", "--json")
    summary = json.loads(out)["summary"]
    unsafe = sum(not c["influence_safe"] for c in full["claims"])
    assert code == code2 == 1 and summary["unsafe"] == unsafe == 13
    assert summary["violations"] == sum(len(c["violations"]) for c in full["claims"])


def _graph_by_choices(text: str, evidence: list[str] | None = None) -> tuple[dict, set]:
    """The oracle: the graph as read when every fact went to the grounder as its own choice
    statement (``{edge(1,2)}.``) and clingo's solver held the ground program, the atoms named
    by clingo's symbolic atoms; its nodes (id -> kind) and justifications."""
    ast = pytest.importorskip("clingo.ast")
    parts: list[str] = []

    def add(statement):
        if statement.ast_type != ast.ASTType.Rule:
            return  # the test programs have rules only
        body = [str(b) for b in statement.body]
        if any(b.atom.ast_type == ast.ASTType.SymbolicAtom for b in statement.body):
            parts.append(str(statement))
        else:  # a fact, or a rule whose body has no atom: a choice
            parts.append(
                "{" + str(statement.head) + "}" + (" :- " + ", ".join(body)) * bool(body) + "."
            )

    ast.parse_string(text, add)
    facts: list[int] = []
    rules: list[tuple[int, list[int]]] = []

    class Observer:
        def rule(self, choice, head, body):
            if choice:
                facts.extend(head)
            elif head:
                rules.append((head[0], list(body)))

    control = clingo.Control(["--warn=none"])
    control.register_observer(Observer())
    control.add("base", [], "\n".join(parts))
    control.ground([("base", [])])
    names = {atom.literal: str(atom.symbol) for atom in control.symbolic_atoms}
    derived = {head for head, _ in rules}
    nodes: dict[str, str] = {}
    justifications = {(names[h], frozenset(names[b] for b in body)) for h, body in rules}
    for literal in set(facts):
        name = names[literal]
        auditable = evidence is None or name.split("(")[0] in evidence
        evidence_id = FACT_PREFIX + name if literal in derived else name
        if auditable:
            nodes[evidence_id] = "evidence"
            if literal in derived:
                justifications.add((name, frozenset([evidence_id])))
        else:
            justifications.add((name, frozenset()))
        if literal in derived or not auditable:
            nodes[name] = "claim"
    nodes.update((names[literal], "claim") for literal in derived)
    return nodes, justifications


GROUND_PROGRAMS = [
    (TC, None),
    (TC, ["edge"]),
    ('p(1). p("a,b"). p(2;3). p(X) :- X = 4..5. q(X) :- p(X). x. y :- x, q(1).\n', None),
    ("node(1..4). edge(1,2). edge(2,3). edge(4,3). source(1).\n"
     "reach(X) :- source(X). reach(Y) :- reach(X), edge(X,Y).\n"
     "sg(X,X) :- node(X). sg(X,Y) :- up(X,U), sg(U,V), up(Y,V). up(X,Y) :- edge(Y,X), X > Y.\n",
     ["edge"]),
    ("q((1,2),f(3)). q((2,3),f(3)). r(1..3). t(X,Z) :- q((X,Y),f(Z)), r(Y). _u(1). v :- _u(1).\n"
     "r(2) :- t(1,3). s(X) :- r(X), X < 3.\n", ["q", "_u"]),
]  # fmt: skip


@pytest.mark.parametrize("text, evidence", GROUND_PROGRAMS)
def test_the_graph_is_the_one_every_fact_as_a_choice_gave(tmp_path, text, evidence):
    """Facts through the hidden predicate and the ground program streamed into arrays give the
    graph that facts as choice statements and clingo's symbolic atoms gave (the oracle)."""
    s = read_datalog(program(tmp_path, text), evidence=evidence).structure
    nodes = {node_id: node.kind.value for node_id, node in s.nodes.items()}
    justifications = {(j.claim, j.antecedents) for j in s.justifications}
    assert (nodes, justifications) == _graph_by_choices(text, evidence)


def test_the_hidden_fact_prefix_is_refused_and_not_shown(tmp_path, capsys):
    code, _, err = run(
        capsys, "check", "--from", "datalog", program(tmp_path, "_jtms_fact_p(1).\n")
    )
    assert code == 2 and "reserved prefix _jtms_fact_" in err and "line 1" in err
    code, _, err = run(capsys, "check", "--from", "datalog", program(tmp_path, "p(1). q(X).\n"))
    assert code == 2 and "could not ground" in err and "_jtms_fact_" not in err, err
