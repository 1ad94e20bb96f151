"""Theorem 2, the counting boundary, over every graph of a family.

For each class representative and each active claim ``c`` the compiled brute force
(:mod:`enumerations.counting_kernel`) decides, for the audits drawn from the evidence, from
the claims and from all nodes:

- the *definition*: some audit ``R`` after which Datalog Counting keeps ``c`` and exact
  revision retires it (``c`` in ``counting_R \\ alive_R``, every nonempty ``R`` tried);
- the *criterion*, searched on its own: a witness ``(R, L)``, ``L`` a set of claims with
  ``c`` in it, active before the audit, outside ``R`` and outside ``alive_R``, each member
  with a justification whose antecedents lie in ``L`` or ``alive_R`` (every such ``L``
  tried, not the counting fixpoint), and that each such ``L`` has its support loop.

Theorem 2 says the two agree claim by claim; a claim where they do not, or a witness
without a loop, is a disagreement. The kernel's two fixpoints are the bit-mask form of
``theory.semantics.revision.exact`` and ``counting``: the tests compare it with those
functions on every audit of every class of small families, and the graph enumeration's
brute force (:func:`enumerations.graphs.graph_shard`) compares it with them on every graph
it checks.

The production checker (``theory.safety.counting.counting_verdicts``) is compared claim by
claim with the definition by :func:`compare_checker`, and each witness it gives must
reproduce: the theory's counting keeps the claim after the witness audit and exact retires
it, and its loop is a cycle of claims of the graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from enumerations.counting_kernel import counting_boundary  # compiled (built at install)
from theory.model.structure import SupportStructure
from theory.semantics.revision import counting as theory_counting
from theory.semantics.revision import exact as theory_exact

if TYPE_CHECKING:
    from enumerations.graphs import GraphFamily

DOMAINS = ("evidence", "claims", "all")
"""The audit domains, in the kernel's column order (``--audits`` of ``jtms check``)."""


@dataclass(frozen=True)
class CountingBatch:
    """The kernel's verdicts for a batch of graphs, as bit masks over node numbers (the
    claims are bits ``E .. E + C - 1``).

    ``active[g]``: the claims active before any audit; ``definition[g, d]`` and
    ``criterion[g, d]``: the claims counting-unsafe for audit domain ``DOMAINS[d]`` by the
    definition and by the witness search; ``loopless[g]``: the claims of a witness set with
    no support loop (Theorem 2 says none); ``wrong[g]``: the active claims where the
    definition and the criterion differ in some domain, or that lie in a witness without a
    loop."""

    active: np.ndarray
    definition: np.ndarray
    criterion: np.ndarray
    loopless: np.ndarray
    wrong: np.ndarray


@lru_cache(maxsize=8)
def candidate_arrays(family: GraphFamily) -> tuple[np.ndarray, np.ndarray]:
    """The head node and the antecedent mask of each candidate justification (int32)."""
    candidates = family.candidates()
    heads = np.array([own for own, _ in candidates], dtype=np.int32)
    masks = np.array([mask for _, mask in candidates], dtype=np.int32)
    return heads, masks


def counting_batch(family: GraphFamily, rows: np.ndarray) -> CountingBatch:
    """Run the kernel on class representatives (rows of candidate indices, ``K`` and above
    is padding).

    Examples
    --------
    >>> import numpy as np
    >>> from enumerations.graphs import GraphFamily
    >>> family = GraphFamily(1, 2, 3)
    >>> code = {c: i for i, c in enumerate(family.candidates())}
    >>> # c1 <- e1; c1 <- c2; c2 <- c1 (nodes: e1 = 0, c1 = 1, c2 = 2)
    >>> row = np.array([[code[(1, 0b001)], code[(1, 0b100)], code[(2, 0b010)]]])
    >>> batch = counting_batch(family, row)
    >>> int(batch.definition[0, 0]), int(batch.criterion[0, 0])   # both claims unsafe
    (6, 6)
    """
    rows = np.ascontiguousarray(rows, dtype=np.int32)
    if rows.ndim != 2:
        rows = rows.reshape(len(rows), -1)
    n = len(rows)
    heads, masks = candidate_arrays(family)
    active = np.zeros(n, dtype=np.int32)
    definition = np.zeros((n, len(DOMAINS)), dtype=np.int32)
    criterion = np.zeros((n, len(DOMAINS)), dtype=np.int32)
    loopless = np.zeros(n, dtype=np.int32)
    counting_boundary(
        rows,
        heads,
        masks,
        family.evidence,
        family.claims,
        active,
        definition,
        criterion,
        loopless,
    )
    differ = np.bitwise_or.reduce(definition ^ criterion, axis=1)
    return CountingBatch(active, definition, criterion, loopless, (differ | loopless) & active)


def unsafe_by_rules(structure: SupportStructure, domain: frozenset[str]) -> frozenset[str]:
    """The active claims some nonempty audit drawn from ``domain`` makes counting keep and
    exact retire, by ``theory.semantics.revision.counting`` and ``exact`` on every audit
    (2**|domain| calls of each: the definition, for small graphs)."""
    ordered = sorted(domain)
    unsafe: set[str] = set()
    for bits in range(1, 1 << len(ordered)):
        audit = frozenset(x for i, x in enumerate(ordered) if bits >> i & 1)
        unsafe |= theory_exact(structure, audit) - theory_counting(structure, audit)
    return frozenset(unsafe & structure.claims)


def domain_nodes(structure: SupportStructure, domain: str) -> frozenset[str]:
    """The nodes audits are drawn from for ``domain`` (one of :data:`DOMAINS`)."""
    if domain == "evidence":
        return frozenset(structure.evidence)
    if domain == "claims":
        return frozenset(structure.claims)
    return frozenset(structure.nodes)


def claims_of(mask: int, family: GraphFamily) -> frozenset[str]:
    """The claim ids of a node bit mask."""
    names = family.names
    return frozenset(names[i] for i in range(family.evidence, len(names)) if mask >> i & 1)


def compare_checker(
    structure: SupportStructure, family: GraphFamily, batch: CountingBatch, g: int
) -> tuple[int, list[str]]:
    """Compare ``theory.safety.counting.counting_verdicts`` on ``structure`` (graph ``g`` of
    ``batch``) with the definition, per audit domain and active claim: the verdict, and that
    each witness reproduces (after its audit, drawn from the domain, counting keeps the
    claim and exact retires it; its loop is a cycle of claims, each with a justification
    naming the next, in either direction, all kept by counting and retired by exact). Returns the
    number of verdicts compared and the problems found, one line each."""
    from theory.safety.counting import counting_verdicts

    active = claims_of(int(batch.active[g]), family)
    compared, problems = 0, []
    for d, domain in enumerate(DOMAINS):
        unsafe = claims_of(int(batch.definition[g, d]), family)
        drawn = domain_nodes(structure, domain)
        verdicts = counting_verdicts(structure, audits=domain)
        for claim in sorted(active):
            verdict = verdicts.get(claim)
            compared += 1
            if verdict is None or verdict.safe is None:
                problems.append(f"{claim}: audits of {domain}: no verdict from the checker")
                continue
            if verdict.safe != (claim not in unsafe):
                problems.append(
                    f"{claim}: audits of {domain}: checker says counting_safe={verdict.safe}, "
                    f"exhaustive comparison says {claim not in unsafe}"
                )
                continue
            if verdict.safe:
                if verdict.witness is not None:
                    problems.append(f"{claim}: audits of {domain}: a safe claim with a witness")
                continue
            problems += _witness_problems(structure, claim, domain, drawn, verdict.witness)
    return compared, problems


def _witness_problems(
    structure: SupportStructure,
    claim: str,
    domain: str,
    drawn: frozenset[str],
    witness: object,
) -> list[str]:
    """Why a witness of ``claim`` does not reproduce (empty when it does)."""
    where = f"{claim}: audits of {domain}: witness"
    if witness is None:
        return [f"{where} missing for an unsafe claim"]
    audit = frozenset(getattr(witness, "audit", ()))
    loop = list(getattr(witness, "loop", ()))
    if not audit or not audit <= drawn:
        return [f"{where} audit {sorted(audit)} is not a nonempty audit of {domain}"]
    if claim in theory_counting(structure, audit) or claim not in theory_exact(structure, audit):
        return [f"{where} audit {sorted(audit)} does not make counting keep it and exact retire it"]
    if not loop or not set(loop) <= structure.claims:
        return [f"{where} loop {loop} is not a nonempty list of claims"]
    kept = structure.claims - theory_counting(structure, audit)
    retired = theory_exact(structure, audit)
    stray = [x for x in loop if x not in kept or x not in retired]
    if stray:
        return [f"{where} loop member {stray[0]} is not kept by counting and retired by exact"]
    if not (_is_cycle(structure, loop) or _is_cycle(structure, loop[::-1])):
        return [f"{where} loop {loop} is not a cycle of justifications"]
    return []


def _is_cycle(structure: SupportStructure, loop: list[str]) -> bool:
    """Whether each member of ``loop`` has a justification naming the next (the last, the
    first) among its antecedents."""
    justifications = structure.justifications_of
    return all(
        any(after in j.antecedents for j in justifications.get(here, ()))
        for here, after in zip(loop, loop[1:] + loop[:1])
    )


def structure_rows(rows: Sequence[Sequence[int]], K: int) -> np.ndarray:
    """Rows of possibly different lengths, padded with ``K`` (the kernel's input)."""
    width = max((len(r) for r in rows), default=0)
    out = np.full((len(rows), width), K, dtype=np.int32)
    for i, row in enumerate(rows):
        out[i, : len(row)] = row
    return out


__all__ = [
    "DOMAINS",
    "CountingBatch",
    "candidate_arrays",
    "claims_of",
    "compare_checker",
    "counting_batch",
    "domain_nodes",
    "structure_rows",
    "unsafe_by_rules",
]
