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
    assert "--out-lists drop" in str(error.value)


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


def built_with_out_lists(seed: int):
    """A network built with ftl-reasons' own API: premises, derived nodes with alternatives,
    out-lists on earlier nodes, challenges and defenses (its out-list mechanism), in-lists and
    out-lists naming nodes it does not have, then retractions of premises and of derived nodes
    (with and without a reason) and premises asserted back. Returns ftl-reasons' Network."""
    import random

    from reasons import Justification
    from reasons.network import Network

    rng = random.Random(seed)
    net = Network()
    names: list[str] = []
    for k in range(rng.randint(3, 6)):
        net.add_node(f"p{k}", f"premise {k}")
        names.append(f"p{k}")
    for k in range(rng.randint(4, 12)):
        justifications = []
        for _ in range(rng.randint(1, 3)):
            in_list = rng.sample(names, rng.randint(0, min(3, len(names))))
            out_list = rng.sample(names, 1) if rng.random() < 0.35 else []
            if rng.random() < 0.08:
                in_list.append(f"ghost{k}")  # a reference the network does not have
            if rng.random() < 0.08:
                out_list.append(f"gone{k}")
            if not in_list and not out_list:
                in_list = [rng.choice(names)]
            justifications.append(Justification("SL", in_list, out_list))
        net.add_node(f"d{k}", f"derived {k}", justifications)
        names.append(f"d{k}")
    for _ in range(rng.randint(0, 2)):
        target = rng.choice(names)
        challenge = net.challenge(target, "doubt")["challenge_id"]
        if rng.random() < 0.5:
            net.defend(target, challenge, "answered")
    for _ in range(rng.randint(1, 4)):
        node = rng.choice(names)
        if net.nodes[node].truth_value == "IN":
            net.retract(node, reason=rng.choice(["", "wrong", "superseded"]))
    for node in rng.sample(names, 2):
        if net.nodes[node].truth_value == "OUT" and not net.nodes[node].justifications:
            net.assert_node(node)
    return net


def ftl_labels(net) -> set[str]:
    return {n for n, node in net.nodes.items() if node.truth_value == "IN"}


@pytest.mark.parametrize("seed", range(40))
def test_the_recorded_labels_are_reproduced_on_networks_ftl_reasons_built(tmp_path, seed):
    """--out-lists labels (the default for a labelled network): our active state under the
    network's retractions is ftl-reasons' own IN set, from its store and its JSON export."""
    from reasons.api import export_network
    from reasons.storage import Storage

    net = built_with_out_lists(seed)
    # ftl-reasons' propagation relabels a node at most once per change (a breadth-first walk
    # with a visited set), so in some hash orders a node keeps a label its own rules no longer
    # give; its recompute_all settles them. Such a label is a disagreement, tested below.
    net.recompute_all()
    storage = Storage(tmp_path / "reasons.db")
    storage.save(net)
    storage.close()
    exported = tmp_path / "network.json"
    exported.write_text(
        json.dumps(export_network(db_path=str(tmp_path / "reasons.db"))), encoding="utf-8"
    )
    for path in (tmp_path / "reasons.db", exported):
        imported = read_reasons(path)
        assert imported.report.out_list_mode == "labels"
        assert active_state(imported.structure, blocked=imported.audit) == ftl_labels(net)
        assert imported.report.disagreements == ()


def test_a_user_retraction_of_a_derived_node_is_the_audit(tmp_path):
    """retract_reason: ftl-reasons keeps a retracted derived node OUT while its justification
    holds; read without it, the node would be active (a disagreement)."""
    from reasons import Justification
    from reasons.network import Network

    net = Network()
    net.add_node("e", "evidence")
    net.add_node("c", "claim", [Justification("SL", ["e"])])
    net.add_node("d", "downstream", [Justification("SL", ["c"])])
    net.retract("c", reason="the reviewer rejected it")
    data = json.loads(json.dumps(_export(net)))
    data["nodes"]["c"]["retracted_at"] = ""  # as import_json leaves an older export
    imported = from_network(data)
    assert imported.audit == {"c"}
    assert active_state(imported.structure, blocked=imported.audit) == ftl_labels(net) == {"e"}
    assert imported.report.disagreements == ()
    net.assert_node("c")  # assert clears the flag and the stamp, not the reason
    data = json.loads(json.dumps(_export(net)))
    assert data["nodes"]["c"]["metadata"]["retract_reason"]
    assert from_network(data).audit == frozenset()


def _export(net) -> dict:
    """ftl-reasons' export_network shape of an in-memory Network (through its own store)."""
    import tempfile

    from reasons.api import export_network
    from reasons.storage import Storage

    with tempfile.TemporaryDirectory() as folder:
        storage = Storage(Path(folder) / "r.db")
        storage.save(net)
        storage.close()
        return export_network(db_path=str(Path(folder) / "r.db"))


def test_a_dangling_in_list_reference_is_out_with_a_warning_naming_it():
    data = network(a=[], c=[{"antecedents": ["a", "ghost"]}, {"antecedents": ["b"]}], b=[])
    data["nodes"]["d"] = {
        "text": "",
        "justifications": [{"antecedents": ["a"], "outlist": ["gone"]}],
    }
    imported = from_network(data, out_lists="drop")
    assert {(j.claim, j.antecedents) for j in imported.structure.justifications} == {
        ("c", frozenset({"b"})),
        ("d", frozenset({"a"})),
    }
    assert [(d.node, d.justification, d.missing, d.side) for d in imported.report.dangling] == [
        ("c", 0, "ghost", "in"),
        ("d", 0, "gone", "out"),
    ]
    lines = imported.report.lines()
    assert any("'ghost'" in line and "never holds" in line for line in lines)
    assert any("'gone'" in line and "never defeats" in line for line in lines)
    only = network(c=[{"antecedents": ["ghost"]}])  # its one justification never holds: OUT
    assert active_state(from_network(only).structure) == set()


def test_out_lists_at_the_recorded_labels_defeat_or_keep_each_justification():
    data = network(a=[], b=[], c=[{"antecedents": ["a"], "outlist": ["b"]}, {"antecedents": ["b"]}])
    for node, label in (("a", "IN"), ("b", "OUT"), ("c", "IN")):
        data["nodes"][node]["truth_value"] = label
    data["nodes"]["b"]["retracted_at"] = "2026-01-01T00:00:00+00:00"
    imported = from_network(data)  # labelled: labels is the default
    assert imported.report.out_list_mode == "labels"
    assert {(j.claim, j.antecedents) for j in imported.structure.justifications} == {
        ("c", frozenset({"a"})),
        ("c", frozenset({"b"})),
    }
    [evaluated] = imported.report.evaluated_out_lists
    assert evaluated.defeaters == ()
    data["nodes"]["b"].update(truth_value="IN", retracted_at="")
    data["nodes"]["c"]["truth_value"] = "IN"
    imported = from_network(data)
    assert {(j.claim, j.antecedents) for j in imported.structure.justifications} == {
        ("c", frozenset({"b"})),
    }
    assert imported.report.evaluated_out_lists[0].defeaters == ("b",)
    with pytest.raises(InputError, match="node 'a': --out-lists labels"):
        from_network(
            network(a=[], c=[{"antecedents": ["a"], "outlist": ["a"]}]), out_lists="labels"
        )


def test_disagreements_are_counted_beside_the_verdict():
    data = network(a=[], c=[{"antecedents": ["a"]}])
    data["nodes"]["a"]["truth_value"] = "IN"
    data["nodes"]["c"]["truth_value"] = "OUT"  # a label ftl-reasons' rules do not give
    report = from_network(data).report
    assert report.headline() == (
        "DISAGREES with the source: 1 of 2 recorded label(s) differ "
        "(1 recorded OUT computed IN, 0 recorded IN computed OUT)"
    )
    data["nodes"]["c"]["truth_value"] = "IN"
    assert from_network(data).report.headline() == (
        "the computed state agrees with all 2 recorded label(s)"
    )
    assert from_network(network(a=[])).report.headline() is None


def test_a_label_ftl_reasons_own_rules_do_not_give_is_a_disagreement():
    """ftl-reasons' propagation can leave d OUT while its justification "unless b" holds (b
    went OUT after d was relabelled): computed IN, reported, never hidden."""
    data = network(a=[], b=[{"antecedents": ["a"]}], d=[{"antecedents": [], "outlist": ["b"]}])
    labels = {"a": "OUT", "b": "OUT", "d": "OUT"}
    for node, label in labels.items():
        data["nodes"][node]["truth_value"] = label
    data["nodes"]["a"]["retracted_at"] = "2026-01-01T00:00:00+00:00"
    imported = from_network(data)
    assert [(d.node, d.recorded, d.computed) for d in imported.report.disagreements] == [
        ("d", "OUT", "IN")
    ]
