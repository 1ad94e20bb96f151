"""Decode a SAT answer (a truth table, maybe an ancestor set) into a support structure.

The claim ``c`` gets one justification per minimal point of f; a recorded ancestor set A
larger than U is realised by one extra, redundant justification ``c <- A`` (it adds
influence edges without changing f). The witness audit is then recomputed with the
project's own revision rules (:mod:`theory.semantics.revision`), an independent check that the
countermodel really separates exact from influence revision.
"""

from __future__ import annotations

from itertools import combinations

from proofs.results import Countermodel
from theory.io.graphfile import graph_to_dict
from theory.model.structure import SupportStructure
from theory.semantics.revision import exact, influence
from theory.testing import truthtable
from theory.testing.truthtable import essential_items, point_names


def minimal_points(table: list[bool], n: int) -> list[int]:
    """The minimal true sets of a decoded truth table (list of truth values)."""
    return truthtable.minimal_points(truthtable.as_table(table), n)


def is_monotone(table: list[bool], n: int) -> bool:
    return truthtable.is_monotone(truthtable.as_table(table), n)


def structure_of(table: list[bool], n: int, ancestors: list[int] | None = None) -> SupportStructure:
    """The one-claim graph of a countermodel; a recorded ancestor set beyond the essential
    items becomes one redundant justification (what makes influence over-revise)."""
    points = minimal_points(table, n)
    essential = essential_items(points, n)
    extra = (
        [set(ancestors) | essential]
        if ancestors is not None and set(ancestors) != essential
        else []
    )
    return truthtable.flat_structure(points, n, extra)


def witness(structure: SupportStructure) -> tuple[list[str], bool, bool] | None:
    """The smallest evidence audit on which exact and influence disagree about c."""
    evidence = sorted(structure.evidence)
    for size in range(len(evidence) + 1):
        for audit in combinations(evidence, size):
            by_exact = truthtable.CLAIM in exact(structure, frozenset(audit))
            by_influence = truthtable.CLAIM in influence(structure, frozenset(audit))
            if by_exact != by_influence:
                return list(audit), by_exact, by_influence
    return None


def decode(table: list[bool], n: int, ancestors: list[int] | None = None) -> Countermodel:
    if not is_monotone(table, n):  # the encodings force monotonicity; say so if they did not
        raise AssertionError("decoded truth table is not monotone")
    structure = structure_of(table, n, ancestors)
    points = minimal_points(table, n)
    found = witness(structure)
    if found is None:
        note = "exact and influence agree on every audit"
        audit = None
    else:
        audit, by_exact, by_influence = found
        note = (
            f"influence {'retires' if by_influence else 'keeps'} c, "
            f"exact {'retires' if by_exact else 'keeps'} it"
        )
    essential = sorted(essential_items(points, n) | set(ancestors or []))
    return Countermodel(
        graph=graph_to_dict(structure),
        minimal_justifications=sorted((point_names(x) for x in points), key=lambda s: (len(s), s)),
        ancestors=[truthtable.item_name(i) for i in essential],
        witness_audit=audit,
        note=note,
    )
