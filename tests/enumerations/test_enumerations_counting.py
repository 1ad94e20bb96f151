"""Theorem 2 over graph families: the compiled brute force (definition and witness search)
against the theory's rules, the enumeration's tallies, and planted bugs it must report."""

from __future__ import annotations

import json

import numpy as np
import pytest

import enumerations.counting as counting_module
import enumerations.graphs as graphs_module
from enumerations.counting import (
    DOMAINS,
    claims_of,
    compare_checker,
    counting_batch,
    domain_nodes,
    structure_rows,
    unsafe_by_rules,
)
from enumerations.executor import start_executor
from enumerations.graphs import (
    CHECKS_COUNTING,
    GraphFamily,
    build,
    class_shard,
    graph_shard,
    iso_classes,
    plan_classes,
    run_graphs,
)
from jtms.cli import main
from theory.model.structure import SupportStructure
from theory.semantics.fixpoint import active_state
from theory.semantics.revision import exact_retired_numbers


def _kernel_against_rules(family: GraphFamily) -> list[int]:
    """Every class of ``family``: the kernel's definition and criterion against
    :func:`unsafe_by_rules` (the theory's counting and exact on every audit); returns the
    unsafe claims per domain."""
    reps, _, _ = iso_classes(family)
    batch = counting_batch(family, reps)
    unsafe = [0, 0, 0]
    for g, row in enumerate(reps):
        structure = build(family, row.tolist())
        for d, domain in enumerate(DOMAINS):
            want = unsafe_by_rules(structure, domain_nodes(structure, domain))
            assert claims_of(int(batch.definition[g, d]), family) == want, (row, domain)
            assert claims_of(int(batch.criterion[g, d]), family) == want, (row, domain)
            unsafe[d] += len(want)
    assert not batch.loopless.any() and not batch.wrong.any()
    return unsafe


def test_kernel_equals_the_theory_rules_on_a_small_family():
    unsafe = _kernel_against_rules(GraphFamily(1, 2, 3))
    assert unsafe[0] > 0 and unsafe[2] >= unsafe[0]


@pytest.mark.slow
def test_kernel_equals_the_theory_rules_on_every_audit_kind():
    # (0, 3, 4): the outside support of a loop is a premise claim, so audits of claims
    # find counting-unsafe claims too
    assert _kernel_against_rules(GraphFamily(0, 3, 4))[1] > 0
    assert _kernel_against_rules(GraphFamily(2, 2, 3))[0] > 0


def test_witness_and_definition_on_the_theorem_examples():
    family = GraphFamily(1, 2, 3)
    code = {c: i for i, c in enumerate(family.candidates())}
    # nodes e1 = 0, c1 = 1, c2 = 2. c1 <- c2; c2 <- c1; c2 <- e1: counting-unsafe (audit
    # {e1}, loop [c1, c2])
    looped = [code[(1, 0b100)], code[(2, 0b010)], code[(2, 0b001)]]
    # c1 <- e1; c2 <- c1: no loop, counting-safe
    chain = [code[(1, 0b001)], code[(2, 0b010)]]
    batch = counting_batch(family, structure_rows([looped, chain], len(code)))
    assert claims_of(int(batch.definition[0, 0]), family) == {"c1", "c2"}
    assert claims_of(int(batch.criterion[0, 0]), family) == {"c1", "c2"}
    assert int(batch.definition[0, 1]) == 0  # no claim audit leaves the loop standing
    assert int(batch.definition[1].max()) == int(batch.criterion[1].max()) == 0


@pytest.mark.slow
def test_counting_only_run_equals_the_full_run_on_the_counting_fields():
    family = GraphFamily(2, 2, 3)
    with start_executor() as executor:
        full = run_graphs(family, executor, checker_every=0).to_dict()
        alone = run_graphs(family, executor, checks=CHECKS_COUNTING).to_dict()
    fields = [k for k in full if k.startswith("counting_") or k == "labelled_counting_safe_claims"]
    assert len(fields) >= 10
    for name in ("counting_checker_verdicts", "counting_safe_influence_unsafe"):
        fields.remove(name)  # the checker not run; the influence check not run alone
    assert {k: full[k] for k in fields} == {k: alone[k] for k in fields}
    assert full["counting_unsafe"] > 0 and full["counting_disagreements"] == 0
    assert full["checks"] == ["influence", "counting"] and alone["checks"] == ["counting"]
    assert alone["labelled_share_safe_claims"] is None and alone["counts_verified"]
    # incomparable: both cross-tabulations are inhabited already here
    assert full["influence_safe_counting_unsafe"] > 0
    assert full["counting_safe_influence_unsafe"] > 0


def test_counting_replaced_by_exact_in_the_brute_force_is_reported(monkeypatch):
    """Planted: the theory-rules definition computed with exact in place of counting (no
    claim is ever kept by counting and retired by exact): the kernel disagrees with it."""
    monkeypatch.setattr(graphs_module, "counting_retired_numbers", exact_retired_numbers)
    family = GraphFamily(1, 2, 3)
    reps, sizes, _ = iso_classes(family)
    tally = graph_shard(family, reps.tolist(), sizes.tolist())
    assert tally.counting_disagreements > 0 and not tally.verdicts_agree
    assert any("the theory's counting and exact" in e for e in tally.examples)


@pytest.mark.parametrize("broken", ["definition", "criterion", "loopless"])
def test_a_wrong_kernel_is_reported(monkeypatch, broken):
    """Planted: the witness search finds only one-claim witness sets (it skips the loops of
    several claims), or the definition loses its verdicts, or a witness is said to lack
    its loop: each is a disagreement of the run."""
    real = counting_module.counting_boundary

    def planted(rows, heads, masks, e, c, active, definition, criterion, loopless):
        real(rows, heads, masks, e, c, active, definition, criterion, loopless)
        if broken == "criterion":
            criterion[:] = 0
        elif broken == "definition":
            definition[:] = 0
        else:
            loopless[:] = criterion[:, 0]

    monkeypatch.setattr(counting_module, "counting_boundary", planted)
    plan = plan_classes(GraphFamily(1, 2, 3))
    tally = _tally_of_plan(plan, CHECKS_COUNTING)
    assert tally.counting_disagreements > 0 and not tally.verdicts_agree


def _tally_of_plan(plan, checks):
    total = None
    for i in range(len(plan.shards)):
        _, tally = class_shard(*plan.arguments(i, checks=checks))
        total = tally if total is None else total.merge(tally)
    return total


def _loop_graph() -> SupportStructure:
    return SupportStructure.build(["e"], ["c", "m"], [("c", ["m"]), ("m", ["c"]), ("m", ["e"])])


def test_compare_checker_accepts_the_checker_and_refuses_forged_verdicts(monkeypatch):
    import theory.safety.counting as production

    family = GraphFamily(1, 2, 3)
    code = {c: i for i, c in enumerate(family.candidates())}
    row = [code[(1, 0b100)], code[(2, 0b010)], code[(2, 0b001)]]
    structure = build(family, row)
    batch = counting_batch(family, structure_rows([row], len(code)))
    compared, problems = compare_checker(structure, family, batch, 0)
    assert compared == 2 * len(DOMAINS) and problems == []
    real = production.counting_verdicts

    def forged(kind):
        def verdicts(structure, *, audits="evidence"):
            found = real(structure, audits=audits)
            out = {}
            for claim, v in found.items():
                if v.witness is None:
                    out[claim] = v
                elif kind == "safe":
                    out[claim] = type(v)(claim, True, None)
                elif kind == "audit":  # an audit under which exact keeps the claim
                    out[claim] = type(v)(
                        claim, False, type(v.witness)(frozenset(), v.witness.loop, v.witness.kept)
                    )
                else:  # a loop that is no cycle
                    out[claim] = type(v)(
                        claim, False, type(v.witness)(v.witness.audit, (claim,), v.witness.kept)
                    )
            return out

        return verdicts

    for kind in ("safe", "audit", "loop"):
        monkeypatch.setattr(production, "counting_verdicts", forged(kind))
        _, problems = compare_checker(structure, family, batch, 0)
        assert problems, kind
    monkeypatch.setattr(production, "counting_verdicts", real)


def test_cli_counting_only_json_and_refusals(capsys):
    argv = ["enumerate", "--max-n", "0", "--graphs", "--graph-evidence", "1"]
    argv += ["--graph-claims", "2", "--graph-justifications", "3", "--json"]
    assert main([*argv, "--graph-checks", "counting"]) == 0
    g = json.loads(capsys.readouterr().out)["graphs"]
    assert g["checks"] == ["counting"] and g["counting_unsafe"] > 0
    assert g["counting_disagreements"] == 0 and g["verdicts_agree"]
    assert g["counting_checker_verdicts"] == 0
    assert main(["enumerate", "--max-n", "0", "--graph-checks", "counting"]) == 2
    assert main([*argv, "--graph-checker-every", "-1"]) == 2
    capsys.readouterr()


def test_part_file_of_one_check_is_not_resumed_by_the_other(tmp_path, capsys):
    part = tmp_path / "part.json"
    argv = ["enumerate", "--max-n", "0", "--graphs", "--graph-evidence", "1"]
    argv += ["--graph-claims", "2", "--graph-justifications", "2", "--graph-out", str(part)]
    assert main([*argv, "--graph-checks", "counting", "--json"]) == 0
    stored = json.loads(part.read_text())
    assert stored["graphs"]["checks"] == ["counting"] and "checks=counting" in stored["rule"]
    assert main([*argv, "--graph-checks", "counting", "--json"]) == 0  # resumed: nothing left
    again = json.loads(part.read_text())
    assert again["graphs"]["counting_safe"] == stored["graphs"]["counting_safe"]
    assert main([*argv, "--graph-checker-every", "0", "--json"]) == 2  # the other check
    capsys.readouterr()


def test_active_claims_and_sizes_match_the_walk():
    family = GraphFamily(1, 2, 2)
    reps, sizes, labelled = iso_classes(family)
    batch = counting_batch(family, reps)
    assert int(sizes.sum()) == labelled
    for g, row in enumerate(reps):
        structure = build(family, row.tolist())
        assert claims_of(int(batch.active[g]), family) == active_state(structure) & structure.claims
    assert np.all(batch.definition[:, 2] | batch.definition[:, 0] == batch.definition[:, 2])
