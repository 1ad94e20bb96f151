"""Relevance under a budget: one ranked solver serves every claim of a strongly connected
component, and a query that spends its conflicts leaves its kind `undecided` instead of
stalling the check (deciding relevance is NP-hard; on memories with support loops of
hundreds of claims some queries take minutes, clingo's too)."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks import generate
from theory.io.graphfile import save_graph
from theory.model.errors import Undecided
from theory.model.index import index_of
from theory.model.structure import SupportStructure
from theory.safety import check as safety
from theory.safety.check import (
    ALTERNATIVE_SUPPORT,
    REDUNDANT_INFLUENCE,
    UNDECIDED,
    check_structure,
)
from theory.solver import justifications
from theory.solver.completion import SupportProgram
from theory.solver.justifications import ConeQueries, JustificationEnumerator
from theory.solver.options import SolverOptions
from theory.testing import strategies as jst
from theory.testing.reference import brute_force_minimal_justifications


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(jst.support_structures(cycles=True, max_evidence=6, max_claims=7))
def test_one_ranked_solver_answers_relevance_for_every_claim_of_its_cone(structure):
    index = index_of(structure)
    for root in sorted(structure.claims):
        program = SupportProgram.of(index, index.number[root])
        enumerator = JustificationEnumerator(program, ranked=True)
        try:
            for n in program.claims:  # every claim of the cone, through the root's solver
                claim = index.ids[n]
                minimal = brute_force_minimal_justifications(structure, claim)
                relevant = frozenset().union(*minimal) if minimal else frozenset()
                for item in program.variables:
                    witness = enumerator.relevance_witness(item, target=claim)
                    assert (witness is not None) == (item in relevant), (claim, item)
                    if witness is not None:  # f(X) false, f(X + item) true
                        assert not any(s <= witness for s in minimal)
                        assert any(s <= witness | {item} for s in minimal)
        finally:
            enumerator.close()


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(jst.support_structures(cycles=True, max_evidence=6, max_claims=7), st.data())
def test_one_query_asks_whether_any_of_many_items_is_relevant(structure, data):
    index = index_of(structure)
    for claim in sorted(structure.claims):
        minimal = brute_force_minimal_justifications(structure, claim)
        relevant = frozenset().union(*minimal) if minimal else frozenset()
        program = SupportProgram.of(index, index.number[claim])
        items = data.draw(st.sets(st.sampled_from(sorted(structure.evidence))), label=claim)
        enumerator = JustificationEnumerator(program, ranked=True)
        try:
            among = enumerator.relevance_among(items, target=claim)
        finally:
            enumerator.close()
        assert (among is None) == (not items & relevant)
        if among is not None:
            before, added = among
            assert added and added <= items
            assert not any(s <= before for s in minimal)
            assert any(s <= before | added for s in minimal)
            turned, witness = ConeQueries(index, index.number[claim]).turning_item(before, added)
            assert turned in added & relevant
            assert not any(s <= witness for s in minimal)
            assert any(s <= witness | {turned} for s in minimal)


@settings(max_examples=100, deadline=None)
@given(structure=jst.support_structures(cycles=True, max_evidence=6, max_claims=7))
def test_kinds_asked_together_equal_kinds_asked_one_by_one(structure):
    full = check_structure(structure)
    with pytest.MonkeyPatch.context() as patch:
        # a listing by the SAT search cut at 2 sets, and no budget for the queries one by
        # one: every item the listing leaves open goes to the queries together
        patch.setattr(justifications, "DEFAULTS", SolverOptions(label_work=0))
        patch.setattr(safety, "DEFAULTS", SolverOptions(relevance_first=0))
        together = check_structure(structure, max_listed=1, label_budget=0)
    for a, b in zip(full.claims, together.claims):
        assert [(v.kind, v.audit) for v in a.violations] == [
            (v.kind, v.audit) for v in b.violations
        ]
        assert b.kinds_complete


@settings(max_examples=100, deadline=None)
@given(structure=jst.support_structures(cycles=True, max_evidence=6, max_claims=7))
def test_cone_queries_find_a_minimal_justification_avoiding_the_audit(structure):
    index = index_of(structure)
    for claim in sorted(structure.claims):
        minimal = brute_force_minimal_justifications(structure, claim)
        cone = ConeQueries(index, index.number[claim])
        for item in sorted(structure.evidence):
            survivor = cone.surviving([item])
            avoiding = {s for s in minimal if item not in s}
            assert survivor in avoiding if avoiding else survivor is None


def _hard_memory() -> SupportStructure:
    # one support loop of 479 claims: some relevance queries of c100 run for minutes
    return generate.memory(1000, seed=7, back_edges=0.2)


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_query_past_its_budget_is_undecided():
    structure = _hard_memory()
    index = index_of(structure)
    program = SupportProgram.of(index, index.number["c100"])
    enumerator = JustificationEnumerator(program, ranked=True)
    with pytest.raises(Undecided):  # no answer in minutes without a budget (clingo: none in 60 s)
        enumerator.relevance_witness("e157", conflicts=2_000, target="c100")
    assert 2_000 <= enumerator.conflicts < 2_100
    enumerator.close()


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_the_check_reports_what_its_budget_left_open_and_nothing_else():
    structure = _hard_memory()
    claims = ["c100", "c101"]
    (c100, c101) = check_structure(structure, claims, relevance_budget=3_000).claims
    for report in (c100, c101):
        kinds = [v.kind for v in report.violations]
        assert set(kinds) <= {ALTERNATIVE_SUPPORT, REDUNDANT_INFLUENCE, UNDECIDED}
        assert report.kinds_complete == (UNDECIDED not in kinds)
        assert report.to_dict()["kinds_complete"] == report.kinds_complete
        for violation in report.violations:  # the survivor stays exact
            survivor = violation.surviving_justification
            assert survivor is not None and not survivor & violation.audit
    assert not c100.kinds_complete
    # the same check, decided items only, agrees with a larger budget's
    wider = check_structure(structure, ["c100"], relevance_budget=12_000).claims[0]
    wider_kinds = {next(iter(v.audit)): v.kind for v in wider.violations}
    for violation in c100.violations:
        e = next(iter(violation.audit))
        if violation.kind != UNDECIDED and wider_kinds[e] != UNDECIDED:
            assert violation.kind == wider_kinds[e]


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_small_budget_still_asks_the_open_items_together(monkeypatch):
    # the first pass (each item alone) may spend half the budget: with 4,000 conflicts and
    # about 70 open items at 250 each, it would otherwise spend all and leave none for the
    # query that asks the rest together
    budgets: list[int | None] = []
    among = JustificationEnumerator.relevance_among

    def spy(self, items, conflicts=None, target=None):
        budgets.append(conflicts)
        return among(self, items, conflicts=conflicts, target=target)

    monkeypatch.setattr(JustificationEnumerator, "relevance_among", spy)

    report = check_structure(_hard_memory(), ["c100"], relevance_budget=4_000).claims[0]
    # relevance_witness asks one item through relevance_among, with 250 conflicts at most
    together = [b for b in budgets if b is None or b > 250]
    assert together, "the items left open were never asked together"
    assert together[0] is not None and together[0] >= 1_500
    assert not report.kinds_complete


@pytest.mark.slow
def test_check_cli_takes_a_relevance_budget(tmp_path, capsys):
    from jtms.cli import main

    path = tmp_path / "hard.json"
    save_graph(_hard_memory(), path)
    code = main(["check", str(path), "--claim", "c100", "--relevance-budget", "1000", "--json"])
    (claim,) = json.loads(capsys.readouterr().out)["claims"]
    assert code == 1
    assert claim["kinds_complete"] is False
    assert "undecided" in {v["kind"] for v in claim["violations"]}


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_the_check_report_is_the_same_in_every_process(tmp_path):
    # claims with more minimal justifications than the cap list a prefix of the search's
    # sets: the same prefix whatever the process's string hash seed
    import os
    import subprocess
    import sys

    path = tmp_path / "memory.json"
    save_graph(generate.memory(3000, seed=1, back_edges=0.05), path)
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-m", "jtms", "check", str(path), "--json"],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert done.returncode == 1, done.stderr
        claims = json.loads(done.stdout)["claims"]
        assert any(not c["minimal_justifications_complete"] for c in claims if c["active"])
        outputs.append(claims)
    assert outputs[0] == outputs[1]


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_kinds_left_open_by_a_budget_are_the_same_in_every_process(tmp_path):
    # a budget in conflicts makes a report reproducible only if every query is asked in
    # the same order (a least fixpoint once followed the hash order of a set of ids)
    import os
    import subprocess
    import sys

    path = tmp_path / "hard.json"
    save_graph(_hard_memory(), path)
    outputs = []
    for seed in ("1", "2", "3"):
        done = subprocess.run(
            [sys.executable, "-m", "jtms", "check", str(path), "--claim", "c300,c100", "--json"],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=False,
        )
        assert done.returncode == 1, done.stderr
        claims = json.loads(done.stdout)["claims"]
        assert not all(c["kinds_complete"] for c in claims)  # the budget was spent
        outputs.append(claims)
    assert outputs[0] == outputs[1] == outputs[2]
