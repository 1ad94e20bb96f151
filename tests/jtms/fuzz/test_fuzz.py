"""`jtms fuzz`: rule fuzzing with shrinking, the clingo oracle and the differential campaign."""

import json
import textwrap

import pytest
from hypothesis import given, settings

from jtms.cli import main
from jtms.cli.commands.fuzz import DEFAULT_EXAMPLES
from jtms.fuzz.backends import FunctionBackend, engine_backend
from jtms.fuzz.clingo_oracle import ClingoOracle, fresh_active_state, program_text
from jtms.fuzz.differential import differential_campaign
from jtms.fuzz.plugins import load_rule
from jtms.fuzz.runner import GraphOptions, compare, fuzz_rule, reduce_case
from jtms.fuzz.shapes import shape
from theory import InputError, SupportStructure, active_state, exact, influence, load_graph, none
from theory.testing import strategies as jst

pytestmark = pytest.mark.slow


def loop_graph():
    return SupportStructure.build(["p"], ["A", "B"], [("A", ["p"]), ("A", ["B"]), ("B", ["A"])])


# --- the clingo oracle -----------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["backend", "text"])
def test_oracle_drops_a_support_loop_with_its_entry_point(encoding):
    oracle = ClingoOracle(loop_graph(), encoding=encoding)
    assert oracle.active() == {"p", "A", "B"}
    assert oracle.active({"p"}) == frozenset()
    assert oracle.active({"B"}) == {"p", "A"}
    assert oracle.active() == {"p", "A", "B"}  # externals are reset between audits
    assert oracle.retired({"p"}) == {"p", "A", "B"}
    assert fresh_active_state(loop_graph(), {"p"}) == frozenset()


def test_oracle_premises_unjustified_claims_and_odd_ids():
    structure = SupportStructure.build(
        ['e "1"'], ["premise", "orphan", "c\\x"], [("premise", []), ("c\\x", ['e "1"', "premise"])]
    )
    assert ClingoOracle(structure).active() == {'e "1"', "premise", "c\\x"}
    assert ClingoOracle(structure, "text").active({"premise"}) == {'e "1"'}
    assert fresh_active_state(structure) == {'e "1"', "premise", "c\\x"}
    assert fresh_active_state(structure, {'e "1"'}) == {"premise"}
    assert '#external off("premise").' in program_text(structure)


@settings(max_examples=60)
@given(jst.graphs_with_audits(cycles=True, max_evidence=4, max_claims=6))
def test_oracle_encodings_agree_with_each_other_and_theory(case):
    structure, audit = case
    expected = active_state(structure, blocked=audit)
    assert ClingoOracle(structure).active(audit) == expected
    assert ClingoOracle(structure, "text").active(audit) == expected
    assert fresh_active_state(structure, audit) == expected


# --- comparing and reducing ------------------------------------------------------------


def test_compare_names_under_and_over_revision():
    structure = SupportStructure.build(
        ["a", "b"], ["c", "d"], [("c", ["a"]), ("c", ["b"]), ("d", ["a"])]
    )
    d = compare(none, structure, frozenset({"a"}))
    assert d.under_revised == {"d"} and d.over_revised == frozenset() and d.kinds == ("under",)
    d = compare(influence, structure, frozenset({"a"}))
    assert d.over_revised == {"c"} and d.under_revised == frozenset() and d.kinds == ("over",)
    assert compare(exact, structure, frozenset({"a"})) is None

    def crashing(structure, audit):
        raise RuntimeError("boom")

    d = compare(crashing, structure, frozenset({"a"}))
    assert d.kinds == ("error",) and "RuntimeError: boom" in d.error


def test_reduce_case_keeps_only_what_the_failure_needs():
    structure = SupportStructure.build(
        ["a", "b", "x"],
        ["c", "d", "noise"],
        [("c", ["a"]), ("c", ["b"]), ("d", ["c", "x"]), ("noise", ["x"])],
    )
    small, audit = reduce_case(
        structure, frozenset({"a", "x"}), lambda s, a: compare(influence, s, a) is not None
    )
    assert len(small.nodes) == 2 and len(audit) == 1
    assert compare(influence, small, audit) is not None


def test_shape_ignores_names():
    one = SupportStructure.build(["a", "b"], ["c"], [("c", ["a"]), ("c", ["b"])])
    two = SupportStructure.build(["x", "y"], ["z"], [("z", ["y"]), ("z", ["x"])])
    three = SupportStructure.build(["x", "y"], ["z"], [("z", ["x", "y"])])
    assert shape(one, {"a"}) == shape(two, {"y"})
    assert shape(one) != shape(three)


# --- fuzzing rules ---------------------------------------------------------------------


def test_exact_passes():
    report = fuzz_rule(exact, examples=200, seed=7, options=GraphOptions(max_depth=3, max_fan_in=3))
    assert report.ok and report.examples == 200 and report.counterexample is None
    assert report.distinct_shapes > 100


def test_a_subtle_rule_is_caught():
    """A rule that ignores support loops (keeps a claim if any justification has an active
    antecedent) passes on DAGs but is wrong on cycles."""

    def sloppy(structure, audit):
        before = active_state(structure)
        after = {
            n
            for n in before - audit
            if n in structure.evidence
            or any(
                all(a in before and a not in audit for a in j.antecedents)
                for j in structure.justifications_of[n]
            )
        }
        return frozenset(before - after)

    report = fuzz_rule(sloppy, examples=200, seed=3, options=GraphOptions(cycles=True))
    assert report.counterexample is not None
    assert report.counterexample.to_dict()["size"]["nodes"] <= 4


def test_load_rule_errors():
    for spec in [
        "nosuch_module_xyz:f",
        "theory.semantics.revision:nope",
        "theory.semantics.revision:RULES",
        "exactly",
        "x:",
    ]:
        with pytest.raises(InputError):
            load_rule(spec)


# --- the CLI ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["none", "influence"])
def test_cli_catches_builtin_rules_within_the_default_budget(name, tmp_path, capsys):
    # 300 examples (a third of the default budget) keep the test fast
    assert DEFAULT_EXAMPLES >= 300
    out = tmp_path / "ce.json"
    code = main(
        [
            "fuzz",
            "--rule",
            f"theory.semantics.revision:{name}",
            "--seed",
            "1",
            "--examples",
            "300",
            "--json",
            "--out",
            str(out),
        ]
    )
    payload = json.loads(capsys.readouterr().out)
    assert code == 1
    assert payload["examples"] == 300 and payload["counterexamples"] > 0
    kind = "under" if name == "none" else "over"
    assert payload["counterexample_kinds"][kind] == payload["counterexamples"]
    ce = payload["counterexample"]
    graph = load_graph(out)  # a valid graph file in the docs/design.md format
    written = json.loads(out.read_text())
    assert written.pop("counterexample") == {
        "audit": ce["audit"],
        "rule": f"theory.semantics.revision:{name}",
        "exact_retired": ce["exact_retired"],
        "rule_retired": ce["rule_retired"],
    }
    assert written == ce["graph"]
    audit = frozenset(ce["audit"])
    assert exact(graph, audit) == set(ce["exact_retired"])
    assert {"none": none, "influence": influence}[name](graph, audit) == set(ce["rule_retired"])
    assert ce["size"]["nodes"] == 2 and len(ce["audit"]) == 1
    assert ce[f"{kind}_revised"] and ce["shrinking"]["after_hypothesis"]["nodes"] <= 3


def test_cli_exact_passes_and_readable_output(capsys):
    assert main(["fuzz", "--rule", "exact", "--examples", "150", "--seed", "2"]) == 0
    assert "no counterexample" in capsys.readouterr().out


def test_cli_user_rule_from_the_current_directory(tmp_path, monkeypatch, capsys):
    (tmp_path / "myrules.py").write_text(
        textwrap.dedent("""
        from theory.semantics.revision import exact, influence

        def cautious(structure, audit):
            return exact(structure, audit) | {"made-up"}
    """)
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["fuzz", "--rule", "myrules:cautious", "--examples", "100", "--seed", "0"]) == 1
    text = capsys.readouterr().out
    # an id that is not in the graph is an error naming it, not an over-revision
    assert (
        "the rule failed: the rule returned" in text
        and "'made-up'" in text
        and '"nodes": [' in text
    )
    assert "over-revised" not in text


@pytest.mark.parametrize(
    "argv",
    [
        ["fuzz", "--rule", "no_such_module_abc:rule"],
        ["fuzz", "--rule", "theory.semantics.revision:RULES"],
        ["fuzz"],
        ["fuzz", "--rule", "exact", "--differential"],
        ["fuzz", "--rule", "exact", "--examples", "0"],
        ["fuzz", "--differential", "--backend", "theory.semantics.fixpoint:nope"],
        ["fuzz", "--rule", "exact", "--max-depth", "0"],
        ["fuzz", "--rule", "exact", "--max-fan-in", "-1"],
        ["fuzz", "--differential", "--backend", "os:getcwd", "--examples", "20"],  # wrong signature
    ],
)
def test_cli_bad_input_exits_2_with_one_line(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("jtms: error:") and err.count("\n") == 1


# --- the differential campaign ---------------------------------------------------------


def test_short_differential_campaign_finds_no_disagreement():
    report = differential_campaign(
        2000,
        seed=11,
        backends=[FunctionBackend("theory.semantics.fixpoint:active_state", active_state)],
    )
    assert report.ok and report.pairs >= 2000
    assert 0 < report.cyclic_graphs < report.graphs and report.sequence_steps > 0


def greatest_fixpoint(structure, blocked):
    """The peers' bug: a support loop keeps itself alive."""
    alive = set(structure.nodes) - set(blocked)
    changed = True
    while changed:
        changed = False
        for c in sorted(alive & structure.claims):
            if not any(j.antecedents <= alive for j in structure.justifications_of[c]):
                alive.discard(c)
                changed = True
    return frozenset(alive)


def test_differential_campaign_catches_a_loop_keeping_itself_alive():
    report = differential_campaign(
        3000, seed=1, backends=[FunctionBackend("gfp", greatest_fixpoint)]
    )
    assert not report.ok and report.disagreement.what.startswith("gfp")
    # c0 <- c0, or the loop c0 <- c1, c1 <- c0 that the strategies plant: clingo says inactive
    assert report.minimized["size"]["nodes"] <= 2
    assert report.minimized["graph"]["justifications"] in (
        [{"claim": "c0", "antecedents": ["c0"]}],
        [{"claim": "c0", "antecedents": ["c1"]}, {"claim": "c1", "antecedents": ["c0"]}],
    )


def test_cli_differential(capsys):
    code = main(["fuzz", "--differential", "--examples", "800", "--seed", "5", "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and payload["disagreements"] == 0 and payload["pairs"] >= 800
    assert payload["checked"][:2] == ["theory.active_state", "theory.exact"]
    assert engine_backend().name in payload["checked"] and not payload["skipped_backends"]


def test_cli_differential_reports_a_broken_backend(tmp_path, monkeypatch, capsys):
    (tmp_path / "peer.py").write_text(
        "from tests.jtms.fuzz.test_fuzz import greatest_fixpoint as active\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "d.json"
    assert (
        main(
            [
                "fuzz",
                "--differential",
                "--backend",
                "peer:active",
                "--examples",
                "2000",
                "--seed",
                "1",
                "--out",
                str(out),
            ]
        )
        == 1
    )
    assert "DISAGREEMENT" in capsys.readouterr().out
    assert len(load_graph(out).nodes) <= 2  # a self loop or a planted two-claim loop


# --- the engine hook -------------------------------------------------------------------


class FakeMemory:
    """The slice of issue 5's ``jtms.memory.memory.Memory`` API the hook uses, over theory
    (counted blocks, whole-audit reinstatement), so the adapter is tested without the engine."""

    forget_reinstated_claims = False

    @classmethod
    def create(cls, path, durability="full"):
        return cls()

    def import_graph(self, structure, source="<graph>"):
        self.structure, self.audits, self.next_id = structure, {}, 1

    def blocked(self):
        return frozenset().union(*self.audits.values())

    def active_ids(self):
        return active_state(self.structure, blocked=self.blocked())

    def preview(self, roots):
        class Result:
            retired = exact(self.structure, frozenset(roots))

        return Result()

    def audit(self, roots, reason):
        class Result:
            audit_id = self.next_id

        self.audits[self.next_id] = frozenset(roots)
        self.next_id += 1
        return Result()

    def reinstate(self, audit_id, reason=None):
        del self.audits[audit_id]
        if self.forget_reinstated_claims:  # a bug: claims do not come back
            self.structure = SupportStructure.build(
                self.structure.evidence,
                self.structure.claims,
                [
                    j
                    for j in self.structure.justifications
                    if not j.antecedents & self.structure.evidence
                ],
            )

    def close(self):
        pass


def test_engine_adapter_replays_partial_reinstatements():
    from jtms.fuzz.backends import EngineBackend

    report = differential_campaign(1500, seed=3, backends=[EngineBackend(FakeMemory)])
    assert report.ok and report.sequence_steps > 0 and "jtms-engine" in report.backends

    class Buggy(FakeMemory):
        forget_reinstated_claims = True

    report = differential_campaign(3000, seed=3, backends=[EngineBackend(Buggy)])
    assert not report.ok and report.disagreement.what == "jtms-engine (sequence)"
    steps = report.minimized["sequence"]
    assert [s["action"] for s in steps][-1] == "reinstate"
