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

Levels are order-encoded (``g(n, k)`` = "l_n >= k", k = 1..|C| - 1) for components of up to
:data:`ORDER_UP_TO` members: unit propagation then reasons about levels directly, at |C|
clauses per antecedent inside C. Larger components get ceil(log2 |C|) bits per member and
a comparator of O(bits) clauses per antecedent (prefix-equal variables from the most
significant bit down), so the encoding stays O(E log |C|) for E antecedent edges.
"""

from __future__ import annotations

from pysat.formula import IDPool

ORDER_UP_TO = 256
"""Largest component whose levels are order-encoded (|C| - 1 variables per member and |C|
clauses per antecedent inside it); above, binary levels (log2 |C| bits)."""


def clauses_per_edge(size: int) -> int:
    """Clauses of one ``support -> l_a < l_n`` in a component of ``size`` members (for an
    estimate of the encoding's size before building it)."""
    return size if size <= ORDER_UP_TO else 6 * max(1, (size - 1).bit_length()) + 2


class Levels:
    """The level variables of one cyclic component of one encoded copy, and the clauses
    that relate them."""

    def __init__(self, pool: IDPool, tag: str, component: int, members: list[int]):
        self.pool, self.tag, self.component = pool, tag, component
        self.size = len(members)
        self.order = self.size <= ORDER_UP_TO
        self.clauses: list[list[int]] = []
        self.width = max(1, (self.size - 1).bit_length())
        self.vars: dict[int, list[int]] = {}
        for n in members:
            if self.order:
                # g(n, k) for k = 1..size-1, and l_n >= k+1 implies l_n >= k
                row = [pool.id((tag, "lv", component, n, k)) for k in range(1, self.size)]
                self.clauses.extend([-row[k + 1], row[k]] for k in range(len(row) - 1))
            else:  # bit i of l_n, most significant first
                row = [pool.id((tag, "lb", component, n, i)) for i in range(self.width)]
            self.vars[n] = row

    def below(self, support: int, a: int, n: int) -> list[list[int]]:
        """Clauses of ``support -> l_a < l_n``."""
        if a == n or self.size == 1:
            return [[-support]]
        if self.order:
            ga, gn = self.vars[a], self.vars[n]  # ga[k - 1] is "l_a >= k"
            top = self.size - 1
            clauses = [[-support, gn[0]]]  # l_n >= 1
            clauses.extend(
                [-support, -ga[k - 1], gn[k]] for k in range(1, top)
            )  # l_a >= k -> l_n >= k+1
            clauses.append([-support, -ga[top - 1]])  # l_a <= size - 2
            return clauses
        return self._binary_below(support, a, n)

    def _binary_below(self, support: int, a: int, n: int) -> list[list[int]]:
        """l_a < l_n over bits (most significant first): some bit i with a_i = 0, n_i = 1
        and the bits above it equal. ``p_i``: the bits above i are equal (``p_0`` true)."""
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


__all__ = ["ORDER_UP_TO", "Levels", "clauses_per_edge"]
