"""CNF encoding of the bounded statements for CaDiCaL (python-sat).

Variables 1 .. 2^n are the truth table: variable ``X + 1`` is f(X) for the subset X of
{0..n-1} written as a bit mask. Every other variable is a Tseitin definition with *both*
directions (``v <-> AND/OR/XOR(...)``), so each auxiliary is a function of the truth table:
the models of the definitions alone are exactly the monotone functions (a fact the tests
check by model counting against the Dedekind numbers). "Exactly one minimal point" is a
sequential counter whose prefix variables ``s1_k`` ("at least one among the first k") and
``s2_k`` ("at least two") are again full definitions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from proofs.statements import COVERS
from proofs.statements import statement as lookup


class Builder:
    """Fresh variables and clauses, with Tseitin gates defined in both directions."""

    def __init__(self, reserved: int = 0) -> None:
        self.nvars = reserved
        self.clauses: list[list[int]] = []
        self._true: int | None = None

    def new(self) -> int:
        self.nvars += 1
        return self.nvars

    def add(self, clause: list[int]) -> None:
        self.clauses.append(clause)

    def true(self) -> int:
        if self._true is None:
            self._true = self.new()
            self.add([self._true])
        return self._true

    def and_(self, lits: list[int]) -> int:
        if not lits:
            return self.true()
        if len(lits) == 1:
            return lits[0]
        v = self.new()
        for lit in lits:
            self.add([-v, lit])
        self.add([v] + [-lit for lit in lits])
        return v

    def or_(self, lits: list[int]) -> int:
        if not lits:
            return -self.true()
        if len(lits) == 1:
            return lits[0]
        v = self.new()
        for lit in lits:
            self.add([v, -lit])
        self.add([-v] + lits)
        return v

    def xor(self, a: int, b: int) -> int:
        v = self.new()
        self.add([-v, a, b])
        self.add([-v, -a, -b])
        self.add([v, -a, b])
        self.add([v, a, -b])
        return v


@dataclass
class Encoding:
    """The CNF of one (negated) statement for one n, and where to find f in a model.

    ``clauses`` is ``body + assertion + symmetry``: the body holds the definitions (every
    auxiliary a function of the truth table) and the side conditions (``active``, A ⊇ U);
    the assertion is the negated statement proper; ``symmetry`` the lex-leader clauses.
    Splitting them lets :mod:`proofs.counting` count the models of the very formula that is
    solved with only its final assertion removed. ``handles`` names literals defined inside
    the body (``agree``, ``unique`` where the statement builds them). The first
    ``monotone_clauses`` clauses of the body are monotonicity; the rest are definitions and
    side conditions, which are functions of *any* table, so :mod:`proofs.faithfulness` can
    test the assertion on non-monotone tables too. ``quantities`` names the literal lists the
    assertion is built from: ``minimal`` (m_X per mask X), ``union`` (u_i), ``exact`` and
    ``influence`` (one per audit mask R). ``sides`` names the literals the negated
    assertion reads, by the names of :func:`proofs.reference.sides` (``agree`` and ``claim``
    of an iff; ``bad`` or ``differ`` per audit mask): the assertion must be exactly
    :func:`proofs.reference.negation_of_sides` of them, which
    :func:`proofs.faithfulness.check_sides` tests with each side set against the table.
    """

    statement: str
    n: int
    nvars: int
    body: list[list[int]]
    assertion: list[list[int]] = field(default_factory=list)
    symmetry: list[list[int]] = field(default_factory=list)
    ancestor_vars: list[int] = field(default_factory=list)
    handles: dict[str, int] = field(default_factory=dict)
    monotone_clauses: int = 0
    quantities: dict[str, list[int]] = field(default_factory=dict)
    sides: dict[str, list[int]] = field(default_factory=dict)

    @property
    def open_body(self) -> list[list[int]]:
        """The body without its monotonicity clauses (definitions and side conditions)."""
        return self.body[self.monotone_clauses :]

    @property
    def clauses(self) -> list[list[int]]:
        """The whole formula handed to the solver (and written as DIMACS)."""
        return self.body + self.assertion + self.symmetry

    @property
    def projection(self) -> list[int]:
        """The free variables: the truth table, then the ancestor set (refined and
        audit_criterion only)."""
        return list(range(1, (1 << self.n) + 1)) + self.ancestor_vars

    def truth_table(self, model: list[int]) -> list[bool]:
        """f as a list indexed by subset mask, read from a python-sat model."""
        positive = {lit for lit in model if lit > 0}
        return [(x + 1) in positive for x in range(1 << self.n)]

    def ancestors(self, model: list[int]) -> list[int] | None:
        if not self.ancestor_vars:
            return None
        positive = {lit for lit in model if lit > 0}
        return [i for i, v in enumerate(self.ancestor_vars) if v in positive]


class _Support:
    """Definitions shared by all statements: f, its minimal points, U and the rules."""

    def __init__(self, b: Builder, n: int) -> None:
        self.b, self.n = b, n
        size = 1 << n
        self.full = size - 1
        self.t = [x + 1 for x in range(size)]
        start = len(b.clauses)
        for x in range(size):  # monotone: f(X) -> f(X + i)
            for i in range(n):
                if not x >> i & 1:
                    b.add([-self.t[x], self.t[x | 1 << i]])
        self.monotone_clauses = len(b.clauses) - start
        self.m = [
            b.and_([self.t[x]] + [-self.t[x ^ 1 << i] for i in range(n) if x >> i & 1])
            for x in range(size)
        ]
        self.u = [b.or_([self.m[x] for x in range(size) if x >> i & 1]) for i in range(n)]

    def exact(self, r: int) -> int:
        """Exact revision retires c on audit R iff f(E \\ R) = 0 (c is active: f(E) = 1)."""
        return -self.t[self.full ^ r]

    def influence(self, targets: list[int]) -> list[int]:
        """For every audit R, a variable for 'R meets the set whose indicators are targets'."""
        meets = [-self.b.true()]
        for r in range(1, 1 << self.n):
            low = (r & -r).bit_length() - 1
            meets.append(self.b.or_([meets[r & (r - 1)], targets[low]]))
        return meets

    def counter(self, upto: int) -> list[int]:
        """[s1, .., s_upto]: 'at least k minimal points', by a fully defined sequential counter."""
        prev = [-self.b.true()] * upto
        for mx in self.m:
            cur = []
            for k in range(upto):
                carry = mx if k == 0 else self.b.and_([prev[k - 1], mx])
                cur.append(self.b.or_([prev[k], carry]))
            prev = cur
        return prev

    def differ(self, influence: list[int]) -> list[int]:
        return [self.b.xor(self.exact(r), influence[r]) for r in range(1 << self.n)]


def encode(name: str, n: int, symmetry: bool = False) -> Encoding:
    """The negation of statement ``name`` for n evidence items, as CNF.

    >>> e = encode("boundary", 2)
    >>> e.nvars, len(e.clauses), len(e.assertion)
    (39, 117, 2)
    """
    lookup(name)
    if n < 1:
        raise ValueError("n must be at least 1")
    b = Builder(reserved=1 << n)
    s = _Support(b, n)
    b.add([s.t[s.full]])  # the claim is active at full evidence
    ancestor_vars: list[int] = []
    handles: dict[str, int] = {}
    final: list[list[int]] = []
    sides: dict[str, list[int]] = {}
    base = name.split("~")[0]
    meets: list[int] = []
    if base == "boundary":
        meets = s.influence(s.u)
        agree = -b.or_(s.differ(meets))
        s1, s2, s3 = s.counter(3)
        unique = b.and_([s1, -s2])
        claim = unique if name == "boundary" else -s3
        handles = {"agree": agree, "unique": unique}
        sides = {"agree": [agree], "claim": [claim]}
        final = [[agree, claim], [-agree, -claim]]  # not (agree <-> claim)
    elif base == "refined":
        ancestor_vars = [b.new() for _ in range(n)]
        for i in range(n):
            b.add([-s.u[i], ancestor_vars[i]])  # A ⊇ U
        meets = s.influence(ancestor_vars)
        agree = -b.or_(s.differ(meets))
        s1, s2 = s.counter(2)
        unique = b.and_([s1, -s2])
        same = -b.or_([b.xor(a, u) for a, u in zip(ancestor_vars, s.u)])
        claim = b.and_([unique, same]) if name == "refined" else unique
        handles = {"agree": agree, "unique": unique}
        sides = {"agree": [agree], "claim": [claim]}
        final = [[agree, claim], [-agree, -claim]]
    elif base == "audit_criterion":
        ancestor_vars = [b.new() for _ in range(n)]
        if name in COVERS:
            for i in range(n):
                b.add([-s.u[i], ancestor_vars[i]])  # A ⊇ U
        meets = s.influence(ancestor_vars)
        diff = s.differ(meets)
        agree = -b.or_(diff)
        singles = -b.or_([diff[1 << i] for i in range(n)])
        handles = {"agree": agree}
        sides = {"agree": [agree], "claim": [singles]}
        final = [[agree, singles], [-agree, -singles]]  # not (agree <-> agree on one-item)
    elif base == "inclusion":
        # none retires no claim on an audit of evidence (c is not in R), so none ⊆ exact holds
        # for the claim by definition; the SAT question is exact ⊆ influence.
        meets = s.influence(s.u)
        full = 1 << n
        if name == "inclusion":
            bad = [b.and_([s.exact(r), -meets[r]]) for r in range(full)]
        else:
            bad = [b.and_([meets[r], -s.exact(r)]) for r in range(full)]
        sides = {"bad": bad}
        final = [bad]
    elif base == "one_item":
        meets = s.influence(s.u)
        diff = s.differ(meets)
        sides = {"differ": diff}
        final = [diff]  # some audit disagrees
        if name == "one_item":
            final += [[-diff[1 << i]] for i in range(n)]
        else:
            final.append([-diff[s.full]])
    body = b.clauses
    b.clauses = []
    if symmetry:
        from proofs.symmetry import lex_leader

        lex_leader(b, n, s.t)
    quantities = {
        "minimal": list(s.m),
        "union": list(s.u),
        "influence": meets,
        "exact": [s.exact(r) for r in range(1 << n)],
    }
    return Encoding(
        name,
        n,
        b.nvars,
        body,
        final,
        b.clauses,
        ancestor_vars,
        handles,
        s.monotone_clauses,
        quantities,
        sides,
    )


def extend_with_definitions(encoding: Encoding) -> tuple[list[list[int]], dict[str, int]]:
    """Definitions of ``agree`` and ``unique`` over the encoding's truth table, in fresh
    variables (an extension by definitions: it keeps the model count). Handles the encoding
    already defines are returned as they are; the others get new full Tseitin definitions.
    """
    b = Builder(reserved=encoding.nvars)
    handles = dict(encoding.handles)
    if {"agree", "unique"} <= set(handles):
        return [], handles
    s = _Support(b, encoding.n)
    s1, s2 = s.counter(2)
    handles.setdefault("unique", b.and_([s1, -s2]))
    target = encoding.ancestor_vars or s.u
    handles.setdefault("agree", -b.or_(s.differ(s.influence(target))))
    return b.clauses, handles


def monotone_definitions(n: int) -> Encoding:
    """Only the shared definitions (no statement, not even 'active'): for model counting.

    ``handles`` names the literals ``active``, ``unique``, ``agree`` and ``u0..``, so a test
    can fix a truth table and read what the encoding says about it.
    """
    b = Builder(reserved=1 << n)
    s = _Support(b, n)
    s1, s2 = s.counter(2)
    unique = b.and_([s1, -s2])
    agree = -b.or_(s.differ(s.influence(s.u)))
    handles = {"active": s.t[s.full], "unique": unique, "agree": agree}
    handles.update({f"u{i}": u for i, u in enumerate(s.u)})
    return Encoding("definitions", n, b.nvars, b.clauses, handles=handles)
