"""The straightforward per-function check: build each flat structure and run the real rules.

For every monotone function (generated in pure Python by the same pair construction), build
the support structure ``c <- S`` for each minimal true set ``S`` with
:class:`theory.model.structure.SupportStructure`, and compare ``theory.semantics.revision.exact`` with
``theory.semantics.revision.influence`` on every audit ``R ⊆ E`` one call at a time. Slow (minutes
for n = 6); it is the oracle for the vectorised kernel (tests: n <= 4, benchmark: n <= 5).
"""

from __future__ import annotations

import time
from itertools import combinations

from enumerations.flat import MAX_COUNTEREXAMPLES, Counterexample, FlatTally
from theory.semantics.revision import RevisionRule
from theory.semantics.revision import exact as theory_exact
from theory.semantics.revision import influence as theory_influence
from theory.testing.truthtable import CLAIM, flat_structure, minimal_points, point_names
from theory.testing.truthtable import item_name as evidence_name


def monotone_functions_py(n: int) -> list[int]:
    """All n-variable monotone truth tables as Python ints (pairs f0 <= f1)."""
    functions = [0, 1]
    for m in range(1, n + 1):
        half = 1 << (m - 1)
        functions = [f0 | f1 << half for f1 in functions for f0 in functions if f0 & ~f1 == 0]
    return functions


def minimal_points_py(table: int, n: int) -> list[int]:
    """The minimal points, computed the straightforward way (:mod:`theory.testing.truthtable`)."""
    return minimal_points(table, n)


def all_audits(n: int) -> list[frozenset[str]]:
    names = [evidence_name(i) for i in range(n)]
    return [frozenset(c) for k in range(n + 1) for c in combinations(names, k)]


def reference_tally(
    n: int,
    exact: RevisionRule = theory_exact,
    influence: RevisionRule = theory_influence,
    limit: int = MAX_COUNTEREXAMPLES,
) -> FlatTally:
    began = time.perf_counter()
    result = FlatTally(n=n, shards=1)
    audits = all_audits(n)
    full = (1 << n) - 1
    for table in monotone_functions_py(n):
        result.monotone_functions += 1
        if not table >> full & 1:
            continue  # the claim is not active on full evidence
        result.active += 1
        minimal = minimal_points_py(table, n)
        structure = flat_structure(minimal, n)
        unique = len(minimal) == 1
        witness = None
        for audit in audits:
            by_exact = CLAIM in exact(structure, audit)
            by_influence = CLAIM in influence(structure, audit)
            if by_exact != by_influence:
                witness = (audit, by_exact, by_influence)
                break
        agree = witness is None
        result.unique_minimal += unique
        result.influence_exact += agree
        if agree != unique:
            result.mismatches += 1
            if len(result.counterexamples) < limit:
                names = sorted((point_names(p) for p in minimal), key=lambda s: (len(s), s))
                if witness is None:
                    # the theorem's witness: {e} for some e in S1 \ S2
                    only_first = minimal[0] & ~minimal[1]
                    e = (only_first & -only_first).bit_length() - 1
                    audit = frozenset({evidence_name(e)})
                    witness = (
                        audit,
                        CLAIM in exact(structure, audit),
                        CLAIM in influence(structure, audit),
                    )
                audit, by_exact, by_influence = witness
                result.counterexamples.append(
                    Counterexample(
                        n=n,
                        minimal_justifications=names,
                        audit=sorted(audit),
                        exact_retires=by_exact,
                        influence_retires=by_influence,
                        problem="unique minimal justification, yet the rules disagree"
                        if unique
                        else f"{len(minimal)} minimal justifications, yet the rules agree on every audit",
                    )
                )
    result.seconds = time.perf_counter() - began
    return result


def python_int_tally(n: int, limit: int = MAX_COUNTEREXAMPLES) -> FlatTally:
    """The straightforward check without the theory engine: per function, plain Python
    integers, every audit one at a time (minimal points, their union, then for each audit
    R: exact keeps c iff f(E \\ R), influence keeps c iff R misses the union)."""
    began = time.perf_counter()
    result = FlatTally(n=n, shards=1)
    full = (1 << n) - 1
    for table in monotone_functions_py(n):
        result.monotone_functions += 1
        if not table >> full & 1:
            continue
        result.active += 1
        minimal = minimal_points_py(table, n)
        union = 0
        for point in minimal:
            union |= point
        agree = all(
            bool(table >> (full & ~audit) & 1) == (audit & union == 0) for audit in range(1 << n)
        )
        unique = len(minimal) == 1
        result.unique_minimal += unique
        result.influence_exact += agree
        result.mismatches += agree != unique
    result.seconds = time.perf_counter() - began
    return result
