"""Nogoods and their conflict sets: the graph format, and the SAT enumeration cross-checked
against brute force (theory.testing.reference) and clingo stable models, with and without cycles."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jtms.fuzz.clingo_oracle import clingo_conflict_sets
from theory.io.graphfile import dumps_graph, loads_graph
from theory.model.errors import InputError
from theory.model.structure import Nogood, SupportStructure
from theory.semantics.conflicts import conflict_sets, contradictions
from theory.testing import strategies as jst
from theory.testing.reference import brute_force_conflict_sets


def loop_world() -> SupportStructure:
    """x and y hold on a, b or c; l1 and l2 support each other, entered only through c."""
    return SupportStructure.build(
        evidence=["a", "b", "c"],
        claims=["x", "y", "l1", "l2", "p"],
        justifications=[
            ("x", ["a"]),
            ("x", ["b"]),
            ("y", ["b", "c"]),
            ("l1", ["l2"]),
            ("l2", ["l1"]),
            ("l1", ["c"]),
            ("p", []),
        ],
        nogoods=[
            Nogood("n1", frozenset({"x", "y"})),
            Nogood("loop", frozenset({"l2", "a"})),
            Nogood("premise", frozenset({"p"})),
        ],
    )


def test_conflict_sets_of_a_conjunction() -> None:
    g = loop_world()
    assert conflict_sets(g, ["x", "y"]) == {frozenset({"b", "c"})}
    assert conflict_sets(g, ["x"]) == {frozenset({"a"}), frozenset({"b"})}
    assert conflict_sets(g, ["l2", "a"]) == {frozenset({"a", "c"})}
    assert conflict_sets(g, ["p"]) == {frozenset()}


def test_support_loop_never_creates_a_conflict() -> None:
    g = SupportStructure.build(
        evidence=["e"], claims=["l1", "l2"], justifications=[("l1", ["l2"]), ("l2", ["l1"])]
    )
    assert conflict_sets(g, ["l1", "l2"]) == frozenset()
    (found,) = contradictions(g, [Nogood("n", frozenset({"l1"}))])
    assert not found.active and found.conflicts == frozenset()


def test_blocked_nodes_count_as_audited() -> None:
    g = loop_world()
    assert conflict_sets(g, ["x", "y"], blocked=["a"]) == {frozenset({"b", "c"})}
    assert conflict_sets(g, ["x"], blocked=["b"]) == {frozenset({"a"})}
    assert conflict_sets(g, ["x", "y"], blocked=["y"]) == frozenset()
    assert conflict_sets(g, ["l1"], blocked=["c"]) == frozenset()
    chain = SupportStructure.build(
        evidence=["e", "f"],
        claims=["x", "y"],
        justifications=[("x", ["y"]), ("x", ["e"]), ("y", ["f"])],
    )
    assert conflict_sets(chain, ["x"]) == {frozenset({"e"}), frozenset({"f"})}
    assert conflict_sets(chain, ["x"], blocked=["y"]) == {frozenset({"e"})}


def test_contradictions_report_activity_and_diagnosability() -> None:
    found = {c.nogood.id: c for c in contradictions(loop_world())}
    assert [c for c in found] == ["loop", "n1", "premise"]
    assert found["n1"].active and found["n1"].diagnosable
    assert found["premise"].active and not found["premise"].diagnosable
    blocked = {c.nogood.id: c for c in contradictions(loop_world(), blocked=["c"])}
    assert not blocked["n1"].active and blocked["n1"].conflicts == frozenset()


@pytest.mark.slow
@settings(max_examples=150)
@given(jst.graphs_with_nogoods(max_evidence=4, max_claims=5, cycles=True), st.data())
def test_conflict_sets_match_brute_force_and_clingo_with_cycles(
    g: SupportStructure, data: st.DataObject
) -> None:
    blocked = data.draw(jst.audits(g, max_size=2), label="blocked")
    for nogood in g.nogoods:
        expected = brute_force_conflict_sets(g, nogood.nodes, blocked)
        assert conflict_sets(g, nogood.nodes, blocked) == expected
        assert clingo_conflict_sets(g, nogood.nodes, blocked) == expected
    for found in contradictions(g, blocked=blocked):
        assert found.conflicts == brute_force_conflict_sets(g, found.nogood.nodes, blocked)


@pytest.mark.slow
@settings(max_examples=60)
@given(jst.graphs_with_nogoods(max_evidence=5, max_claims=6, cycles=False, redundant=True))
def test_conflict_sets_match_brute_force_acyclic(g: SupportStructure) -> None:
    for nogood in g.nogoods:
        assert conflict_sets(g, nogood.nodes) == brute_force_conflict_sets(g, nogood.nodes)


# --- the graph format ------------------------------------------------------------------

DOC = {
    "nodes": [
        {"id": "a", "kind": "evidence"},
        {"id": "x", "kind": "claim"},
        {"id": "y", "kind": "claim"},
    ],
    "justifications": [{"claim": "x", "antecedents": ["a"]}, {"claim": "y", "antecedents": ["a"]}],
    "nogoods": [{"id": "n1", "nodes": ["y", "x"], "text": "x and y contradict"}],
}


def test_nogoods_round_trip_through_the_graph_format() -> None:
    g = loads_graph(json.dumps(DOC))
    assert g.nogoods == (Nogood("n1", frozenset({"x", "y"}), "x and y contradict"),)
    again = loads_graph(dumps_graph(g))
    assert again.nogoods == g.nogoods
    assert json.loads(dumps_graph(g))["nogoods"] == [
        {"id": "n1", "nodes": ["x", "y"], "text": "x and y contradict"}
    ]
    plain = dict(DOC)
    del plain["nogoods"]
    assert "nogoods" not in json.loads(dumps_graph(loads_graph(json.dumps(plain))))


@pytest.mark.parametrize(
    "nogoods, message",
    [
        ({"id": "n1"}, "must be a list"),
        (["n1"], "nogoods[0] must be an object"),
        ([{"nodes": ["x"]}], "needs a non-empty string 'id'"),
        ([{"id": "n1", "nodes": []}], "at least one node"),
        ([{"id": "n1", "nodes": "x"}], "'nodes' must be a list of ids"),
        ([{"id": "n1", "nodes": ["x", "zz"]}], "unknown node 'zz'"),
        ([{"id": "x", "nodes": ["y"]}], "duplicate id"),
        ([{"id": "n1", "nodes": ["x"]}, {"id": "n1", "nodes": ["y"]}], "duplicate id"),
        ([{"id": "n1", "nodes": ["x"], "colour": "red"}], "unknown key(s) in a nogood: colour"),
        ([{"id": "n1", "nodes": ["x"], "text": 3}], "'text' must be a string"),
    ],
)
def test_bad_nogoods_are_rejected_with_one_line(nogoods: object, message: str) -> None:
    document = dict(DOC, nogoods=nogoods)
    with pytest.raises(InputError) as raised:
        loads_graph(json.dumps(document), source="g.json")
    assert message in str(raised.value) and str(raised.value).startswith("g.json")
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("name", ["theory.semantics.conflicts", "theory.semantics.diagnosis"])
def test_docstring_examples_run(name: str) -> None:
    import doctest
    import importlib

    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0
