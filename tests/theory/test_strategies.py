"""The public strategies: parameters are honoured, sequences are valid, failures shrink small."""

import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from theory import SupportStructure, exact, influence, none
from theory.model.index import index_of
from theory.semantics.revision import downstream_numbers
from theory.testing import strategies as jst

SMALL = SupportStructure.build(
    ["e0", "e1"], ["c0", "c1"], [("c0", ["e0"]), ("c1", ["c0", "e1"])]
)  # 4 nodes

FIND = settings(
    database=None, max_examples=2000, derandomize=True
)  # shrinks the same way every run


def claim_order_is_acyclic(structure: SupportStructure) -> bool:
    index = index_of(structure)
    for n in range(index.size):
        if n in downstream_numbers(index, index.consumers[n]):
            return False
    return True


def derivation_depth(structure: SupportStructure) -> int:
    """Longest chain of justification steps from evidence (acyclic graphs only)."""
    depth = {e: 0 for e in structure.evidence}
    remaining = set(structure.claims)
    while remaining:
        ready = [
            c
            for c in remaining
            if all(a in depth for j in structure.justifications_of[c] for a in j.antecedents)
        ]
        assert ready, "graph is cyclic"
        for c in ready:
            depth[c] = 1 + max(
                (depth[a] for j in structure.justifications_of[c] for a in j.antecedents), default=0
            )
            remaining.discard(c)
    return max(depth.values(), default=0)


@pytest.mark.slow
@settings(max_examples=150)
@given(
    jst.support_structures(
        min_evidence=2,
        max_evidence=4,
        min_claims=1,
        max_claims=5,
        max_alternatives=2,
        max_antecedents=2,
        cycles=False,
        premises=False,
    )
)
def test_original_positional_parameters(structure):
    assert 2 <= len(structure.evidence) <= 4
    assert 1 <= len(structure.claims) <= 5
    assert all(j.antecedents for j in structure.justifications)  # premises=False
    assert all(len(js) <= 2 for js in structure.justifications_of.values())
    assert all(len(j.antecedents) <= 2 for j in structure.justifications)
    assert claim_order_is_acyclic(structure)


@pytest.mark.slow
@settings(max_examples=150)
@given(
    jst.memory_graphs(max_claims=8, max_depth=2, cycles=False, max_antecedents=2, redundant=True)
)
def test_depth_bound_without_cycles(structure):
    assert claim_order_is_acyclic(structure)
    assert derivation_depth(structure) <= 2


@pytest.mark.slow
@settings(max_examples=150)
@given(jst.memory_graphs(max_evidence=6, max_claims=8, max_fan_in=2, max_alternatives=3))
def test_fan_in_bound(structure):
    for _claim, justifications in structure.justifications_of.items():
        assert len(set().union(*(j.antecedents for j in justifications))) <= 2


@pytest.mark.slow
def test_cycles_and_redundancy_and_depth_are_reachable():
    cyclic = find(
        jst.memory_graphs(cycles=True), lambda s: not claim_order_is_acyclic(s), settings=FIND
    )
    # shrinks to the smallest loop: the self loop c0 <- c0, or the planted c0 <- c1, c1 <- c0
    assert len(cyclic.claims) <= 2 and len(cyclic.justifications) <= 2
    redundant = find(
        jst.memory_graphs(redundant=True),
        lambda s: any(
            a.antecedents < b.antecedents
            for a in s.justifications
            for b in s.justifications
            if a.claim == b.claim
        ),
        settings=FIND,
    )
    assert len(redundant.justifications) == 2
    deep = find(
        jst.memory_graphs(max_claims=6, max_depth=3, cycles=False),
        lambda s: derivation_depth(s) == 3,
        settings=FIND,
    )
    assert len(deep.claims) <= 4


@pytest.mark.parametrize(
    "make",
    [
        lambda: jst.support_structures(min_claims=3, max_claims=2),
        lambda: jst.memory_graphs(max_depth=0),
        lambda: jst.support_structures(max_evidence=-1),
        lambda: jst.support_structures(max_evidence=2.5),
        lambda: jst.support_structures(cycles="yes"),
        lambda: jst.graphs_with_audits(max_audit=-1),
        lambda: jst.graphs_with_audit_sequences(min_steps=3, max_steps=1),
        lambda: jst.audits("not a structure"),
    ],
)
def test_bad_parameters_are_rejected_when_the_strategy_is_built(make):
    # like hypothesis' own strategies: InvalidArgument at call time, before any draw
    with pytest.raises(InvalidArgument):
        make()


def test_strategy_options_are_keyword_only():
    with pytest.raises(TypeError):
        jst.support_structures(1, 4)


@pytest.mark.slow
@settings(max_examples=150)
@given(jst.graphs_with_audit_sequences(max_steps=6, max_evidence=4, max_claims=4))
def test_audit_sequences_are_valid(case):
    structure, steps = case
    blocked: frozenset[str] = frozenset()
    for step, after in zip(steps, jst.blocked_after(steps)):
        assert step.ids and step.ids <= structure.nodes.keys()
        if step.action == jst.AUDIT:
            assert not step.ids & blocked  # audits only nodes that are not blocked
            blocked = blocked | step.ids
        else:
            assert step.ids <= blocked  # reinstates only blocked nodes
            blocked = blocked - step.ids
        assert after == blocked
    assert jst.describe(steps).count(";") == max(0, len(steps) - 1)


@pytest.mark.slow
def test_audit_sequences_contain_reinstatements():
    case = find(
        jst.graphs_with_audit_sequences(),
        lambda c: any(s.action == jst.REINSTATE for s in c[1]),
        settings=FIND,
    )
    assert [s.action for s in case[1]] == ["audit", "reinstate"]


@pytest.mark.slow
@settings(max_examples=100)
@given(st.data(), jst.support_structures())
def test_audits_respect_bounds(data, structure):
    audit = data.draw(jst.evidence_audits(structure, min_size=1, max_size=2))
    assert 1 <= len(audit) <= 2 and audit <= structure.evidence


@pytest.mark.slow
@pytest.mark.parametrize("rule", [influence, none])
def test_rule_failures_shrink_to_a_handful_of_nodes(rule):
    structure, audit = find(
        jst.graphs_with_audits(cycles=True, max_evidence=6, max_claims=8, redundant=True),
        lambda case: rule(*case) != exact(*case),
        settings=FIND,
    )
    # hypothesis alone (without the greedy reduction `jtms fuzz` adds) reaches the two-node
    # witness: c0 <- e0 for none; c0 <- e0 next to a premise c0 <- () for influence
    assert len(structure.nodes) <= 3
    assert len(structure.justifications) <= 2
    assert len(audit) == 1


def test_the_old_name_of_max_alternatives_still_works_with_a_warning():
    with pytest.warns(DeprecationWarning, match="max_alternatives"):
        strategy = jst.support_structures(max_justifications=1, max_claims=2)
    graph = find(strategy, lambda s: len(s.justifications) >= 1, settings=FIND)
    assert all(len(js) <= 1 for js in graph.justifications_of.values())
    with pytest.raises(InvalidArgument):
        jst.support_structures(max_justifications=1, max_alternatives=2)


# --- options the fuzzing pass found unchecked or silently violated ----------------------


@pytest.mark.parametrize("option", ["max_evidence", "max_claims"])
def test_node_counts_above_the_cap_are_refused_naming_the_option(option):
    # 10**9 used to build a list of a billion ids (10 GB) before the first draw finished
    with pytest.raises(InvalidArgument, match=option):
        jst.support_structures(**{option: 10**9})
    jst.support_structures(**{option: 10_000})  # the documented cap itself is accepted


def test_cli_refuses_a_huge_max_evidence_naming_the_flag(capsys):
    from jtms.cli import main

    argv = ["fuzz", "--rule", "exact", "--examples", "5", "--max-evidence", "1000000000"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("jtms: error:") and "--max-evidence" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "make, names",
    [
        (lambda: jst.support_structures(min_alternatives=5, max_alternatives=2), "alternatives"),
        (lambda: jst.support_structures(min_evidence=3, max_evidence=2), "evidence"),
        (lambda: jst.support_structures(min_claims=3, max_claims=2), "claims"),
        (lambda: jst.audits(SMALL, min_size=2, max_size=1), "size"),
        (lambda: jst.evidence_audits(SMALL, min_size=2, max_size=1), "size"),
        (lambda: jst.graphs_with_audits(min_audit=2, max_audit=1), "audit"),
        (lambda: jst.audit_sequences(SMALL, min_steps=2, max_steps=1), "steps"),
        (lambda: jst.graphs_with_audit_sequences(min_steps=2, max_steps=1), "steps"),
        (lambda: jst.graphs_with_nogoods(min_nogoods=2, max_nogoods=1), "nogoods"),
    ],
)
def test_min_above_max_is_refused_for_every_pair(make, names):
    with pytest.raises(InvalidArgument, match=f"min_{names}.*max_{names}"):
        make()


def test_the_old_names_are_the_ones_named_in_messages():
    with pytest.warns(DeprecationWarning), pytest.raises(InvalidArgument) as raised:
        jst.support_structures(max_justifications="x")
    assert "max_justifications" in str(raised.value)
    with pytest.warns(DeprecationWarning), pytest.raises(InvalidArgument) as raised:
        jst.support_structures(min_justifications=-1)
    assert "min_justifications" in str(raised.value)


@pytest.mark.parametrize("max_nodes", ["2", None, 0, 2.5])
def test_graphs_with_nogoods_checks_max_nodes_when_built(max_nodes):
    with pytest.raises(InvalidArgument, match="max_nodes"):
        jst.graphs_with_nogoods(max_nodes=max_nodes)


def test_graphs_with_nogoods_is_keyword_only_and_refuses_unknown_options_when_built():
    with pytest.raises(TypeError):
        jst.graphs_with_nogoods(1, 2, 3)
    with pytest.raises(TypeError):
        jst.graphs_with_nogoods(max_nodez=2)


@settings(max_examples=50)
@given(jst.graphs_with_nogoods(min_evidence=0, max_evidence=0, min_claims=0, max_claims=0))
def test_an_empty_graph_carries_no_nogood(structure):
    assert not structure.nodes and not structure.nogoods


@settings(max_examples=100)
@given(jst.graphs_with_nogoods(min_evidence=0, max_evidence=2, min_claims=0, max_claims=2))
def test_nogoods_respect_max_nodes_on_small_graphs(structure):
    assert all(1 <= len(n.nodes) <= 3 for n in structure.nogoods)


def claims_with_nested_justifications(structure: SupportStructure) -> list[str]:
    return [
        claim
        for claim, js in structure.justifications_of.items()
        if any(j.antecedents < k.antecedents for j in js for k in js)
    ]


@pytest.mark.slow
@settings(max_examples=150)
@given(jst.support_structures(redundant=False, premises=False))
def test_no_redundant_justifications_without_redundant(structure):
    # c0 <- e0 next to c0 <- c0, e0 used to be drawn in a quarter of the graphs
    assert not claims_with_nested_justifications(structure)


@settings(max_examples=150)
@given(jst.support_structures())
def test_no_redundant_justifications_by_default(structure):
    assert not claims_with_nested_justifications(structure)


@pytest.mark.slow
@settings(max_examples=150)
@given(jst.support_structures(max_antecedents=1, max_alternatives=1, redundant=True))
def test_redundant_mode_keeps_the_bounds(structure):
    assert all(len(j.antecedents) <= 1 for j in structure.justifications)
    assert all(len(js) <= 1 for js in structure.justifications_of.values())


@settings(max_examples=150)
@given(jst.support_structures(max_antecedents=2, max_alternatives=2, redundant=True, max_fan_in=2))
def test_redundant_mode_keeps_the_bounds_with_a_fan_in(structure):
    assert all(len(j.antecedents) <= 2 for j in structure.justifications)
    assert all(len(js) <= 2 for js in structure.justifications_of.values())


def test_redundant_justifications_are_still_reachable():
    graph = find(
        jst.support_structures(redundant=True),
        lambda s: bool(claims_with_nested_justifications(s)),
        settings=FIND,
    )
    assert claims_with_nested_justifications(graph)


@pytest.mark.parametrize(
    "make, option",
    [
        (lambda: jst.audits(SMALL, min_size=10), "min_size"),
        (lambda: jst.evidence_audits(SMALL, min_size=3), "min_size"),
        (
            lambda: jst.audit_sequences(SMALL, min_steps=20, max_steps=20, reinstatements=False),
            "min_steps",
        ),
        (lambda: jst.graphs_with_audits(min_audit=50), "min_audit"),
        (
            lambda: jst.graphs_with_audit_sequences(
                min_steps=20, max_steps=20, reinstatements=False
            ),
            "min_steps",
        ),
        (
            lambda: jst.support_structures(
                min_alternatives=1, premises=False, cycles=False, min_evidence=0, max_evidence=0
            ),
            "min_alternatives",
        ),
        (lambda: jst.support_structures(max_antecedents=0, premises=False), "max_antecedents"),
        (lambda: jst.support_structures(max_antecedents=0, premises=False), "premises"),
    ],
)
def test_minimums_the_options_cannot_meet_are_refused_when_built(make, option):
    with pytest.raises(InvalidArgument, match=option):
        make()


@settings(max_examples=100)
@given(jst.audit_sequences(SMALL, min_steps=4, max_steps=4, reinstatements=False))
def test_audit_sequences_give_the_steps_asked_for(steps):
    assert len(steps) == 4


@settings(max_examples=100)
@given(jst.audits(SMALL, min_size=4))
def test_audits_give_the_size_asked_for(audit):
    assert len(audit) == 4


@settings(max_examples=100)
@given(jst.graphs_with_audits(min_audit=5, max_evidence=3, max_claims=3))
def test_min_audit_is_capped_by_the_drawn_graph(case):
    structure, audit = case  # at least min_audit, or the whole pool when it is smaller
    assert min(5, len(structure.nodes)) <= len(audit) <= len(structure.nodes)


@settings(max_examples=100)
@given(
    jst.graphs_with_audit_sequences(
        min_steps=5, max_steps=5, reinstatements=False, max_evidence=3, max_claims=3
    )
)
def test_min_steps_is_capped_by_the_drawn_graph(case):
    structure, steps = case
    assert len(steps) == min(5, len(structure.nodes))


@settings(max_examples=150)
@given(
    jst.support_structures(
        min_alternatives=3, max_alternatives=3, max_evidence=1, max_claims=1, cycles=False
    )
)
def test_min_alternatives_is_capped_by_the_graph_but_never_below_one(structure):
    # one evidence node, one claim, no redundancy: c0 <- () or c0 <- e0, not both
    assert len(structure.justifications_of["c0"]) == 1


@settings(max_examples=150)
@given(jst.support_structures(min_alternatives=1, premises=False, max_alternatives=2))
def test_min_alternatives_one_justifies_every_claim(structure):
    assert all(len(structure.justifications_of[c]) >= 1 for c in structure.claims)


def test_audit_pool_checks_its_arguments():
    with pytest.raises(InvalidArgument, match="structure"):
        jst.audit_pool(None)
    with pytest.raises(InvalidArgument, match="evidence_only"):
        jst.audit_pool(SMALL, "yes")
    assert jst.audit_pool(SMALL) == ["e0", "e1", "c0", "c1"]
