"""The four studies: endpoints, injected wrong rules, the AND/OR pair byte identity, the CLI."""

from __future__ import annotations

import json

import pytest

from theory import revision
from theory.fixpoint import active_state
from theory.structure import SupportStructure

from jtms.cli import main
from jtms.studies import common, diagnosis, heterogeneous, revisionpair, scimap
from jtms.studies.common import (Answer, Question, answer, contaminated_citations, embed,
                                 embedding_bytes, grounded, parse_context)
from jtms.fuzz.clingo_oracle import ClingoOracle


def values(result, key):
    return next(e for e in result.endpoints if e.key == key).values


# --- seeded wrong rules -----------------------------------------------------------------------
def and_only(structure: SupportStructure, audit: frozenset) -> frozenset:
    """Wrong: reads every claim's justifications as one conjunction (loses the OR grouping)."""
    merged = [(c, frozenset().union(*(j.antecedents for j in js)))
              for c, js in structure.justifications_of.items() if js]
    flat = SupportStructure.build(structure.evidence, structure.claims, merged)
    before = active_state(structure)
    return frozenset(before - active_state(flat, blocked=audit)) & before


def greatest_fixpoint(structure: SupportStructure, audit: frozenset) -> frozenset:
    """Wrong: a support loop keeps itself alive (greatest instead of least fixpoint)."""
    before = active_state(structure)
    alive = set(before) - set(audit)
    changed = True
    while changed:
        changed = False
        for claim in structure.claims:
            if claim in alive and not any(j.antecedents <= alive for j in structure.justifications_of[claim]):
                alive.discard(claim)
                changed = True
    return frozenset(before - alive)


# --- RevisionPair -------------------------------------------------------------------------------
def test_revisionpair_endpoints():
    result = revisionpair.run()
    assert values(result, "worlds_repaired_exactly") == {"exact": 80, "none": 40, "influence": 40}
    assert values(result, "and_worlds_repaired") == {"exact": 40, "none": 0, "influence": 40}
    assert values(result, "or_worlds_repaired") == {"exact": 40, "none": 40, "influence": 0}
    assert result.details["pairs_influence_cannot_distinguish"] == 40
    assert result.failures() == []


def test_pairs_identical_but_for_grouping():
    worlds = revisionpair.generate()
    assert len(worlds) == 80
    for and_world, or_world in zip(worlds[0::2], worlds[1::2]):
        assert (and_world.grouping, or_world.grouping) == ("AND", "OR")
        assert all(revisionpair.pair_check(and_world, or_world).values())
        for x, y in zip(and_world.nodes, or_world.nodes, strict=True):
            assert embedding_bytes(x.embedding) == embedding_bytes(y.embedding)
        # everything stored but the justifications table is byte-identical, after the audit too
        a, o = revisionpair.stored_tables(and_world), revisionpair.stored_tables(or_world)
        assert a["nodes"] == o["nodes"] and a["justifications"] != o["justifications"]
        assert and_world.structure().justifications != or_world.structure().justifications
    # the check can fail: different pairs have different records and embeddings
    assert worlds[0].influence_record() != worlds[2].influence_record()
    assert not revisionpair.pair_check(worlds[0], worlds[3])["texts_times_embeddings_edges_identical"]


def test_embedding_is_deterministic_and_discriminating():
    assert embed("the kinase inhibitor raises the response") == embed("the kinase inhibitor raises the response")
    assert embed("the kinase inhibitor raises the response") != embed("coral bleaching lowers it")
    assert abs(sum(v * v for v in embed("any text at all")) - 1.0) < 1e-4
    assert revisionpair.generate() == revisionpair.generate()


def test_revisionpair_catches_a_wrong_rule():
    result = revisionpair.run(rules={"exact": and_only})
    assert values(result, "worlds_repaired_exactly")["exact"] == 40
    assert result.failures() == ["worlds_repaired_exactly"]


# --- SciMap -------------------------------------------------------------------------------------
def test_scimap_endpoints():
    result = scimap.run()
    details = result.details
    assert details["questions"] == 140 and details["independent_branches"] == 20
    total = details["propagated_consequences"]
    assert total >= 40
    assert values(result, "propagated_repaired") == {"exact": total, "none": 0, "influence": total}
    assert values(result, "branches_preserved") == {"exact": 20, "none": 20, "influence": 10}
    contaminated = values(result, "contaminated_citations")
    assert contaminated["exact"] == 0 and contaminated["influence"] == 0 and contaminated["none"] > 0
    grounded_answers = values(result, "grounded_answers")
    assert grounded_answers["exact"] == 140
    assert grounded_answers["none"] < 140 and grounded_answers["influence"] < 140
    assert result.failures() == []


def test_scimap_catches_a_wrong_rule():
    result = scimap.run(rules={"exact": revision.none})
    assert {"propagated_repaired", "contaminated_citations", "grounded_answers"} <= set(result.failures())


# --- diagnosis ----------------------------------------------------------------------------------
def test_diagnosis_endpoints(tmp_path):
    result = diagnosis.run(directory=tmp_path)
    assert values(result, "premise_identified")["exact"] == 20
    assert values(result, "repaired") == {"exact": 20, "none": 0, "influence": 0}
    assert values(result, "grounded") == {"exact": 20, "none": 0, "influence": 0}
    latency = values(result, "median_repair_ms")["exact"]
    assert 0 < latency < 5000
    assert len(result.details["latencies_ms"]) == 20
    assert result.failures() == []


def test_diagnosis_catches_a_wrong_rule(tmp_path):
    result = diagnosis.run(rules={"exact": and_only}, episodes=6, directory=tmp_path)
    assert "repaired" in result.failures() and "grounded" in result.failures()


# --- heterogeneous ------------------------------------------------------------------------------
def test_heterogeneous_endpoints():
    result = heterogeneous.run()
    for key in ("cases_repaired_exactly", "agrees_with_theory", "agrees_with_clingo", "engine_state_checked"):
        assert values(result, key)["exact"] == 20, key
    assert values(result, "cases_repaired_exactly")["none"] < 20
    assert values(result, "cases_repaired_exactly")["influence"] < 20
    assert result.failures() == []


def test_heterogeneous_catches_a_loop_keeping_itself_alive():
    result = heterogeneous.run(rules={"exact": greatest_fixpoint})
    assert values(result, "cases_repaired_exactly")["exact"] < 20
    assert "agrees_with_clingo" in result.failures()
    bad = [row["case"] for row in result.details["cases"] if not row["rules"]["exact"]["repaired"]]
    assert "unsupported loop" in bad


def test_clingo_oracle_least_fixpoint():
    s = SupportStructure.build(["e", "f"], ["a", "b", "p", "q"],
                               [("a", ["e"]), ("a", ["b"]), ("b", ["a"]), ("p", []), ("q", ["p", "f"])])
    oracle = ClingoOracle(s)
    assert oracle.active() == active_state(s)
    assert oracle.active(["e"]) == {"f", "p", "q"} == active_state(s, blocked=["e"])
    assert oracle.active(["p"]) == {"e", "f", "a", "b"}


# --- answerer -----------------------------------------------------------------------------------
CONTEXT = "\n".join([
    common.HEADER,
    "- [evidence] e1: an observation",
    "- [claim] c1: first (because e1)",
    "- [claim] c2: second (because c1 and x)",
    common.WITHDRAWN_HEADER,
    "- x (audit 3: bad source)",
])


def test_answerer_reads_only_the_context():
    parsed = parse_context(CONTEXT)
    assert parsed.claims == {"c1": ("e1",), "c2": ("c1", "x")} and parsed.withdrawn == {"x"}
    assert answer(CONTEXT, Question("q", "c2", "")) == Answer("supported", ("c1", "e1", "x"))
    assert answer(CONTEXT, Question("q", "x", "")) == Answer("withdrawn")
    assert answer(CONTEXT, Question("q", "zzz", "")) == Answer("unknown")
    truth = frozenset({"e1", "c1"})
    assert grounded(answer(CONTEXT, Question("q", "c1", "")), Question("q", "c1", ""), truth)
    assert not grounded(answer(CONTEXT, Question("q", "c2", "")), Question("q", "c2", ""), truth)
    assert grounded(answer(CONTEXT, Question("q", "x", "")), Question("q", "x", ""), truth)
    assert contaminated_citations(CONTEXT, truth) == 2   # c2 as active, x as support


# --- CLI ----------------------------------------------------------------------------------------
def test_cli_json_and_plot(tmp_path, capsys):
    figure = tmp_path / "h.png"
    assert main(["study", "heterogeneous", "--json", "--plot", str(figure)]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["ok"] and payload["studies"][0]["study"] == "heterogeneous"
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("name", ["missing-dir/h.png", "h.txt"])
def test_cli_bad_plot_path_is_bad_input(tmp_path, capsys, name):
    figure = tmp_path / name
    assert main(["study", "revisionpair", "--plot", str(figure)]) == 2
    err = capsys.readouterr().err
    assert "--plot" in err and len(err.strip().splitlines()) == 1
    assert not figure.exists()


def test_cli_exit_1_when_the_exact_rule_is_wrong(monkeypatch, capsys):
    monkeypatch.setitem(common.DEFAULT_RULES, "exact", and_only)
    assert main(["study", "revisionpair"]) == 1
    assert "FAILED" in capsys.readouterr().out


def test_cli_all_table(capsys):
    assert main(["study", "all"]) == 0
    out = capsys.readouterr().out
    for name in ("revisionpair", "scimap", "diagnosis", "heterogeneous"):
        assert name in out
    assert "80/80" in out and "140/140" in out


def test_cli_bad_name():
    with pytest.raises(SystemExit) as error:
        main(["study", "nope"])
    assert error.value.code == 2


def test_answerer_hook_is_used():
    from jtms.studies import run_study

    def abstain(context_text: str, question: Question) -> Answer:
        return Answer("unknown")

    assert values(run_study("scimap", answerer=abstain), "grounded_answers")["exact"] == 0
    assert main(["study", "scimap", "--answerer", "jtms.studies.common:answer"]) == 0
    assert main(["study", "scimap", "--answerer", "jtms.studies.common:no_such_thing"]) == 2


def test_other_seeds_same_pattern(tmp_path):
    """The expected patterns are properties of the rules, not of one seed."""
    pairs = revisionpair.run(seed=7, pairs=5)
    assert values(pairs, "worlds_repaired_exactly") == {"exact": 10, "none": 5, "influence": 5}
    maps = scimap.run(seed=2, workspaces=6)
    assert maps.failures() == [] and values(maps, "grounded_answers")["exact"] == 42
    episodes = diagnosis.run(seed=5, episodes=4, directory=tmp_path)
    assert episodes.failures() == [] and values(episodes, "repaired")["exact"] == 4
    assert heterogeneous.run(seed=9).failures() == []
