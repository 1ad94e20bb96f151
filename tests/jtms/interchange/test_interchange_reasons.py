"""ftl-reasons networks in and out (jtms/interchange/reasons.py): the mapping on networks
ftl-reasons itself built, out-lists refused or dropped and listed, cycles through out-lists
refused, the store read without a write, and export then import as the identity (also through
ftl-reasons' own import_json)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from interchange_cases import exportable_graphs

from jtms.interchange.reasons import from_network, read_reasons, to_network
from theory.io.graphfile import graph_to_dict
from theory.model.errors import InputError
from theory.semantics.fixpoint import active_state

reasons = pytest.importorskip("reasons", reason="ftl-reasons is the `reasons` extra")


def same(imported, structure, audit) -> None:
    assert graph_to_dict(imported.structure) == graph_to_dict(structure)
    assert imported.audit == audit


@pytest.mark.slow
@settings(max_examples=150)
@given(exportable_graphs())
def test_export_then_import_is_the_identity(case):
    structure, audit = case
    imported = from_network(json.loads(json.dumps(to_network(structure, audit))))
    same(imported, structure, audit)
    assert imported.report.disagreements == () and imported.report.dropped_out_lists == ()


@pytest.mark.slow
@settings(max_examples=25)
@given(exportable_graphs())
def test_ftl_reasons_reads_the_export_back_to_the_same_graph(tmp_path_factory, case):
    """The export, read by ftl-reasons' import_json into its SQLite store, reads back the same;
    ftl-reasons' truth values agree with exact revision (no disagreement)."""
    from reasons.api import import_json

    structure, audit = case
    folder = tmp_path_factory.mktemp("ftl")
    exported = folder / "network.json"
    exported.write_text(json.dumps(to_network(structure, audit)), encoding="utf-8")
    import_json(str(exported), db_path=str(folder / "reasons.db"))
    imported = read_reasons(folder / "reasons.db")
    assert (
        graph_to_dict(imported.structure)["justifications"]
        == graph_to_dict(structure)["justifications"]
    )
    assert {n.id: n.text for n in imported.structure.nodes.values()} == {
        n.id: n.text for n in structure.nodes.values()
    }
    assert imported.audit == audit
    assert imported.report.disagreements == ()
    assert {(g.id, g.nodes) for g in imported.structure.nogoods} == {
        (g.id, g.nodes) for g in structure.nogoods
    }


def built_by_ftl(path: Path) -> None:
    """A network built with ftl-reasons' own API: observations, derived beliefs with
    alternatives, a retraction that cascades, a nogood (its backtracking retracts a premise)."""
    from reasons import Justification
    from reasons.network import Network
    from reasons.storage import Storage

    net = Network()
    net.add_node("obs-ci-green", "CI is green on main")
    net.add_node("obs-tests-pass", "the test suite passes locally")
    net.add_node("obs-review", "a reviewer approved the change")
    net.add_node("obs-flaky", "the CI run was flaky")
    net.add_node(
        "tested",
        "the change is tested",
        [Justification("SL", ["obs-ci-green"]), Justification("SL", ["obs-tests-pass"])],
    )
    net.add_node(
        "mergeable", "the change can be merged", [Justification("SL", ["tested", "obs-review"])]
    )
    net.add_node("deployable", "the change can be deployed", [Justification("CP", ["mergeable"])])
    net.retract("obs-ci-green", reason="the run was on the wrong branch")
    net.add_nogood(["obs-flaky", "obs-tests-pass"])
    storage = Storage(path)
    storage.save(net)
    storage.close()


def test_a_network_ftl_reasons_built_reads_as_its_graph_and_audit(tmp_path):
    built_by_ftl(tmp_path / "reasons.db")
    imported = read_reasons(tmp_path / "reasons.db")
    structure = imported.structure
    assert structure.evidence == {"obs-ci-green", "obs-tests-pass", "obs-review", "obs-flaky"}
    assert {(j.claim, j.antecedents) for j in structure.justifications} == {
        ("tested", frozenset({"obs-ci-green"})),
        ("tested", frozenset({"obs-tests-pass"})),
        ("mergeable", frozenset({"tested", "obs-review"})),
        ("deployable", frozenset({"mergeable"})),
    }
    assert structure.nodes["mergeable"].text == "the change can be merged"
    [nogood] = structure.nogoods
    assert nogood.nodes == {"obs-flaky", "obs-tests-pass"}
    # the retraction, and the premise ftl-reasons' backtracking retracted for the nogood
    assert "obs-ci-green" in imported.audit and len(imported.audit) == 2
    assert imported.report.notes == (
        "1 CP justification(s) read as SL (ftl-reasons evaluates them alike)",
    )
    assert imported.report.disagreements == ()  # ftl-reasons' labels are exact revision's


def test_the_json_export_of_ftl_reasons_reads_like_its_store(tmp_path):
    from reasons.api import export_network

    built_by_ftl(tmp_path / "reasons.db")
    exported = tmp_path / "network.json"
    exported.write_text(
        json.dumps(export_network(db_path=str(tmp_path / "reasons.db"))), encoding="utf-8"
    )
    from_store, from_json = read_reasons(tmp_path / "reasons.db"), read_reasons(exported)
    same(from_json, from_store.structure, from_store.audit)


def test_the_store_is_read_without_a_write(tmp_path):
    built_by_ftl(tmp_path / "reasons.db")
    before = sorted(p.name for p in tmp_path.iterdir())
    digest = hashlib.sha256((tmp_path / "reasons.db").read_bytes()).hexdigest()
    read_reasons(tmp_path / "reasons.db")
    assert hashlib.sha256((tmp_path / "reasons.db").read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def network(**nodes):
    return {"nodes": {n: {"text": n, "justifications": js} for n, js in nodes.items()}}


def test_an_out_list_is_refused_naming_the_node_and_the_justification():
    data = network(
        a=[],
        b=[],
        c=[
            {"type": "SL", "antecedents": ["a"]},
            {"type": "SL", "antecedents": ["a"], "outlist": ["b"]},
        ],
    )
    with pytest.raises(InputError) as error:
        from_network(data, "n.json")
    assert str(error.value).startswith("n.json: node 'c': justification 1 has the out-list ['b']")
    assert "--drop-out-lists" in str(error.value)


def test_drop_out_lists_drops_them_and_lists_them():
    data = network(a=[], b=[], c=[{"type": "SL", "antecedents": ["a"], "outlist": ["b"]}])
    imported = from_network(data, drop_out_lists=True)
    assert {(j.claim, j.antecedents) for j in imported.structure.justifications} == {
        ("c", frozenset({"a"}))
    }
    [dropped] = imported.report.dropped_out_lists
    assert (dropped.node, dropped.justification, dropped.out_list) == ("c", 0, ("b",))
    # b is IN, so ftl-reasons has c OUT; without the out-list c is active: reported, not hidden
    data["nodes"]["c"]["truth_value"] = "OUT"
    [disagreement] = from_network(data, drop_out_lists=True).report.disagreements
    assert (disagreement.node, disagreement.recorded, disagreement.computed) == ("c", "OUT", "IN")


@pytest.mark.parametrize(
    "loop",
    [
        network(
            p=[],
            a=[{"antecedents": ["p"], "outlist": ["b"]}],
            b=[{"antecedents": ["p"], "outlist": ["a"]}],
        ),
        network(p=[], a=[{"antecedents": ["p"], "outlist": ["a"]}]),
        network(p=[], a=[{"antecedents": ["b"]}], b=[{"antecedents": ["p"], "outlist": ["a"]}]),
    ],
    ids=["even loop", "odd self loop", "through an in-list"],
)
def test_a_cycle_through_out_lists_is_refused_even_when_dropping_them(loop):
    for drop in (False, True):
        with pytest.raises(InputError, match="a cycle through out-lists"):
            from_network(loop, drop_out_lists=drop)


def test_an_out_list_on_a_node_upstream_is_not_a_cycle():
    data = network(p=[], q=[{"antecedents": ["p"]}], a=[{"antecedents": ["p"], "outlist": ["q"]}])
    assert from_network(data, drop_out_lists=True).structure.claims == {"q", "a"}


@pytest.mark.parametrize(
    "data, message",
    [
        ({"nodes": [{"id": "a", "kind": "evidence"}]}, "this looks like a jtms graph file"),
        ([1, 2], "not an ftl-reasons network"),
        (network(c=[{"antecedents": ["ghost"]}]), "unknown node 'ghost'"),
        (network(c=[{"type": "XX", "antecedents": []}]), "type 'XX'"),
        (
            {"nodes": {"a": {"justifications": [], "truth_value": "MAYBE"}}},
            "truth_value must be IN or OUT",
        ),
        ({"nodes": {"a,b": {"justifications": []}}}, "comma"),
        (
            {"nodes": {"a": {"justifications": []}}, "nogoods": [{"id": "n", "nodes": ["zz"]}]},
            "unknown node",
        ),
    ],
)
def test_bad_networks_are_one_line(data, message):
    with pytest.raises(InputError) as error:
        from_network(data)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_retracted_nodes_are_the_audit():
    data = network(p=[], q=[], c=[{"antecedents": ["p"]}, {"antecedents": ["q"]}])
    data["nodes"]["p"].update(truth_value="OUT", retracted_at="2026-01-01T00:00:00+00:00")
    data["nodes"]["c"]["metadata"] = {"_retracted": True}  # the store's flag
    imported = from_network(data)
    assert imported.audit == {"p", "c"}
    assert active_state(imported.structure, blocked=imported.audit) == {"q"}


def test_an_unjustified_claim_is_refused_on_export():
    from theory.model.structure import SupportStructure

    with pytest.raises(InputError, match="no ftl-reasons counterpart"):
        to_network(SupportStructure.build(["e"], ["c"], []))
