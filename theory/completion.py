"""The least fixpoint in CNF by completion plus loop formulas (ASSAT / Cmodels style).

The support function of claim c, f_c(X) = "c is in the least fixpoint when exactly the
evidence X is present", is encoded over the support cone of c with one variable ``h_n`` per
claim ("n holds") and one ``b_j`` per justification of two or more antecedents. The size is
linear in the cone, whatever its loops: nothing is unrolled.

- **Root false** (``positive=False``): clauses ``AND(antecedents of j) -> h_n`` for every
  justification. Their models are the sets closed under the justifications, and the least
  fixpoint is the least of them, so "some model with h_c false exists" iff f_c(X) is false.
  Exact as it stands: loops need nothing more.
- **Root true** (``positive=True``): the one-sided completion ``h_n -> OR(bodies)``,
  ``b_j -> antecedent``. Its models are *supported*, and a support loop can hold itself up.
  Each cyclic component C gets its loop formula at once (``h_n -> s_C`` for n in C and
  ``s_C -> OR`` of the bodies of C's justifications with no antecedent in C). Smaller
  self-supporting loops are cut lazily: a model is checked against the least fixpoint
  (:meth:`SupportProgram.loop_clauses`); if c is not in it, the claims that the model holds
  but the fixpoint does not form an *unfounded set* U, and for the lowest components with
  a member in U the loop formula of ``U ∩ C`` is added. The model violates it; every
  well-founded model satisfies it (the first member of U to be derived is derived by a
  justification with no antecedent in U). So a solver that alternates solving and adding
  loop clauses returns only well-founded models, and its UNSAT answers are exact.

Loop formulas use an auxiliary ``s`` per set, so each costs |U| + |external supports|
literals. The unrolled circuit of :mod:`theory.formula` stays as the independent oracle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import count

from pysat.formula import IDPool

from theory.cnf import Encoding
from theory.fixpoint import rederive
from theory.graphalgo import ancestor_numbers, is_cyclic_component, strongly_connected_components
from theory.index import SupportIndex

Inputs = Callable[[str], "int | bool"]


@dataclass
class ProgramCopy:
    """One encoded copy of the program: the literal of every claim and justification body."""

    tag: str
    positive: bool
    inputs: dict[int, int | bool]        # evidence number -> literal or constant
    holds: dict[int, int]                # claim number -> h variable
    body: dict[int, int | bool]          # justification number -> body literal or constant
    root: int | bool
    loops_added: int = 0


@dataclass
class SupportProgram:
    """The support cone of one claim, ready to be encoded (see the module docstring).

    Examples
    --------
    >>> from theory import SupportStructure
    >>> from theory.index import index_of
    >>> g = SupportStructure.build(["e"], ["a", "b"], [("a", ["b"]), ("b", ["a"]), ("b", ["e"])])
    >>> program = SupportProgram.of(index_of(g), index_of(g).number["a"])
    >>> program.variables, len(program.cyclic)
    (['e'], 1)
    """

    index: SupportIndex
    roots: tuple[int, ...]               # the formula is the AND of these nodes' support
    claims: list[int]
    evidence: list[int]
    cyclic: list[list[int]]              # cyclic components, in topological order
    component: dict[int, int] = field(default_factory=dict)  # claim -> position in cyclic
    _fresh: "count[int]" = field(default_factory=count)
    _flags: bytearray | None = None  # scratch active flags for least_fixpoint

    @classmethod
    def of(cls, index: SupportIndex, root: int | Sequence[int]) -> "SupportProgram":
        """The program of one node's support function, or of the AND of several nodes'."""
        roots = (root,) if isinstance(root, int) else tuple(sorted(set(root)))
        cone = ancestor_numbers(index, roots)
        is_evidence = index.is_evidence
        claims = sorted(n for n in cone if not is_evidence[n])
        evidence = sorted(n for n in cone if is_evidence[n])
        cyclic = [c for c in strongly_connected_components(index, claims)
                  if is_cyclic_component(index, c)]
        program = cls(index, roots, claims, evidence, cyclic)
        for position, members in enumerate(cyclic):
            for m in members:
                program.component[m] = position
        return program

    @property
    def variables(self) -> list[str]:
        """The evidence ids of the cone, sorted."""
        return sorted(self.index.ids[e] for e in self.evidence)

    # --- encoding -------------------------------------------------------------------------
    def encode(self, pool: IDPool, inputs: Inputs, positive: bool = True,
               tag: str = "p") -> tuple[Encoding, ProgramCopy]:
        """Clauses of one copy; ``inputs(evidence id)`` gives each evidence literal."""
        index = self.index
        ids = index.ids
        copy = ProgramCopy(tag, positive, {e: inputs(ids[e]) for e in self.evidence},
                           {n: pool.id((tag, "h", n)) for n in self.claims}, {}, True)
        clauses: list[list[int]] = []

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
                if positive:
                    if len(lits) == 1:
                        copy.body[j] = lits[0]
                    else:
                        b = pool.id((tag, "b", j))
                        copy.body[j] = b
                        clauses.extend([-b, p] for p in lits)
                    bodies.append(copy.body[j])  # type: ignore[arg-type]
                else:
                    clauses.append([h] + [-p for p in lits])
            if positive and not premise:
                clauses.append([-h] + bodies)
            elif not positive and premise:
                clauses.append([h])
        if positive:
            for members in self.cyclic:
                clauses.extend(self._loop_formula(pool, copy, set(members)))
        copy.root = self._root_literal(pool, copy, clauses)
        return Encoding(clauses, copy.root), copy

    def _root_literal(self, pool: IDPool, copy: ProgramCopy, clauses: list[list[int]]) -> int | bool:
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

    def _external_bodies(self, copy: ProgramCopy, members: set[int]) -> list[int | bool]:
        index = self.index
        out: list[int | bool] = []
        for n in members:
            for j in index.justs_of[n]:
                if copy.body.get(j, False) is False:
                    continue
                if not any(a in members for a in index.just_antecedents[j]):
                    out.append(copy.body[j])
        return out

    def _loop_formula(self, pool: IDPool, copy: ProgramCopy, members: set[int]) -> list[list[int]]:
        """``h_n -> s`` for n in ``members`` and ``s -> OR(external bodies)``."""
        external = self._external_bodies(copy, members)
        if any(b is True for b in external):
            return []
        bodies = [b for b in external if b is not False]
        copy.loops_added += 1
        if len(members) == 1:
            (n,) = members
            return [[-copy.holds[n]] + bodies]  # type: ignore[list-item]
        s = pool.id((copy.tag, "loop", next(self._fresh)))
        clauses: list[list[int]] = [[-s] + bodies]  # type: ignore[list-item]
        clauses.extend([-copy.holds[n], s] for n in sorted(members))
        return clauses

    # --- the lazy part --------------------------------------------------------------------
    def least_fixpoint(self, present: Iterable[int], region: Sequence[int] | None = None) -> set[int]:
        """Claims of ``region`` (default: the cone's claims) in the least fixpoint when
        exactly ``present`` evidence is and the claims outside ``region`` are absent.

        :func:`theory.fixpoint.rederive` with ``region`` as the region: linear in the region,
        not in the whole graph. With a region that is a superset of some derivation of a
        claim, the claim is in the result iff it is in the least fixpoint."""
        flags = self._flags
        if flags is None:
            flags = self._flags = bytearray(self.index.size)
        present = list(present)
        for e in present:
            flags[e] = 1
        try:
            derived = rederive(self.index, flags, self.claims if region is None else region)
        finally:
            for e in present:
                flags[e] = 0
        for n in derived:
            flags[n] = 0
        return set(derived)

    def _held_flags(self, held: Sequence[int], present: Iterable[int]) -> bytearray:
        """0/1 per node: held by the model (claims) or present (evidence)."""
        flags = bytearray(self.index.size)
        for n in held:
            flags[n] = 1
        for e in present:
            flags[e] = 1
        return flags

    def loop_clauses(self, pool: IDPool, copy: ProgramCopy, model: Sequence[int]) -> list[list[int]]:
        """Loop clauses that cut ``model`` if its root claim is not well-founded, else []."""
        def true(lit: int | bool) -> bool:
            if isinstance(lit, bool):
                return lit
            v = abs(lit)
            return (v <= len(model) and model[v - 1] > 0) == (lit > 0)

        if not true(copy.root):
            return []
        size = len(model)
        held = [n for n, h in copy.holds.items() if h <= size and model[h - 1] > 0]
        if not any(n in self.component for n in held):
            return []  # no loop in play: the completion of acyclic claims is exact
        present = {e for e, lit in copy.inputs.items() if true(lit)}
        # Only what the model holds is derived: if the roots are founded from it they are in
        # the least fixpoint; if not, the loop formulas below are violated and valid anyway.
        founded = self.least_fixpoint(present, held)
        if all(r in founded or r in present for r in self.roots):
            return []
        unfounded = set(held) - founded
        clauses: list[list[int]] = []
        # one loop formula per loop of the unfounded set (its strongly connected components
        # through held justifications): stronger than one formula for all of it
        for part in strongly_connected_components(self.index, sorted(unfounded),
                                                  intact_only=self._held_flags(held, present)):
            if not is_cyclic_component(self.index, part):
                continue
            members = set(part)
            external = self._external_bodies(copy, members)
            if any(true(b) for b in external):
                continue  # supported from outside in this model: not the culprit
            clauses.extend(self._loop_formula(pool, copy, members))
        if not clauses:
            raise AssertionError("an unfounded model without a violated loop formula")
        return clauses


__all__ = ["ProgramCopy", "SupportProgram"]
