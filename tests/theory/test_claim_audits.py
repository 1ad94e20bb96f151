"""Audits of claims and mixed audits: ``check_structure(audits=)`` and ``jtms check --audits``
against the brute-force comparison of the two rules over every audit of those nodes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings

from jtms.cli import main
from jtms.memory.memory import Memory
from theory import SupportStructure, active_state, exact, influence
from theory.model.errors import InputError
from theory.safety.check import (
    REDUNDANT_INFLUENCE,
    audited_items,
    check_structure,
    gated,
    summarize_structure,
)
from theory.testing import strategies as jst
from theory.testing.reference import brute_force_influence_safe

# the issue's example: m <- a; c <- m; c <- a
EXAMPLE = SupportStructure.build(["a"], ["m", "c"], [("m", ["a"]), ("c", ["m"]), ("c", ["a"])])


def _graph_file(tmp_path, structure: SupportStructure):
    path = tmp_path / "g.json"
    path.write_text(
        json.dumps(
            {
                "nodes": [
                    {"id": n, "kind": structure.kind(n).value} for n in sorted(structure.nodes)
                ],
                "justifications": [
                    {"claim": j.claim, "antecedents": sorted(j.antecedents)}
                    for j in structure.justifications
                ],
            }
        )
    )
    return str(path)


def test_the_issue_example_is_safe_for_evidence_and_unsafe_for_claims():
    assert "c" in influence(EXAMPLE, frozenset({"m"}))
    assert "c" not in exact(EXAMPLE, frozenset({"m"}))
    assert check_structure(EXAMPLE).influence_safe  # Theorem 1's audits: of evidence
    for audits in ("claims", "all"):
        report = check_structure(EXAMPLE, audits=audits)
        c = {r.id: r for r in report.claims}["c"]
        assert not report.influence_safe and not c.influence_safe
        assert [(v.kind, v.audit) for v in c.violations] == [(REDUNDANT_INFLUENCE, {"m"})]
        assert {r.id: r for r in report.claims}["m"].influence_safe


@pytest.mark.slow
def test_cli_check_audits_claims_on_the_issue_example(tmp_path, capsys):
    graph = _graph_file(tmp_path, EXAMPLE)
    assert main(["check", graph, "--json"]) == 0
    assert main(["check", graph, "--audits", "evidence", "--json"]) == 0
    capsys.readouterr()
    assert main(["check", graph, "--audits", "claims", "--json"]) == 1
    payload = json.loads(capsys.readouterr().out)
    c = {entry["id"]: entry for entry in payload["claims"]}["c"]
    assert c["violations"] == [
        {"kind": "redundant_influence", "audit": ["m"], "surviving_justification": ["c"]}
    ]
    assert main(["check", graph, "--audits", "all", "--summary", "--json"]) == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["summary"]["unsafe"] == 1
    assert main(["check", graph, "--audits", "claims"]) == 1
    assert "(audits of claims)" in capsys.readouterr().out


def test_cli_check_db_audits_claims(tmp_path, capsys):
    db = str(tmp_path / "m.db")
    with Memory.create(db) as memory:
        memory.add_evidence("a")
        memory.add_evidence("b")
        memory.add_claim("m", [["a"]])
        memory.add_claim("c", [["m"], ["a"]])
        memory.add_claim("d", [["b"]])
    assert main(["check", "--db", db, "--json"]) == 0
    capsys.readouterr()
    assert main(["check", "--db", db, "--audits", "claims", "--json"]) == 1
    entries = {e["id"]: e for e in json.loads(capsys.readouterr().out)["claims"]}
    assert [v["audit"] for v in entries["c"]["violations"]] == [["m"]]
    assert entries["d"]["influence_safe"]
    with Memory.open(db) as memory:  # with m audited, c's support is a alone
        memory.audit(["m"], reason="wrong")
    assert main(["check", "--db", db, "--audits", "claims", "--json"]) == 0
    assert main(["check", "--db", db, "--audits", "claims", "--summary", "--json"]) == 0


def test_unknown_audits_are_refused(tmp_path, capsys):
    with pytest.raises(InputError, match="unknown audits"):
        check_structure(EXAMPLE, audits="nodes")
    graph = _graph_file(tmp_path, EXAMPLE)
    with pytest.raises(SystemExit) as exit_:
        main(["check", graph, "--audits", "nodes"])
    assert exit_.value.code == 2


def test_a_claim_without_justification_is_an_ancestor_influence_follows():
    # c <- a; c <- m, and m has no justification: auditing m retires c by reachability only
    g = SupportStructure.build(["a"], ["m", "c"], [("c", ["a"]), ("c", ["m"])])
    assert "c" in influence(g, frozenset({"m"})) and "c" not in exact(g, frozenset({"m"}))
    c = {r.id: r for r in check_structure(g, audits="claims").claims}["c"]
    assert [v.audit for v in c.violations] == [{"m"}]


def test_the_gated_graph_keeps_the_active_state():
    h = gated(EXAMPLE, "claims")
    assert active_state(h) & EXAMPLE.claims == active_state(EXAMPLE) & EXAMPLE.claims
    assert gated(EXAMPLE, "evidence") is EXAMPLE


def _survives(structure, claim, items, survivor) -> bool:
    """``claim`` stays active when every item outside ``survivor`` is audited."""
    gone = frozenset(items) - survivor
    return claim not in exact(structure, gone) if gone else True


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(jst.support_structures(cycles=True, max_evidence=3, max_claims=5))
def test_safe_iff_the_unique_minimal_set_of_audited_nodes_is_the_audited_ancestry(structure):
    # the structural form (Boundary.refined on the gated graph's support function): safe iff
    # c has one minimal set of audited nodes deriving it, and it is the audited nodes that
    # are c or its ancestors
    for audits in ("claims", "all"):
        items = audited_items(structure, audits)
        for claim in check_structure(structure, audits=audits, max_listed=None).claims:
            if not claim.active:
                continue
            reach = {
                x
                for x in items
                if x == claim.id or claim.id in influence(structure, frozenset([x]))
            }
            structural = claim.minimal_justifications == {frozenset(reach)}
            assert structural == claim.influence_safe, (audits, claim)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(jst.support_structures(cycles=True, max_evidence=3, max_claims=5))
def test_verdicts_and_witnesses_equal_brute_force_for_claim_and_mixed_audits(structure):
    verdicts = {}
    for audits in ("evidence", "claims", "all"):
        items = audited_items(structure, audits)
        report = check_structure(structure, audits=audits)
        for claim in report.claims:
            expected = brute_force_influence_safe(structure, claim.id, items)
            assert claim.influence_safe == expected, (audits, claim)
            verdicts[audits, claim.id] = claim.influence_safe
            for v in claim.violations:  # a one-item witness that separates the rules
                assert len(v.audit) == 1 and v.audit <= items
                assert claim.id in influence(structure, v.audit)
                assert claim.id not in exact(structure, v.audit)
                survivor = v.surviving_justification
                assert survivor is not None and not (survivor & v.audit)
                assert _survives(structure, claim.id, items, survivor)
        summary = summarize_structure(structure, audits=audits)
        assert [(s.id, s.influence_safe, s.violation_count) for s in summary.claims] == [
            (c.id, c.influence_safe, len(c.violations)) for c in report.claims
        ]
    for claim in structure.claims:  # mixed audits: safe for both kinds of audit
        assert verdicts["all", claim] == (verdicts["evidence", claim] and verdicts["claims", claim])


def test_the_graph_enumeration_confirms_claim_and_mixed_audits():
    from enumerations.graphs import GraphFamily, graph_shard, iso_classes

    family = GraphFamily(2, 2, 3)
    reps, sizes, _ = iso_classes(family)
    tally = graph_shard(family, reps.tolist(), sizes.tolist())
    assert tally.disagreements == 0 and not tally.examples
    assert tally.claim_audits_safe + tally.claim_audits_unsafe == tally.active_claims
    assert tally.mixed_audits_safe + tally.mixed_audits_unsafe == tally.active_claims
    assert tally.claim_audits_unsafe > 0 and tally.mixed_audits_unsafe >= tally.unsafe_claims


def test_the_graph_enumeration_reports_a_checker_that_ignores_claim_audits(monkeypatch):
    from enumerations.graphs import GraphFamily, graph_shard, iso_classes
    from theory.safety import check

    # planted: the checker judges audits of claims as audits of evidence
    monkeypatch.setattr(check, "gated", lambda structure, audits: structure)
    family = GraphFamily(2, 2, 3)
    reps, sizes, _ = iso_classes(family)
    tally = graph_shard(family, reps.tolist(), sizes.tolist())
    assert tally.disagreements > 0 and "audits of claims" in tally.examples[0]
