"""An independent z3 encoding of the bounded statements (no code shared with the CNF).

f is one z3 bit-vector of width 2^n (bit X is f(X)); monotonicity, minimal points, the
essential set U and both rules over all 2^n audits are written as z3 terms, and "exactly
one minimal point" as a pseudo-Boolean constraint (``PbEq``), so a mistake in the Tseitin
or counter code of :mod:`proofs.cnf_encoding` would make the two solvers disagree.
"""

from __future__ import annotations

import z3

from proofs.statements import COVERS, has_ancestors
from proofs.statements import statement as lookup


def lex_leader(bit: list[z3.BoolRef], n: int, variant: str = "sound") -> list[z3.BoolRef]:
    """t <=lex t∘(i j) for every transposition, as an unsigned bit-vector comparison.

    ``variant`` names the same deliberately unsound mutants as :data:`proofs.symmetry.VARIANTS`
    (written independently here), for the orbit check to catch.
    """
    facts = []
    for i in range(n):
        for j in range(i + 1, n):
            pairs = [
                (x, x ^ (1 << i) ^ (1 << j))
                for x in range(1 << n)
                if (x >> i & 1) and not (x >> j & 1)
            ]
            pairs.sort(key=min)
            first = [bit[min(p)] for p in pairs]
            second = [bit[max(p)] for p in pairs]
            if variant == "flipped_first" and i == 0:
                first, second = second, first
            if variant == "unguarded":
                facts += [z3.Implies(a, b) for a, b in zip(first, second)]
                continue

            def word(bits: list[z3.BoolRef]) -> z3.BitVecRef:
                parts = [z3.If(b, z3.BitVecVal(1, 1), z3.BitVecVal(0, 1)) for b in bits]
                return parts[0] if len(parts) == 1 else z3.Concat(*parts)

            facts.append(z3.ULE(word(first), word(second)))
    return facts


class Z3Encoding:
    """The negation of one bounded statement as z3 facts: ``facts = body + assertion + symmetry``.

    ``body`` holds monotonicity and the side conditions (``active``, A ⊇ U), ``assertion`` the
    negated statement, ``symmetry`` the lex-leader facts; ``agree`` and ``unique`` are the
    statement's own terms (over A for ``refined``), so :mod:`proofs.counting` can count the
    models of exactly what is solved, with only its final assertion removed. ``monotonicity``
    lists the body's monotonicity facts (the rest of the body is a function of any table);
    ``minimal``, ``essential`` (U), ``exact`` and ``influence`` (one term per audit mask R,
    over A for ``refined``) are the terms the assertion is built from, so
    :mod:`proofs.quantities` can compare each with :mod:`theory.semantics.revision`.
    """

    def __init__(self, name: str, n: int, symmetry: bool = False) -> None:
        lookup(name)
        self.name, self.n = name, n
        size = 1 << n
        full = size - 1
        self.table = z3.BitVec("f", size)
        bit = [z3.Extract(x, x, self.table) == 1 for x in range(size)]
        self.bits = bit
        self.ancestors = [z3.Bool(f"a{i}") for i in range(n)]
        body: list[z3.BoolRef] = [bit[full]]  # active at full evidence
        self.monotonicity = [
            z3.Implies(bit[x], bit[x | 1 << i])
            for x in range(size)
            for i in range(n)
            if not x >> i & 1
        ]
        body += self.monotonicity
        minimal = [
            z3.And(bit[x], *[z3.Not(bit[x & ~(1 << i)]) for i in range(n) if x >> i & 1])
            for x in range(size)
        ]
        self.minimal = minimal
        essential = [z3.Or(*[minimal[x] for x in range(size) if x >> i & 1]) for i in range(n)]
        self.essential = essential
        base = name.split("~")[0]
        members = self.ancestors if has_ancestors(name) else essential
        # one term per audit mask R: what the assertion below is built from
        self.exact = [z3.Not(bit[full & ~r]) for r in range(size)]
        self.influence = [
            z3.Or(*[members[i] for i in range(n) if r >> i & 1]) if r else z3.BoolVal(False)
            for r in range(size)
        ]
        exact, meets = self.exact, self.influence
        weighted = [(m, 1) for m in minimal]
        unique = z3.PbEq(weighted, 1)
        self.unique = unique
        self.agree = z3.And(*[exact[r] == meets[r] for r in range(size)])
        assertion: list[z3.BoolRef] = []
        # the terms the assertion reads, by the names of proofs.reference.sides
        self.sides: dict[str, list[z3.BoolRef]] = {}
        if base == "boundary":
            claim = unique if name == "boundary" else z3.PbLe(weighted, 2)
            self.sides = {"agree": [self.agree], "claim": [claim]}
            assertion.append(self.agree != claim)
        elif base == "refined":
            body += [z3.Implies(u, a) for u, a in zip(essential, self.ancestors)]
            same = z3.And(*[a == u for a, u in zip(self.ancestors, essential)])
            claim = z3.And(unique, same) if name == "refined" else unique
            self.sides = {"agree": [self.agree], "claim": [claim]}
            assertion.append(self.agree != claim)
        elif base == "audit_criterion":
            if name in COVERS:
                body += [z3.Implies(u, a) for u, a in zip(essential, self.ancestors)]
            differ = [exact[r] != meets[r] for r in range(size)]
            singles = z3.Not(z3.Or(*[differ[1 << i] for i in range(n)]))
            self.sides = {"agree": [self.agree], "claim": [singles]}
            assertion.append(self.agree != singles)
        elif base == "inclusion":
            if name == "inclusion":
                bad = [z3.And(exact[r], z3.Not(meets[r])) for r in range(size)]
            else:
                bad = [z3.And(meets[r], z3.Not(exact[r])) for r in range(size)]
            self.sides = {"bad": bad}
            assertion.append(z3.Or(*bad))
        elif base == "one_item":
            differ = [exact[r] != meets[r] for r in range(size)]
            self.sides = {"differ": differ}
            assertion.append(z3.Or(*differ))
            if name == "one_item":
                assertion += [z3.Not(differ[1 << i]) for i in range(n)]
            else:
                assertion.append(z3.Not(differ[full]))
        self.body, self.assertion = body, assertion
        self.symmetry = lex_leader(bit, n) if symmetry else []

    @property
    def facts(self) -> list[z3.BoolRef]:
        """Everything handed to the solver."""
        return self.body + self.assertion + self.symmetry

    @property
    def free(self) -> list[z3.ExprRef]:
        """The free constants: the table, and the ancestor set for ``refined``."""
        return [self.table] + (self.ancestors if has_ancestors(self.name) else [])

    def truth_table(self, model: z3.ModelRef) -> list[bool]:
        value = model.eval(self.table, model_completion=True).as_long()
        return [bool(value >> x & 1) for x in range(1 << self.n)]

    def ancestor_set(self, model: z3.ModelRef) -> list[int]:
        return [
            i
            for i, a in enumerate(self.ancestors)
            if z3.is_true(model.eval(a, model_completion=True))
        ]
