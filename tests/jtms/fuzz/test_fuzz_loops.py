"""Issue 59, the fuzzer: loops of two or more claims and retiring audits in a fair share of
the generated cases (the census), the loop-only counting bug found at the defaults on every
seed, the shrinker within the generation options, counterexamples replayed by ``jtms
revise`` (the audit recorded in the ``--out`` file, the user's rule), and a rule returning an
id that is not in the graph reported as an error naming it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import Phase, given
from hypothesis import seed as hypothesis_seed

from jtms.cli import main
from jtms.fuzz.runner import GraphOptions, compare, fuzz_rule, hypothesis_settings, renumbered
from tests.cli_helpers import refused
from tests.fixtures.loop_rules import counting_without_self_loops, returns_unknown_id
from theory import SupportStructure, exact, influence, load_graph
from theory.testing import strategies as jst
from theory.testing.census import Census, case_features

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def census_of(strategy, examples: int, seed: int) -> dict[str, float]:
    census = Census()

    @hypothesis_seed(seed)
    @hypothesis_settings(examples, (Phase.generate,))
    @given(strategy)
    def run(case):
        census.add(*case)

    run()
    assert census.examples == examples
    return census.shares()


def test_case_features_name_loops_and_what_the_audit_retires():
    g = SupportStructure.build(
        ["e", "f"], ["a", "b", "s"], [("a", ["e"]), ("a", ["b"]), ("b", ["a"]), ("s", ["s", "f"])]
    )
    features = case_features(g, frozenset({"e"}))
    assert features["loop"] and features["retires_loop"] and features["retires_claim"]
    assert features["self_loop"]  # s <- s, f: never active, but a self loop
    plain = SupportStructure.build(["e"], ["a"], [("a", ["e"])])
    assert case_features(plain, frozenset()) == {
        "self_loop": False,
        "loop": False,
        "empty_audit": True,
        "retires_nothing": True,
        "retires_claim": False,
        "retires_loop": False,
    }
    quiet = case_features(g, frozenset({"s"}))  # s is inactive: auditing it retires nothing
    assert quiet["retires_nothing"] and not quiet["retires_loop"] and not quiet["empty_audit"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, strategy",
    [("jtms fuzz", GraphOptions().strategy()), ("graphs_with_audits", jst.graphs_with_audits())],
)
def test_census_of_1000_examples_meets_the_stated_distribution(name, strategy):
    # docs/fuzzing.md: at least a quarter of the graphs with a loop of two or more claims,
    # at most a tenth of the audits empty or retiring nothing
    shares = census_of(strategy, 1000, seed=1)
    assert shares["loop"] >= 0.25, (name, shares)
    assert shares["empty_audit"] <= 0.10, (name, shares)
    assert shares["retires_nothing"] <= 0.10, (name, shares)
    assert shares["retires_loop"] >= 0.05, (name, shares)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_counting_that_ignores_self_loops_is_found_at_the_defaults(seed):
    report = fuzz_rule(counting_without_self_loops, seed=seed, shrink=False)
    assert report.examples == 1000 and report.counterexamples > 0
    assert report.kinds["under"] == report.counterexamples


def test_the_loop_rule_is_exact_on_self_loops_and_wrong_on_a_two_claim_loop():
    self_loop = SupportStructure.build(["e"], ["c"], [("c", ["e"]), ("c", ["c"])])
    assert counting_without_self_loops(self_loop, frozenset({"e"})) == {"e", "c"}
    two = SupportStructure.build(["e"], ["a", "b"], [("a", ["e"]), ("a", ["b"]), ("b", ["a"])])
    assert exact(two, frozenset({"e"})) == {"e", "a", "b"}
    assert counting_without_self_loops(two, frozenset({"e"})) == {"e"}


@pytest.mark.slow
def test_the_shrunk_loop_counterexample_is_the_two_claim_loop_renumbered():
    report = fuzz_rule(counting_without_self_loops, seed=3, examples=300)
    found = report.counterexample
    assert found is not None
    assert found.structure.evidence == {"e0"} and found.structure.claims == {"c0", "c1"}
    assert found.audit == {"e0"} and found.discrepancy.under_revised == {"c0", "c1"}


@pytest.mark.slow
@pytest.mark.parametrize("premises", [False, True])
def test_the_shrinker_keeps_the_generation_options(premises):
    # influence over-revises c <- e0 | c <- e1 on the audit {e0}; dropping e1 from the second
    # justification (a premise c <- []) still fails, which --no-premises never generates
    options = GraphOptions(premises=premises, cycles=False)
    report = fuzz_rule(influence, seed=1, examples=300, options=options)
    graph = report.counterexample.structure
    empty = [j for j in graph.justifications if not j.antecedents]
    assert bool(empty) == premises  # with premises allowed it shrinks to the premise
    assert report.counterexample.audit  # never an empty audit


def test_renumbered_ids_follow_their_order_and_keep_the_texts():
    g = SupportStructure.build(
        ["e3", "e10"], ["c7", "c2"], [("c7", ["e10", "c2"]), ("c2", ["e3"])], texts={"c7": "x"}
    )
    renamed, audit = renumbered(g, frozenset({"e10"}))
    assert renamed.evidence == {"e0", "e1"} and renamed.claims == {"c0", "c1"}
    assert audit == {"e1"} and renamed.nodes["c1"].text == "x"
    assert {(j.claim, j.antecedents) for j in renamed.justifications} == {
        ("c1", frozenset({"e1", "c0"})),
        ("c0", frozenset({"e0"})),
    }


def test_a_rule_returning_an_unknown_id_is_an_error_naming_it():
    g = SupportStructure.build(["e"], ["c"], [("c", ["e"])])
    mismatch = compare(returns_unknown_id, g, frozenset({"e"}))
    assert mismatch is not None and mismatch.kinds == ("error",)
    assert "'ghost'" in mismatch.error and "not a node of the graph" in mismatch.error


@pytest.fixture
def rules_dir(tmp_path, monkeypatch):
    shutil.copy(FIXTURES / "loop_rules.py", tmp_path / "userrules.py")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


@pytest.mark.slow
def test_out_records_the_audit_and_revise_replays_it_through_the_users_rule(rules_dir, capsys):
    out = rules_dir / "ce.json"
    rule = "userrules:counting_without_self_loops"
    argv = ["fuzz", "--rule", rule, "--seed", "3", "--examples", "300", "--no-premises"]
    assert main([*argv, "--json", "--out", str(out)]) == 1
    ce = json.loads(capsys.readouterr().out)["counterexample"]
    written = json.loads(out.read_text())
    assert written["counterexample"]["audit"] == ce["audit"] == ["e0"]
    assert written["counterexample"]["rule"] == rule
    load_graph(out)  # the graph format reads it
    assert main(["revise", str(out), "--rule", rule, "--json"]) == 0
    replay = json.loads(capsys.readouterr().out)
    assert replay["rule"] == rule and replay["audit"] == ["e0"]
    assert replay["retired"] == ce["rule_retired"]
    assert main(["revise", str(out), "--json"]) == 0  # exact, the expected answer
    assert json.loads(capsys.readouterr().out)["retired"] == ce["exact_retired"]
    assert main(["revise", str(out), "--audit", "e0", "--rule", rule, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["retired"] == ce["rule_retired"]
    assert all(j["antecedents"] for j in written["justifications"])  # --no-premises held


def test_revise_refuses_a_rule_returning_an_unknown_id_and_a_file_without_audit(rules_dir, capsys):
    graph = rules_dir / "g.json"
    graph.write_text(
        json.dumps(
            {
                "nodes": [{"id": "e", "kind": "evidence"}, {"id": "c", "kind": "claim"}],
                "justifications": [{"claim": "c", "antecedents": ["e"]}],
            }
        )
    )
    refused(
        capsys,
        ["revise", str(graph), "--audit", "e", "--rule", "userrules:returns_unknown_id"],
        "rule userrules:returns_unknown_id returned 'ghost', which is not a node of the graph",
    )
    refused(capsys, ["revise", str(graph)], "records no counterexample audit")
    refused(capsys, ["revise", str(graph), "--audit", "e", "--rule", "userrules:nope"], "nope")
    document = json.loads(graph.read_text())
    document["counterexample"] = {"audit": ["x"]}
    graph.write_text(json.dumps(document))
    refused(capsys, ["check", str(graph)], "'counterexample.audit' names an unknown id")
    document["counterexample"] = {"audit": ["e"], "seed": 1}
    graph.write_text(json.dumps(document))
    refused(capsys, ["revise", str(graph)], "unknown key(s) in 'counterexample'")


@pytest.mark.slow
def test_the_fuzz_rule_example_of_the_docs_runs(capsys):
    text = (Path(__file__).resolve().parents[3] / "docs" / "fuzzing.md").read_text()
    blocks = [b.split("```", 1)[0] for b in text.split("```python\n")[1:]]
    (example,) = [b for b in blocks if b.startswith("from jtms.fuzz import")]
    exec(compile(example, "docs/fuzzing.md", "exec"), {})
    assert "'loop'" in capsys.readouterr().out
