"""Level rankings: a polynomial-size CNF in which every model of the completion is founded.

The completion of a support cone (:mod:`theory.solver.completion`) has *supported* models, and a
support loop can hold itself up in one of them. Lazy loop formulas cut such models one loop
at a time, and a graph can have exponentially many loops to cut (Lin and Zhao's loop
formulas are exponential in the worst case). A level ranking removes them all at once
(Janhunen 2006, "Some (in)translatability results for normal logic programs and
propositional theories", the lp2sat translation; Niemelä 2008, "Stable models and difference
logic"; the "ordered completion" of Asuncion, Lin, Zhang and Zhou 2012 is the same idea):
each claim n of a cyclic component C gets an integer level l_n, and a justification j of n
with antecedents inside C may hold n up only through its *support* variable

    u_j -> body_j      and      u_j -> l_a < l_n   for every antecedent a of j inside C,

so the completion clause of n reads ``h_n -> OR(external bodies, u_j)``. In a model the
held members of C are then derived in the order of their levels, each by a justification
whose antecedents inside C come earlier: the model is founded (the least fixpoint holds
every claim it holds). Conversely every founded model extends to one: give each held member
the stage of C's own Kleene iteration at which it is derived (at most |C| - 1). So the
models' evidence sets are exactly those whose least fixpoint holds the root, and a SAT
solver needs no loop check and no loop clause.

Levels are binary: ceil(log2 |C|) bits per member and a comparator of O(bits) clauses per
antecedent inside C (prefix-equal variables from the most significant bit down), so the
encoding is O(E log |C|) for E antecedent edges, whatever the size of the component. One
encoding for every component: an order encoding ("l_n >= k" per level) lets unit
propagation reason about levels directly, but costs |C| clauses per antecedent inside C,
quadratic in a long cycle (a 25,000-claim cycle would need 6 x 10^8 clauses). The ranked
arm is the portfolio's fallback for graphs whose loops the lazy arm would cut one by one, so
it must stay buildable at every size; where the lazy arm answers first, the encoding of the
arm that lost costs nothing.
"""

from __future__ import annotations

from pysat.formula import IDPool


def clauses_per_edge(size: int) -> int:
    """Clauses of one ``support -> l_a < l_n`` in a component of ``size`` members (for an
    estimate of the encoding's size before building it)."""
    return 6 * max(1, (size - 1).bit_length()) + 2


class Levels:
    """The level variables of one cyclic component of one encoded copy, and the clauses
    that relate them (none: any bits are a level)."""

    def __init__(self, pool: IDPool, tag: str, component: int, members: list[int]):
        self.pool, self.tag, self.component = pool, tag, component
        self.size = len(members)
        self.clauses: list[list[int]] = []
        self.width = max(1, (self.size - 1).bit_length())
        self.vars: dict[int, list[int]] = {  # bit i of l_n, most significant first
            n: [pool.id((tag, "lb", component, n, i)) for i in range(self.width)] for n in members
        }

    def below(self, support: int, a: int, n: int) -> list[list[int]]:
        """Clauses of ``support -> l_a < l_n`` over bits (most significant first): some bit
        i with a_i = 0, n_i = 1 and the bits above it equal. ``p_i``: the bits above i are
        equal (``p_0`` true)."""
        if a == n or self.size == 1:
            return [[-support]]
        pool, key = self.pool, (self.tag, "lt", self.component, a, n, support)
        bits_a, bits_n = self.vars[a], self.vars[n]
        width = self.width
        prefix = [pool.id(key + ("p", i)) for i in range(width)]
        decide = [pool.id(key + ("d", i)) for i in range(width)]
        clauses: list[list[int]] = [[-support] + decide, [prefix[0]]]
        for i in range(width):
            d, p, x, y = decide[i], prefix[i], bits_a[i], bits_n[i]
            clauses.extend([[-d, -x], [-d, y], [-d, p]])
            if i + 1 < width:
                q = prefix[i + 1]
                clauses.extend([[-q, p], [-q, -x, y], [-q, x, -y]])
        return clauses


__all__ = ["Levels", "clauses_per_edge"]
