"""Deliberately wrong revision rules (seeded mutations).

The enumerations take their rules as parameters; running them with one of these instead of
exact revision must produce counterexamples. A check that cannot fail proves nothing, so the
tests run every mutant and require a reported counterexample.
"""

from __future__ import annotations

import numpy as np

from enumerations.flat import Words, Workspace, influence_survival
from enumerations.monotone import valid_mask
from theory.model.index import SupportIndex, index_of
from theory.model.structure import SupportStructure
from theory.semantics.fixpoint import active_numbers
from theory.semantics.revision import none


# --- flat universes (word rules) ----------------------------------------------------------
def forgetful_survival(tables: Words, minimal: Words, n: int, ws: Workspace | None = None) -> Words:
    """ "Exact" revision that forgets alternatives: the claim is retired as soon as *any* of
    its justifications loses an antecedent. In a flat universe that is exactly influence
    reachability, so every claim with two minimal justifications looks influence-exact."""
    return influence_survival(tables, minimal, n, ws)


# --- structures (theory-level rules) ------------------------------------------------------
def _start(
    structure: SupportStructure, audit: frozenset[str]
) -> tuple[SupportIndex, bytearray, set[int]]:
    """The index, the active flags before the audit, and the audited active nodes."""
    index = index_of(structure)
    active = active_numbers(index)
    return index, active, {index.number[a] for a in audit if active[index.number[a]]}


def forgetful_exact(structure: SupportStructure, audit: frozenset[str]) -> frozenset[str]:
    """Structure version of :func:`forgetful_survival`: retire the audit, then every active
    claim with *some* justification that contains a retired node, to a fixpoint."""
    index, active, retired = _start(structure, audit)
    changed = True
    while changed:
        changed = False
        for j, antecedents in enumerate(index.just_antecedents):
            c = index.just_claim[j]
            if active[c] and c not in retired and any(a in retired for a in antecedents):
                retired.add(c)
                changed = True
    return index.names(retired)


def loop_keeping_exact(structure: SupportStructure, audit: frozenset[str]) -> frozenset[str]:
    """ "Exact" revision without the least fixpoint: a claim is retired only when every one of
    its justifications contains a retired node, so a support loop keeps itself alive after
    its evidence is gone (the peers' bug docs/design.md section 2 warns about)."""
    index, active, retired = _start(structure, audit)
    changed = True
    while changed:
        changed = False
        for c in range(index.size):
            if not active[c] or c in retired or index.is_evidence[c]:
                continue
            justs = index.justs_of[c]
            if justs and all(
                any(a in retired or not active[a] for a in index.just_antecedents[j]) for j in justs
            ):
                retired.add(c)
                changed = True
    return index.names(retired)


def unpropagated_survival(
    tables: Words, minimal: Words, n: int, ws: Workspace | None = None
) -> Words:
    """ "Exact" revision that never propagates (the ``none`` rule): the claim always survives
    an audit of evidence, so even claims with a unique minimal justification disagree."""
    full = np.full(len(tables[0]), valid_mask(n), dtype=np.uint64)
    return tuple(full for _ in tables)


def unpropagated_exact(structure: SupportStructure, audit: frozenset[str]) -> frozenset[str]:
    """Structure version of :func:`unpropagated_survival`: retire only the audited nodes."""
    return none(structure, audit)
