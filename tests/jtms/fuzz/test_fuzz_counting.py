"""`jtms fuzz --rule counting` finds the support loop that keeps itself and shrinks it to the
smallest loop; DRed passes, and DRed with a re-derivation round skipped is caught
(examples/dred.py, docs/fuzzing.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jtms.cli import main

pytestmark = pytest.mark.slow  # each campaign runs hundreds of examples (seconds)

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def fuzz(capsys, rule, *extra):
    code = main(["fuzz", "--rule", rule, "--seed", "1", "--examples", "1000", "--json", *extra])
    return code, json.loads(capsys.readouterr().out)


def shape(counterexample):
    """The counterexample as (evidence, claims, justifications, audit) counts and pairs."""
    graph = counterexample["graph"]
    kinds = [n["kind"] for n in graph["nodes"]]
    pairs = sorted((j["claim"], tuple(j["antecedents"])) for j in graph["justifications"])
    return kinds.count("evidence"), kinds.count("claim"), pairs, counterexample["audit"]


def test_counting_is_caught_and_shrunk_to_the_smallest_loop(capsys):
    code, report = fuzz(capsys, "counting")
    assert code == 1 and report["counterexample_kinds"]["over"] == 0
    assert report["counterexample_kinds"]["under"] == report["counterexamples"] > 0
    evidence, claims, pairs, audit = shape(report["counterexample"])
    # the smallest loop of its shape: a claim on a loop of its own (c0 <- c0; c0 <- e0) or the
    # planted loop of two (c0 <- c1; c1 <- c0; c1 <- e0), whose one outside support is audited
    (e,) = audit
    assert evidence == 1 and claims in (1, 2) and len(pairs) == claims + 1
    outside = [p for p in pairs if e in p[1]]
    inside = [p for p in pairs if e not in p[1]]
    assert outside == [(outside[0][0], (e,))]
    assert {c for c, _ in inside} == {a for _, ants in inside for a in ants}  # a cycle


def test_dred_passes_and_dred_skipping_a_round_is_caught(capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    code, report = fuzz(capsys, "dred:dred")
    assert code == 0 and report["counterexamples"] == 0
    code, report = fuzz(capsys, "dred:dred_skipping_a_round")
    assert code == 1 and report["counterexample_kinds"]["under"] == 0
    evidence, claims, pairs, audit = shape(report["counterexample"])
    # a premise that also rests on the audited evidence: over-deleted, never re-derived
    assert (evidence, claims, len(pairs), len(audit)) == (1, 1, 2, 1)
    assert sorted(antecedents for _, antecedents in pairs) == [(), tuple(audit)]
