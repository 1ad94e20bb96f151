"""The least fixpoint in CNF, exact as encoded: the level-ranked completion and the closure.

The support function of claim c, f_c(X) = "c is in the least fixpoint when exactly the
evidence X is present", is encoded over the support cone of c with one variable ``h_n`` per
claim ("n holds") and one ``b_j`` per justification of two or more antecedents. The size is
O(E log |C|) for E antecedent edges and cyclic components C: nothing is unrolled.

- **Root false** (``positive=False``): clauses ``AND(antecedents of j) -> h_n`` for every
  justification. Their models are the sets closed under the justifications, and the least
  fixpoint is the least of them, so "some model with h_c false exists" iff f_c(X) is false.
  Exact as it stands: loops need nothing more.
- **Root true** (``positive=True``): the one-sided completion ``h_n -> OR(bodies)``,
  ``b_j -> antecedent``, whose models are *supported*, with the level rankings of
  :mod:`theory.solver.ranking` on the cyclic components: a justification of n with
  antecedents inside n's component holds n up only through antecedents of lower levels, so
  every model is founded and no support loop can hold itself up.

So every model of either copy is exact, and a solver over them needs no loop check:
:class:`~theory.solver.justifications.JustificationEnumerator` runs on these copies (the
checker's relevance queries, which need both at once), and the ranked arm of the SAT search
on the root-true one. The lazy encoding (the completion with loop formulas learnt as models
need them) is the compiled one of :mod:`theory.solver.cone_cnf`, built in one place. The
unrolled circuit of :mod:`theory.solver.formula` stays as the independent oracle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pysat.formula import IDPool

from theory.model.graphalgo import (
    ancestor_numbers,
    is_cyclic_component,
    strongly_connected_components,
)
from theory.model.index import SupportIndex
from theory.solver.cnf import Encoding
from theory.solver.ranking import Levels, clauses_per_edge

Inputs = Callable[[str], "int | bool"]


@dataclass
class ProgramCopy:
    """One encoded copy of the program: the literal of every claim and justification body."""

    tag: str
    positive: bool
    inputs: dict[int, int | bool]  # evidence number -> literal or constant
    holds: dict[int, int]  # claim number -> h variable
    body: dict[int, int | bool]  # justification number -> body literal or constant
    root: int | bool


@dataclass
class SupportProgram:
    """The support cone of one claim, ready to be encoded (see the module docstring).

    Examples
    --------
    >>> from theory import SupportStructure
    >>> from theory.model.index import index_of
    >>> g = SupportStructure.build(["e"], ["a", "b"], [("a", ["b"]), ("b", ["a"]), ("b", ["e"])])
    >>> program = SupportProgram.of(index_of(g), index_of(g).number["a"])
    >>> program.variables, len(program.cyclic)
    (['e'], 1)
    """

    index: SupportIndex
    roots: tuple[int, ...]  # the formula is the AND of these nodes' support
    claims: list[int]
    evidence: list[int]
    cyclic: list[list[int]]  # cyclic components, in topological order
    component: dict[int, int] = field(default_factory=dict)  # claim -> position in cyclic

    @classmethod
    def of(cls, index: SupportIndex, root: int | Sequence[int]) -> "SupportProgram":
        """The program of one node's support function, or of the AND of several nodes'."""
        roots = (root,) if isinstance(root, int) else tuple(sorted(set(root)))
        cone = ancestor_numbers(index, roots)
        is_evidence = index.is_evidence
        claims = sorted(n for n in cone if not is_evidence[n])
        evidence = sorted(n for n in cone if is_evidence[n])
        cyclic = [
            c for c in strongly_connected_components(index, claims) if is_cyclic_component(index, c)
        ]
        program = cls(index, roots, claims, evidence, cyclic)
        for position, members in enumerate(cyclic):
            for m in members:
                program.component[m] = position
        return program

    def ranking_size(self) -> int:
        """About how many clauses the level rankings of the root-true copy add: one
        comparison (:func:`theory.solver.ranking.clauses_per_edge`) per antecedent inside its
        claim's cyclic component."""
        index = self.index
        total = 0
        for position, members in enumerate(self.cyclic):
            per_edge = clauses_per_edge(len(members))
            for n in members:
                for j in index.justs_of[n]:
                    total += per_edge * sum(
                        1 for a in index.just_antecedents[j] if self.component.get(a) == position
                    )
        return total

    @property
    def variables(self) -> list[str]:
        """The evidence ids of the cone, sorted."""
        return sorted(self.index.ids[e] for e in self.evidence)

    def encode(
        self, pool: IDPool, inputs: Inputs, positive: bool = True, tag: str = "p"
    ) -> tuple[Encoding, ProgramCopy]:
        """Clauses of one copy; ``inputs(evidence id)`` gives each evidence literal.

        ``positive``: the root-true copy, the completion with level rankings on the cyclic
        components (:mod:`theory.solver.ranking`), so every model is founded; otherwise the
        root-false copy, the closure under the justifications."""
        index = self.index
        ids = index.ids
        copy = ProgramCopy(
            tag,
            positive,
            {e: inputs(ids[e]) for e in self.evidence},
            {n: pool.id((tag, "h", n)) for n in self.claims},
            {},
            True,
        )
        clauses: list[list[int]] = []
        levels: list[Levels] = []
        if positive:
            for position, members in enumerate(self.cyclic):
                levels.append(Levels(pool, tag, position, members))
                clauses.extend(levels[-1].clauses)

        def literal(a: int) -> int | bool:
            return copy.inputs[a] if a in copy.inputs else copy.holds[a]

        for n in self.claims:
            h = copy.holds[n]
            bodies: list[int] = []
            premise = False
            for j in index.justs_of[n]:
                parts = [literal(a) for a in index.just_antecedents[j]]
                if any(p is False for p in parts):
                    copy.body[j] = False
                    continue
                lits = [p for p in parts if p is not True]
                if not lits:
                    copy.body[j] = True
                    premise = True
                    continue
                if not positive:
                    clauses.append([h] + [-p for p in lits])
                    continue
                own = self.component.get(n)
                inner = (
                    []
                    if own is None
                    else [a for a in index.just_antecedents[j] if self.component.get(a) == own]
                )
                if own is not None and inner:  # held up by its support: body, lower levels
                    u = pool.id((tag, "u", j))
                    copy.body[j] = u
                    clauses.extend([-u, p] for p in lits)
                    rank = levels[own]
                    for a in inner:
                        clauses.extend(rank.below(u, a, n))
                elif len(lits) == 1:
                    copy.body[j] = lits[0]
                else:
                    b = pool.id((tag, "b", j))
                    copy.body[j] = b
                    clauses.extend([-b, p] for p in lits)
                bodies.append(copy.body[j])  # type: ignore[arg-type]
            if positive and not premise:
                clauses.append([-h] + bodies)
            elif not positive and premise:
                clauses.append([h])
        copy.root = self._root_literal(pool, copy, clauses)
        return Encoding(clauses, copy.root), copy

    def _root_literal(
        self, pool: IDPool, copy: ProgramCopy, clauses: list[list[int]]
    ) -> int | bool:
        parts = [copy.inputs[r] if r in copy.inputs else copy.holds[r] for r in self.roots]
        if any(p is False for p in parts):
            return False
        lits = [p for p in parts if p is not True]
        if not lits:
            return True
        if len(lits) == 1:
            return lits[0]
        r = pool.id((copy.tag, "root"))
        if copy.positive:
            clauses.extend([-r, p] for p in lits)
        else:
            clauses.append([r] + [-p for p in lits])
        return r


__all__ = ["ProgramCopy", "SupportProgram"]
