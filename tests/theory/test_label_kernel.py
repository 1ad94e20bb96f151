"""The compiled kernels of the solver core (theory.solver.label_kernel, theory.solver.cone_kernel) and the
one-search enumerator against the Python label algebra, the fixpoint and brute force."""

from itertools import combinations, islice

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.claim_cases import structure_and_claim
from theory import SupportStructure
from theory.model.index import index_of
from theory.semantics.fixpoint import active_state
from theory.solver.cone_kernel import ConeOracle
from theory.solver.justifications import JustificationEnumerator, minimal_justifications
from theory.solver.label_kernel import OK, OVER_SETS, OVER_WORK, labels, sets_of_ids
from theory.testing import strategies as jst
from theory.testing.labels import all_labels
from theory.testing.reference import brute_force_minimal_justifications, evidence_ancestors


def as_sets(index, found, k):
    return sets_of_ids(index, found, k)


@pytest.mark.slow
@settings(max_examples=400)
@given(jst.support_structures(max_evidence=8, max_claims=8, cycles=True))
def test_kernel_labels_equal_the_reference_and_brute_force(structure):
    index = index_of(structure)
    claims = sorted(structure.claims)
    targets = [index.number[c] for c in claims]
    found = labels(index, targets)
    reference = all_labels(index, targets, budget=1 << 62)
    for k, claim in enumerate(claims):
        assert found.status[k] == OK
        expected = brute_force_minimal_justifications(structure, claim)
        assert as_sets(index, found, k) == expected
        assert frozenset(index.names_of_bits(b) for b in reference[targets[k]]) == expected


@settings(max_examples=100)
@given(jst.support_structures(max_evidence=8, max_claims=8, cycles=True))
def test_python_labels_over_several_words_equal_brute_force(structure):
    """Evidence numbered past 64 (64 items before the graph's, in no cone): the Python
    label algebra's sets span two words (theory.testing.labels' ints past 64 bits, and its rows of
    words where a component is solved in arrays)."""
    padding = [f"!pad{i:02d}" for i in range(64)]
    padded = SupportStructure.build(
        padding + sorted(structure.evidence), structure.claims, structure.justifications
    )
    index = index_of(padded)
    claims = sorted(padded.claims)
    targets = [index.number[c] for c in claims]
    reference = all_labels(index, targets, budget=1 << 62)
    for claim, target in zip(claims, targets):
        expected = brute_force_minimal_justifications(structure, claim)
        assert frozenset(index.names_of_bits(b) for b in reference[target]) == expected


@pytest.mark.slow
@settings(max_examples=200)
@given(
    jst.support_structures(max_evidence=7, max_claims=8, cycles=True),
    st.integers(0, 4),
    st.integers(0, 60),
)
def test_python_label_budgets_never_change_an_answer(structure, budget, formed_budget):
    """Over either budget a claim's label is None; a label given is exact and within it."""
    index = index_of(structure)
    claims = sorted(structure.claims)
    targets = [index.number[c] for c in claims]
    found = all_labels(index, targets, budget=budget, formed_budget=formed_budget)
    for claim, target in zip(claims, targets):
        if found[target] is not None:
            expected = brute_force_minimal_justifications(structure, claim)
            assert frozenset(index.names_of_bits(b) for b in found[target]) == expected
            assert len(expected) <= budget


@pytest.mark.slow
@settings(max_examples=300)
@given(
    jst.support_structures(max_evidence=10, max_claims=8, cycles=True),
    st.integers(0, 6),
    st.integers(0, 200),
    st.booleans(),
)
def test_python_ints_and_arrays_give_the_same_labels_for_the_same_work(
    structure, budget, formed_budget, padded
):
    """theory.testing.labels solves a component over Python ints and, past SMALL_PAIRS, again over
    arrays: both representations give the same labels, give up on the same components and
    count the same work (the portfolio interleaves methods by that count)."""
    import theory.testing.labels as labels_module

    if padded:  # evidence numbered past 64: sets of two words
        padding = [f"!pad{i:02d}" for i in range(64)]
        structure = SupportStructure.build(
            padding + sorted(structure.evidence), structure.claims, structure.justifications
        )
    index = index_of(structure)
    targets = [index.number[c] for c in sorted(structure.claims)]
    answers = []
    # always arrays, mixed, ints up to the largest the algebra allows
    for small_pairs in (0, 16, labels_module.MINIMISE_FROM):
        saved = labels_module.SMALL_PAIRS
        labels_module.SMALL_PAIRS = small_pairs
        try:
            formed: list[int] = []
            found = all_labels(index, targets, budget, formed_budget, formed=formed)
        finally:
            labels_module.SMALL_PAIRS = saved
        answers.append(
            (
                {n: None if sets is None else sorted(sets) for n, sets in found.items()},
                formed,
            )
        )
    assert answers[0] == answers[1] == answers[2]


@pytest.mark.slow
@settings(max_examples=200)
@given(
    jst.support_structures(max_evidence=7, max_claims=8, cycles=True),
    st.integers(0, 4),
    st.integers(0, 40),
)
def test_kernel_budgets_never_change_an_answer(structure, max_sets, max_work):
    """Over a budget a target gets a status instead of a label; a label given is exact."""
    index = index_of(structure)
    claims = sorted(structure.claims)
    found = labels(index, [index.number[c] for c in claims], max_sets=max_sets, max_work=max_work)
    for k, claim in enumerate(claims):
        if found.status[k] == OK:
            expected = brute_force_minimal_justifications(structure, claim)
            assert as_sets(index, found, k) == expected
            assert len(expected) <= max_sets
        else:
            assert found.status[k] in (OVER_SETS, OVER_WORK)


def test_work_budget_stops_before_the_later_components():
    # a chain of claims: one component each, so a zero work budget stops after the first
    structure = SupportStructure.build(
        ["e", "f"],
        ["a", "b", "c"],
        [("a", ["e"]), ("a", ["f"]), ("b", ["a", "e"]), ("c", ["b", "f"])],
    )
    index = index_of(structure)
    found = labels(index, [index.number["c"]], max_work=0)
    assert found.status[0] == OVER_WORK
    assert labels(index, [index.number["c"]]).sets(0) is not None


def test_more_evidence_than_one_word():
    """130 evidence items: rows of three 64-bit words."""
    evidence = [f"e{i:03d}" for i in range(130)]
    pairs = [("any", [e]) for e in evidence[:70]]  # 70 singletons
    pairs += [("both", [evidence[0], evidence[129]]), ("both", [evidence[64], evidence[65]])]
    pairs += [("top", ["any", "both"]), ("loop", ["top"]), ("top", ["loop", evidence[100]])]
    structure = SupportStructure.build(evidence, ["any", "both", "top", "loop"], pairs)
    index = index_of(structure)
    found = labels(index, [index.number["top"], index.number["any"]])
    assert as_sets(index, found, 1) == frozenset(frozenset([e]) for e in evidence[:70])
    expected = frozenset(
        [frozenset([evidence[0], evidence[129]]), frozenset([evidence[64], evidence[65]])]
    )
    assert as_sets(index, found, 0) == expected  # the loop through e100 adds nothing
    assert minimal_justifications(structure, "top", method="labels") == expected
    assert minimal_justifications(structure, "top", method="sat") == expected


def test_subsumed_justification_is_not_expanded():
    """root = y OR (y AND X), X with 2^16 minimal justifications: the second justification
    can hold only when the first does, so X is never computed."""
    k = 16
    evidence = ["y"] + [f"x{i}{side}" for i in range(k) for side in "ab"]
    pairs = [(f"k{i}", [f"x{i}{side}"]) for i in range(k) for side in "ab"]
    pairs += [("X", [f"k{i}" for i in range(k)]), ("root", ["y"]), ("root", ["y", "X"])]
    structure = SupportStructure.build(evidence, [f"k{i}" for i in range(k)] + ["X", "root"], pairs)
    index = index_of(structure)
    found = labels(index, [index.number["root"]], max_work=100)
    assert found.status[0] == OK and as_sets(index, found, 0) == {frozenset(["y"])}
    assert found.work < 100


@pytest.mark.slow
@settings(max_examples=300)
@given(structure_and_claim(), st.data())
def test_cone_oracle_decides_like_the_fixpoint_and_shrinks_and_grows(case, data):
    structure, claim = case
    index = index_of(structure)
    oracle = ConeOracle(index, index.number[claim])
    cone = sorted(evidence_ancestors(structure, claim))
    present = data.draw(
        st.sets(st.sampled_from(sorted(structure.evidence)))
        if structure.evidence
        else st.just(set())
    )

    def holds(chosen):
        return claim in active_state(structure, evidence=frozenset(chosen))

    assert oracle.holds(index.numbers(present)) == holds(present)
    true, result = oracle.examine(index.numbers(present))
    names = {index.ids[n] for n in result}
    assert true == holds(present)
    if true:  # a minimal true subset of the present evidence
        assert names <= set(present) and holds(names)
        assert not any(holds(names - {x}) for x in names)
    else:  # the cone evidence outside a maximal false superset of the present evidence
        inside = set(cone) - names
        assert not names & set(present) and set(present) & set(cone) <= inside
        assert not holds(inside)
        assert all(holds(inside | {x}) for x in names)


@pytest.mark.slow
@settings(max_examples=400)
@given(structure_and_claim())
def test_one_search_enumeration_equals_brute_force(case):
    structure, claim = case
    expected = brute_force_minimal_justifications(structure, claim)
    enumerator = JustificationEnumerator.for_claim(structure, claim)
    assert enumerator.all_minimal() == expected
    assert frozenset(JustificationEnumerator.for_claim(structure, claim)) == expected
    assert minimal_justifications(structure, claim) == expected
    assert minimal_justifications(structure, claim, method="sat") == expected


def test_a_claim_on_no_evidence_has_the_empty_set_once_and_the_search_stops():
    """A justification with no antecedents: the empty set is the one minimal justification;
    the solver loop yields it once and stops."""
    structure = SupportStructure.build(["e0"], ["c0"], [("c0", [])])
    assert list(islice(iter(JustificationEnumerator.for_claim(structure, "c0")), 3)) == [
        frozenset()
    ]
    assert JustificationEnumerator.for_claim(structure, "c0").all_minimal() == {frozenset()}
    assert minimal_justifications(structure, "c0", method="sat") == {frozenset()}


def test_one_search_on_loops_needing_cuts():
    """Two loops held up only by each other, and a cycle entered from three places."""
    structure = SupportStructure.build(
        ["p", "q", "r"],
        ["a", "b", "c", "d"],
        [
            ("a", ["b"]),
            ("b", ["a"]),
            ("c", ["d"]),
            ("d", ["c"]),
            ("a", ["c"]),
            ("c", ["a"]),
            ("b", ["p", "q"]),
            ("d", ["r"]),
            ("d", ["p"]),
        ],
    )
    for claim in "abcd":
        expected = brute_force_minimal_justifications(structure, claim)
        assert JustificationEnumerator.for_claim(structure, claim).all_minimal() == expected
    assert minimal_justifications(structure, "a", method="sat") == {
        frozenset(["r"]),
        frozenset(["p"]),
    }


def test_kernel_on_every_subset_of_a_small_graph():
    """All 2^4 sets of present evidence, through the oracle and the labels."""
    structure = SupportStructure.build(
        ["e1", "e2", "e3", "e4"],
        ["a", "b", "c"],
        [
            ("a", ["e1", "e2"]),
            ("a", ["b"]),
            ("b", ["a"]),
            ("b", ["e3"]),
            ("c", ["a", "e4"]),
            ("c", ["b", "e1"]),
        ],
    )
    index = index_of(structure)
    oracle = ConeOracle(index, index.number["c"])
    items = sorted(structure.evidence)
    for size in range(len(items) + 1):
        for chosen in combinations(items, size):
            assert oracle.holds(index.numbers(chosen)) == (
                "c" in active_state(structure, evidence=frozenset(chosen))
            )
    found = labels(index, [index.number["c"]])
    assert as_sets(index, found, 0) == brute_force_minimal_justifications(structure, "c")


@pytest.mark.slow
@settings(max_examples=300)
@given(structure_and_claim())
def test_one_search_with_no_encoding_at_all(case):
    """With the encoding's clauses dropped, every model's evidence is arbitrary, so most are
    false: the oracle's clauses alone (minimal true sets blocked, maximal false sets cut,
    with the loop formulas of the loops under them) must still find exactly the minimal
    justifications, in the SAT search's own loop (one arm, no encoding but the root)."""
    from dataclasses import replace

    from theory.solver.cone_cnf import cone_cnf
    from theory.solver.justifications import _arm
    from theory.solver.options import DEFAULTS

    structure, claim = case
    index = index_of(structure)
    oracle = ConeOracle(index, index.number[claim])
    cnf = cone_cnf(oracle)
    bare = replace(cnf, literals=cnf.literals[:0], start=cnf.start[:1], forward=0)
    found = {
        s for _, sets, _ in _arm(index, oracle, bare, "cadical195", False, DEFAULTS) for s in sets
    }
    assert found == brute_force_minimal_justifications(structure, claim)


def test_set_budget_holds_while_a_loop_is_seeded():
    """Found by the CI profile: c0 <- e0 | e1 | c0 with a budget of one set. The seeds of
    the loop alone exceed it, and must say so (they once slipped through unchecked)."""
    structure = SupportStructure.build(
        ["e0", "e1"], ["c0"], [("c0", ["e0"]), ("c0", ["e1"]), ("c0", ["c0"])]
    )
    index = index_of(structure)
    assert labels(index, [index.number["c0"]], max_sets=1).status[0] == OVER_SETS
    assert as_sets(index, labels(index, [index.number["c0"]], max_sets=2), 0) == {
        frozenset(["e0"]),
        frozenset(["e1"]),
    }


@pytest.mark.slow
@settings(max_examples=300)
@given(structure_and_claim(max_evidence=6, max_claims=8), st.data())
def test_unfounded_loops_give_valid_loop_formulas(case, data):
    """Each loop the oracle reports for a false evidence set is a set of claims outside its
    least fixpoint, and its loop formula holds in the least fixpoint of every evidence set:
    a member held means one of the external justifications fires."""
    structure, claim = case
    index = index_of(structure)
    oracle = ConeOracle(index, index.number[claim])
    present = data.draw(
        st.sets(st.sampled_from(sorted(structure.evidence)))
        if structure.evidence
        else st.just(set())
    )
    if claim in active_state(structure, evidence=frozenset(present)):
        return
    active_now = active_state(structure, evidence=frozenset(present))
    items = sorted(structure.evidence)
    fixpoints = [
        active_state(structure, evidence=frozenset(e for i, e in enumerate(items) if mask >> i & 1))
        for mask in range(1 << len(items))
    ]
    for members, external in oracle.unfounded(index.numbers(present)):
        names = {index.ids[n] for n in members}
        assert names and not names & set(active_now)
        for j in external:
            assert not set(index.ids[a] for a in index.just_antecedents[j]) & names
            assert index.ids[index.just_claim[j]] in names
        for fixpoint in fixpoints:
            if names & set(fixpoint):
                assert any(
                    all(index.ids[a] in fixpoint for a in index.just_antecedents[j])
                    for j in external
                )


@pytest.mark.slow
def test_python_labels_of_a_long_cycle_visit_only_the_members_that_change():
    """A 6,000-claim cycle entered at three points: a round of the semi-naive evaluation
    changes a few members, so the labels take time linear in the cycle (visiting every
    member each round took about 17 s here, a round per step along the cycle)."""
    import time

    from benchmarks.generate import cycle

    structure = cycle(6000)
    index = index_of(structure)
    root = index.number["c0"]
    started = time.process_time()
    found = all_labels(index, [root], budget=1 << 62)[root]
    seconds = time.process_time() - started
    assert found is not None
    assert sorted(sorted(index.names_of_bits(s)) for s in found) == [["e0"], ["e1"], ["e2"]]
    assert seconds < 1.5, seconds


def _chain_with_ways_in(n: int, seed: int) -> SupportStructure:
    """c0 <- e0; c(i) <- c(i-1), often back as well; now and then c(i) <- c(r), e(k) for an
    earlier r: one component whose every label is {{e0}}, reached by many non-minimal sets."""
    import random

    rng = random.Random(seed)
    evidence = [f"e{k}" for k in range(10)]
    claims = [f"c{i}" for i in range(n)]
    pairs = [("c0", ["e0"])]
    for i in range(1, n):
        pairs.append((claims[i], [claims[i - 1]]))
        if rng.random() < 0.3:
            pairs.append((claims[i - 1], [claims[i]]))
        if rng.random() < 0.1:
            pairs.append((claims[i], [claims[rng.randrange(i)], rng.choice(evidence)]))
        if rng.random() < 0.05:
            pairs.append((claims[rng.randrange(i)], [claims[i]]))
    return SupportStructure.build(evidence, claims, pairs)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_loop_pushes_on_only_the_sets_of_its_least_fixpoint(seed):
    # smallest sets first: a set that a smaller one later replaces never forms products, so
    # the work is a few units per member (in arrival order: 200-900 per member here)
    structure = _chain_with_ways_in(600, seed)
    index = index_of(structure)
    top = index.number["c599"]
    found = labels(index, [top])
    assert found.status[0] == OK
    assert sets_of_ids(index, found, 0) == frozenset([frozenset(["e0"])])
    assert found.work <= 5 * 600, found.work


@pytest.mark.slow
@settings(max_examples=400)
@given(
    st.lists(
        st.lists(st.integers(0, 191), max_size=4, unique=True) | st.sampled_from([[3], [3, 70]]),
        max_size=40,
    )
)
def test_minimize_over_several_words_keeps_exactly_the_minimal_distinct_rows(rows):
    """theory.solver.kernels.minimize on rows of three words (sets of items 0-191; repeats,
    subsets and the empty set drawn often): the distinct minimal rows, each once. Rows of
    one size are compared for equality only, rows of smaller sizes for subsets."""
    import numpy as np

    from theory.solver.kernels import minimize

    sets = np.zeros((max(1, len(rows)), 3), dtype=np.uint64)
    for k, row in enumerate(rows):
        for item in row:
            sets[k, item // 64] |= np.uint64(1 << (item % 64))
    work = np.array([0, 0, 1 << 62], dtype=np.int64)
    out = minimize(sets, len(rows), work)
    got = [
        frozenset(w * 64 + b for w in range(3) for b in range(64) if int(r[w]) >> b & 1)
        for r in out
    ]
    distinct = {frozenset(row) for row in rows}
    assert len(got) == len(set(got))
    assert set(got) == {s for s in distinct if not any(t < s for t in distinct)}


@pytest.mark.slow
def test_an_antichain_of_twenty_thousand_singletons_is_labelled_within_the_work_budget():
    """A claim with 20,000 alternatives of one evidence item each (a fuzzing pass found it):
    every row was tested for a subset against every kept row over all 313 words, so the
    labels gave up at their work budget and the SAT arms took past 100 s. Equal-size rows
    are now compared for equality only: well within the budget."""
    from theory.solver.label_kernel import UNLIMITED
    from theory.solver.options import DEFAULTS

    count = 20_000
    structure = SupportStructure.build(
        [f"e{i}" for i in range(count)], ["c"], [("c", [f"e{i}"]) for i in range(count)]
    )
    index = index_of(structure)
    found = labels(index, [index.number["c"]], max_sets=UNLIMITED, max_work=DEFAULTS.label_work)
    assert found.status[0] == OK
    result = sets_of_ids(index, found, 0)
    assert result is not None and len(result) == count
