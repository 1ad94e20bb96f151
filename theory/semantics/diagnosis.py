"""Diagnoses: the minimal sets of evidence whose invalidation leaves no nogood active.

Reiter's theory of diagnosis (docs/design.md section 2): the diagnoses are the minimal hitting
sets of all conflict sets of the active nogoods (:mod:`theory.semantics.conflicts`). Each diagnosis
comes with its impact, the dry run of exact revision (:mod:`theory.semantics.revision`): what it
retires and which downstream claims it keeps (influence would retire them; an independent
justification survives).

:func:`diagnoses` lists them cheapest first, fewest claims retired, then fewest evidence
items, then by ids. The ranking is exact and needs no enumeration of the costly ones: a
MaxSAT problem (python-sat's RC2) over one variable ``x_e`` per candidate evidence item
(kept) and one ``y_c`` per active claim downstream of them (stays active):

- hard: every conflict set loses an item, ``OR over e in S of NOT x_e``; for a nogood whose
  conflict sets were not all listed (:data:`theory.semantics.conflicts.CONFLICTS_LISTED`: they can
  number millions), the same in one formula, ``NOT f_N(x)``, the conjunction of its nodes'
  support functions on the circuit asserted false (the negative one-sided encoding of
  :mod:`theory.solver.cnf`), over every evidence item of its cone;
- hard: ``y_c -> f_c(x)``, the support function of c (least fixpoint, so loops never keep a
  claim) on the solver core's circuit, evidence outside the candidates fixed present;
- soft: ``y_c`` with weight ``W = candidates + 1``, ``x_e`` with weight 1.

An optimum costs ``W * retired claims + |D|``; it is a minimal hitting set (a strictly
smaller one would be cheaper). After each answer D the clause ``OR over e in D of x_e``
blocks D and its supersets, so the next optimum is the next diagnosis in cost order.
:func:`minimal_hitting_sets` enumerates the same family, unranked, with
``pysat.examples.hitman`` (smallest first).

>>> from theory import SupportStructure
>>> from theory.model.structure import Nogood
>>> from theory.semantics.diagnosis import diagnoses
>>> g = SupportStructure.build(
...     evidence=["a", "b", "c"], claims=["x", "y", "z"],
...     justifications=[("x", ["a"]), ("y", ["b"]), ("y", ["c"]), ("z", ["a"])],
...     nogoods=[Nogood("n1", frozenset({"x", "y"}))])
>>> [(sorted(d.invalidate), sorted(d.retires)) for d in diagnoses(g)]
[(['b', 'c'], ['b', 'c', 'y']), (['a'], ['a', 'x', 'z'])]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from pysat.examples.hitman import Hitman
from pysat.examples.rc2 import RC2
from pysat.formula import WCNF

from theory.model.canonical import smallest_first
from theory.model.index import index_of
from theory.model.structure import Kind, SupportStructure
from theory.semantics.conflicts import Contradiction, contradictions, nogood_circuit
from theory.semantics.fixpoint import active_state
from theory.semantics.revision import downstream_numbers, exact
from theory.solver.cnf import VariablePool, encode
from theory.solver.formula import compile_support


@dataclass(frozen=True)
class Diagnosis:
    """Invalidate ``invalidate`` (evidence): exact revision retires ``retires`` (the
    invalidated items included) and keeps ``keeps`` (downstream claims that stay active)."""

    invalidate: frozenset[str]
    retires: frozenset[str]
    keeps: frozenset[str]
    retired_claims: int

    @property
    def cost(self) -> tuple[int, int]:
        """(claims retired, evidence invalidated): the ranking key, smaller first."""
        return self.retired_claims, len(self.invalidate)


def minimal_hitting_sets(
    sets: Iterable[Iterable[str]], limit: int | None = None
) -> Iterator[frozenset[str]]:
    """The minimal hitting sets of ``sets``, smallest first (``pysat.examples.hitman``).

    Nothing when one of the sets is empty (it cannot be hit); ``{}`` when there is no set.

    >>> sorted(sorted(h) for h in minimal_hitting_sets([{"a", "b"}, {"b", "c"}]))
    [['a', 'c'], ['b']]
    """
    family = [sorted(set(s)) for s in sets]
    if any(not s for s in family):
        return
    if not family:
        yield frozenset()
        return
    hitman = Hitman(bootstrap_with=family, htype="sorted")
    try:
        for hitting_set in islice(hitman.enumerate(), limit):
            yield frozenset(hitting_set)
    finally:
        hitman.delete()


def impact(
    structure: SupportStructure, invalidate: Iterable[str], blocked: Iterable[str] = ()
) -> Diagnosis:
    """The dry run of invalidating ``invalidate`` with ``blocked`` already audited: what exact
    revision retires, and the active claims downstream of ``invalidate`` that it keeps
    (influence would retire them; another justification survives)."""
    blocked_ids = structure.require(blocked)
    return _impact(
        structure,
        structure.under_audit(blocked_ids),
        active_state(structure, blocked=blocked_ids),
        structure.require(invalidate),
    )


def _impact(
    structure: SupportStructure,
    reduced: SupportStructure,
    before: frozenset[str],
    audit: frozenset[str],
) -> Diagnosis:
    retired = exact(reduced, audit)
    index = index_of(structure)
    reached = index.names(downstream_numbers(index, index.numbers(audit)))
    kept = frozenset(
        n for n in reached - retired if n in before and structure.kind(n) is Kind.CLAIM
    )
    claims = sum(1 for n in retired if structure.kind(n) is Kind.CLAIM)
    return Diagnosis(audit, retired, kept, claims)


def _pinned(
    reduced: SupportStructure,
    candidates: Sequence[str],
    affected: Sequence[str],
    active: frozenset[str],
) -> SupportStructure:
    """The support functions of ``affected`` (the claims that invalidating every candidate
    retires) over the ``candidates`` only.

    Everything else they use is constant under any invalidation of candidates, by
    monotonicity: an active node outside ``affected`` stays active (a premise here), an
    inactive one stays inactive (here a claim without justification). So the circuit is
    compiled on the affected region alone, the constants folded away.
    """
    region = set(affected)
    evidence = set(candidates)
    pairs: list[tuple[str, Iterable[str]]] = []
    outside: set[str] = set()
    for claim in affected:
        for justification in reduced.justifications_of[claim]:
            pairs.append((claim, justification.antecedents))
            outside.update(
                a for a in justification.antecedents if a not in region and a not in evidence
            )
    pairs.extend((node, ()) for node in sorted(outside) if node in active)
    return SupportStructure.build(sorted(evidence), [*sorted(region), *sorted(outside)], pairs)


def _ranking_key(d: Diagnosis) -> tuple[int, int, list[str]]:
    return d.retired_claims, len(d.invalidate), sorted(d.invalidate)


def diagnoses(
    structure: SupportStructure,
    found: Sequence[Contradiction] | None = None,
    blocked: Iterable[str] = (),
    limit: int | None = None,
) -> tuple[Diagnosis, ...]:
    """Every diagnosis of the active, diagnosable contradictions, cheapest first.

    ``found`` are the contradictions (default: :func:`theory.semantics.conflicts.contradictions` of the
    structure's nogoods); ``blocked`` the audits in force; ``limit`` keeps the ``limit``
    cheapest (ties at the cut broken by ids, so the answer is deterministic). A
    contradiction with an empty conflict set has no diagnosis over evidence and is left
    out here (``Contradiction.diagnosable``); the others are still diagnosed. Empty when no
    diagnosable contradiction is active.
    """
    blocked_ids = structure.require(blocked)
    if found is None:
        found = contradictions(structure, blocked=blocked_ids)
    to_resolve = [c for c in found if c.active and c.diagnosable]
    listed = [c for c in to_resolve if c.conflicts_complete]
    capped = [c for c in to_resolve if not c.conflicts_complete]
    conflicts = smallest_first({s for c in listed for s in c.conflicts})
    if not to_resolve or limit == 0:
        return ()
    reduced = structure.under_audit(blocked_ids)
    # a nogood whose conflict sets were all listed: hit each of them; one whose listing
    # stopped at its cap: its support circuit, asserted false (the negative encoding has a
    # model exactly where the kept evidence leaves some node of the nogood inactive), over
    # every evidence item of its cone
    circuit, circuit_roots = nogood_circuit(reduced, [c.nogood.nodes for c in capped])
    candidate_set = set().union(*conflicts) if conflicts else set()
    for root in circuit_roots:
        candidate_set |= circuit.variables(root)
    candidates = sorted(candidate_set)
    pool = VariablePool()
    keep = {e: pool.id(("x", e)) for e in candidates}
    wcnf = WCNF()
    for conflict in conflicts:
        wcnf.append([-keep[e] for e in sorted(conflict)])
    for k, root in enumerate(circuit_roots):
        encoding = encode(circuit, root, pool, keep.__getitem__, positive=False, tag=f"nogood{k}")
        if encoding.root is True:  # cannot happen to a diagnosable nogood; exact anyway
            return ()
        for defining in encoding.clauses:
            wcnf.append(defining)
        if encoding.root is not False:
            wcnf.append([-encoding.root])
    active = active_state(structure, blocked=blocked_ids)
    # a claim still active with every candidate invalidated is never retired (monotone)
    affected = sorted(
        n for n in exact(reduced, frozenset(candidates)) if reduced.kind(n) is Kind.CLAIM
    )
    weight = len(candidates) + 1
    if affected:
        compiled = compile_support(_pinned(reduced, candidates, affected, active), affected)

        def inputs(name: str) -> int | bool:
            return keep[name]

        clauses: set[tuple[int, ...]] = set()
        for claim in affected:
            encoding = encode(compiled.circuit, compiled.root(claim), pool, inputs, positive=True)
            if encoding.root is True:
                continue  # cannot be retired by these candidates
            stays = pool.id(("y", claim))
            clauses.update(tuple(c) for c in encoding.clauses)
            clauses.add((-stays,) if encoding.root is False else (-stays, encoding.root))
            wcnf.append([stays], weight=weight)
        for clause in sorted(clauses):
            wcnf.append(list(clause))
    for e in candidates:
        wcnf.append([keep[e]], weight=1)
    found_sets: list[tuple[int, int, list[str]]] = []  # (claims retired, items, ids)
    cut: int | None = None
    with RC2(wcnf) as solver:
        while True:
            model = solver.compute()
            if model is None or (cut is not None and solver.cost > cut):
                break
            literals = set(model)
            invalidate = sorted(e for e in candidates if -keep[e] in literals)
            found_sets.append(
                ((solver.cost - len(invalidate)) // weight, len(invalidate), invalidate)
            )
            if limit is not None and len(found_sets) == limit:
                cut = solver.cost  # collect the ties at the cut, then sort them by ids
            solver.add_clause([keep[e] for e in invalidate])
    found_sets.sort()
    chosen = found_sets[:limit] if limit is not None else found_sets
    # the impact (and its count of retired claims) comes from exact revision itself
    answers = [_impact(structure, reduced, active, frozenset(ids)) for _, _, ids in chosen]
    answers.sort(key=_ranking_key)
    return tuple(answers)


@dataclass(frozen=True)
class DiagnosisReport:
    """Every nogood with its activity and conflict sets, and the diagnoses of the active
    ones, cheapest first (what ``jtms diagnose`` prints and ``Memory.diagnose`` returns)."""

    contradictions: tuple[Contradiction, ...]
    diagnoses: tuple[Diagnosis, ...]

    @property
    def active(self) -> tuple[Contradiction, ...]:
        """The contradictions: nogoods whose nodes are all active."""
        return tuple(c for c in self.contradictions if c.active)

    @property
    def undiagnosable(self) -> tuple[Contradiction, ...]:
        """Active nogoods that hold without evidence: no diagnosis over evidence."""
        return tuple(c for c in self.active if not c.diagnosable)

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``jtms diagnose`` (sorted ids and lists)."""

        def family(sets: Iterable[frozenset[str]]) -> list[list[str]]:
            return sorted((sorted(s) for s in sets), key=lambda s: (len(s), s))

        return {
            "contradictions": [
                {
                    "nogood": c.nogood.id,
                    "nodes": sorted(c.nogood.nodes),
                    "text": c.nogood.text,
                    "active": c.active,
                    "conflicts": family(c.conflicts),
                    "conflicts_complete": c.conflicts_complete,
                    "diagnosable": c.diagnosable,
                }
                for c in self.contradictions
            ],
            "diagnoses": [
                {
                    "invalidate": sorted(d.invalidate),
                    "retires": sorted(d.retires),
                    "keeps": sorted(d.keeps),
                    "retired_claims": d.retired_claims,
                }
                for d in self.diagnoses
            ],
            "undiagnosable": sorted(c.nogood.id for c in self.undiagnosable),
        }


def diagnose(
    structure: SupportStructure,
    blocked: Iterable[str] = (),
    limit: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> DiagnosisReport:
    """The contradictions of the structure's nogoods and their ``limit`` cheapest diagnoses
    (all when None), with ``blocked`` nodes audited. ``progress(1)`` after each nogood."""
    blocked_ids = structure.require(blocked)
    found = contradictions(structure, blocked=blocked_ids, progress=progress)
    return DiagnosisReport(found, diagnoses(structure, found, blocked=blocked_ids, limit=limit))
