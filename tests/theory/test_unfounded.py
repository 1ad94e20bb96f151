"""theory.testing.unfounded (maximal false sets and unfounded loops in Python) against definitions
computed another way: the least fixpoint of theory.semantics.fixpoint, the greatest by plain
iteration, strongly connected components by reachability."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import SupportStructure
from theory.model.index import index_of
from theory.semantics.fixpoint import active_numbers
from theory.solver.completion import SupportProgram
from theory.solver.justifications import JustificationEnumerator, search
from theory.solver.options import SolverOptions
from theory.testing import strategies as jst
from theory.testing.reference import brute_force_minimal_justifications
from theory.testing.unfounded import ConeFixpoint

LAZY = SolverOptions(ranked_entry=10**15)
"""The SAT search's lazy arm alone (the ranked arm never gets a turn)."""
CYCLIC = jst.support_structures(max_evidence=6, max_claims=8, max_alternatives=3, cycles=True)


def _holds(index, program: SupportProgram, present: set[int]) -> bool:
    off = [e for e in program.evidence if e not in present]
    active = active_numbers(index, evidence_off=off)
    return all(active[r] for r in program.roots)


def _greatest(index, program: SupportProgram, present: set[int]) -> set[int]:
    """The greatest set of cone claims each with a justification whose antecedents are
    present evidence or in the set: drop claims without one until none is dropped."""
    kept = set(program.claims)
    while True:
        drop = {
            n
            for n in kept
            if not any(
                all(a in present or a in kept for a in index.just_antecedents[j])
                for j in index.justs_of[n]
            )
        }
        if not drop:
            return kept
        kept -= drop


def _reaches(edges: dict[int, set[int]], start: int) -> set[int]:
    seen, stack = {start}, [start]
    while stack:
        for m in edges[stack.pop()]:
            if m not in seen:
                seen.add(m)
                stack.append(m)
    return seen


def _drawn_cone(structure: SupportStructure, data: st.DataObject):
    """A claim drawn from ``structure``, its cone, and a set of the cone's evidence."""
    index = index_of(structure)
    claim = data.draw(st.sampled_from(sorted(structure.claims)))
    program = SupportProgram.of(index, index.number[claim])
    present = set(data.draw(st.sets(st.sampled_from(program.evidence))) if program.evidence else ())
    return index, claim, program, present


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(CYCLIC, st.data())
def test_grow_gives_a_maximal_false_set(structure: SupportStructure, data: st.DataObject) -> None:
    index, claim, program, present = _drawn_cone(structure, data)
    grown = ConeFixpoint(program).grow([*present, *present])  # a repeat counts once
    if _holds(index, program, present):
        assert grown is None
        return
    assert grown is not None and present <= grown <= set(program.evidence)
    assert not _holds(index, program, set(grown))
    for e in set(program.evidence) - grown:  # maximal: any other evidence holds the roots
        assert _holds(index, program, set(grown) | {e}), e


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(CYCLIC, st.data())
def test_shrink_and_examine_give_a_minimal_true_subset_or_the_evidence_outside_a_grow(
    structure: SupportStructure, data: st.DataObject
) -> None:
    index, claim, program, present = _drawn_cone(structure, data)
    minimal = {
        frozenset(index.number[e] for e in s)
        for s in brute_force_minimal_justifications(structure, claim)
    }
    cone = ConeFixpoint(program)
    shrunk = cone.shrink(present)
    true, found = cone.examine(present)
    if _holds(index, program, present):
        assert shrunk in minimal and shrunk <= present  # minimal: no other set inside it
        assert true and found == shrunk
    else:
        assert shrunk is None and not true
        grown = set(program.evidence) - found
        assert present <= grown and not _holds(index, program, grown)
        assert all(_holds(index, program, grown | {e}) for e in found)


def test_shrink_drops_what_a_derivation_used_but_does_not_need() -> None:
    # c fires through {b, r} first (its first justification), yet {b} alone holds it
    g = SupportStructure.build(
        ["b", "r", "p"], ["c", "d"], [("c", ["b", "r"]), ("c", ["b"]), ("d", ["c", "p"])]
    )
    index = index_of(g)
    for claim, expected in (("c", {"b"}), ("d", {"b", "p"})):
        cone = ConeFixpoint(SupportProgram.of(index, index.number[claim]))
        shrunk = cone.shrink(index.number[e] for e in ("b", "r", "p"))
        assert shrunk is not None and {index.ids[x] for x in shrunk} == expected


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(CYCLIC, st.data())
def test_unfounded_gives_the_loops_of_what_only_loops_hold(
    structure: SupportStructure, data: st.DataObject
) -> None:
    index, claim, program, present = _drawn_cone(structure, data)
    off = [e for e in program.evidence if e not in present]
    least = {n for n in program.claims if active_numbers(index, evidence_off=off)[n]}
    unfounded = _greatest(index, program, present) - least
    greatest = unfounded | least
    # edges a -> n inside the unfounded claims, through justifications the greatest set holds
    edges: dict[int, set[int]] = {n: set() for n in unfounded}
    for n in unfounded:
        for j in index.justs_of[n]:
            ante = index.just_antecedents[j]
            if all(a in present or a in greatest for a in ante):
                edges.update({a: edges[a] | {n} for a in ante if a in unfounded})
    expected = []
    for n in unfounded:
        component = {m for m in _reaches(edges, n) if n in _reaches(edges, m)}
        if len(component) > 1 or n in edges[n]:
            expected.append(sorted(component))
    loops = ConeFixpoint(program).unfounded(present)
    assert sorted(members for members, _ in loops) == sorted(map(list, set(map(tuple, expected))))
    for members, external in loops:
        inside = set(members)
        assert sorted(external) == sorted(
            j
            for n in members
            for j in index.justs_of[n]
            if not inside & set(index.just_antecedents[j])
        )


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(CYCLIC)
def test_the_solver_loop_with_grown_cuts_equals_brute_force(structure: SupportStructure) -> None:
    """The SAT search's lazy arm alone (which grows each false model to a maximal false set
    and cuts its loops) and the solver loop over the level-ranked encoding
    (JustificationEnumerator) list exactly the minimal justifications."""
    index = index_of(structure)
    for claim in sorted(structure.claims):
        expected = brute_force_minimal_justifications(structure, claim)
        program = SupportProgram.of(index, index.number[claim])
        assert search(index, index.number[claim], options=LAZY) == expected, claim
        assert frozenset(JustificationEnumerator(program)) == expected, claim


@pytest.mark.parametrize(("file", "claim", "bound"), [(0, "c7_0", 38), (1, "c2", 54)])
def test_grown_cuts_finish_the_case_files_in_few_solver_calls(
    monkeypatch, file: int, claim: str, bound: int
) -> None:  # type: ignore[no-untyped-def]
    """On the regression files of tests/cases a solver loop that cut only each false model's
    own loops needed thousands of models without finishing. The SAT search's lazy arm grows
    each false model to a maximal false set and learns the loop formulas of the loops under
    it: 25 (c7_0) and 36 (c2) solver calls, and ``bound`` is that and half again; with the
    loop formulas left out it takes 185 and 103."""
    import theory.solver.justifications as justifications
    from benchmarks.loop_families import case_files
    from benchmarks.peers import clingo_minimal_justifications

    structure, _, _ = case_files()[file]
    index = index_of(structure)
    calls = [0]
    limited = justifications._limited

    def counted(*args):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return (yield from limited(*args))

    monkeypatch.setattr(justifications, "_limited", counted)
    found = search(index, index.number[claim], options=LAZY)
    assert found == clingo_minimal_justifications(structure, claim)
    assert calls[0] <= bound, calls[0]


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(CYCLIC, st.data())
def test_the_solver_loop_on_several_roots_equals_brute_force(
    structure: SupportStructure, data: st.DataObject
) -> None:
    """On a conjunction of roots (what the checker's certificates ask), every minimal
    evidence set under which all of them hold, by subsets of the cone's evidence."""
    from itertools import combinations

    index = index_of(structure)
    claims = sorted(structure.claims)
    roots = data.draw(st.sets(st.sampled_from(claims), min_size=min(2, len(claims)), max_size=3))
    program = SupportProgram.of(index, [index.number[r] for r in roots])
    evidence = program.evidence
    true_sets = [
        frozenset(chosen)
        for size in range(len(evidence) + 1)
        for chosen in combinations(evidence, size)
        if _holds(index, program, set(chosen))
    ]
    minimal = {s for s in true_sets if not any(t < s for t in true_sets)}
    expected = frozenset(frozenset(index.ids[e] for e in s) for s in minimal)
    assert frozenset(JustificationEnumerator(program)) == expected
