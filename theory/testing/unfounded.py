"""Maximal false evidence sets and unfounded loops of one support cone, in Python: a test
oracle for :class:`theory.solver.cone_kernel.ConeOracle`, never run in production. When a model of the completion holds the roots only
through a support loop, its evidence X is false. Cutting the loops of that one model can
take exponentially many models on graphs with many loops; instead:

- X grows to a maximal false set Y (:meth:`ConeFixpoint.grow`): the roots are not all in the
  least fixpoint of Y, and adding any other evidence would put them there. The clause "some
  evidence outside Y" cuts every model whose evidence lies inside Y, none of which holds the
  roots in a well-founded way.
- The claims Y could hold in a supported model but not in its least fixpoint form unfounded
  sets (:meth:`ConeFixpoint.unfounded`); each loop of them gets its loop formula, which every
  well-founded model satisfies, and which cuts that loop under any evidence.

Each operation counts its steps (``work``: counters changed, claims visited), so a
portfolio can charge it.

>>> from theory import SupportStructure
>>> from theory.solver.completion import SupportProgram
>>> from theory.model.index import index_of
>>> g = SupportStructure.build(["p", "q", "r"], ["a", "b", "c"],
...     [("a", ["b"]), ("b", ["a"]), ("a", ["p", "q"]), ("b", ["r"]), ("c", ["a"])])
>>> index = index_of(g)
>>> cone = ConeFixpoint(SupportProgram.of(index, index.number["c"]))
>>> sorted(index.ids[e] for e in cone.grow([index.number["p"]]))   # p and q would hold c
['p']
>>> cone.grow([index.number["r"]]) is None                           # r holds c
True
>>> [sorted(index.ids[n] for n in members) for members, _ in cone.unfounded([index.number["p"]])]
[['a', 'b']]
"""

from __future__ import annotations

from collections.abc import Iterable

from theory.model.graphalgo import tarjan
from theory.solver.completion import SupportProgram

Loop = tuple[list[int], list[int]]
"""A loop of an unfounded set: its claims (node numbers) and the justifications of its
members with no antecedent in it (justification numbers)."""


class ConeFixpoint:
    """The least and greatest fixpoints of ``program``'s cone under sets of its evidence
    (node numbers), by counters over the cone's justifications. Inside, the cone's nodes and
    justifications are numbered from 0 (lists, not dictionaries, on the hot path)."""

    def __init__(self, program: SupportProgram) -> None:
        index = program.index
        self.evidence = list(program.evidence)
        self.claims = list(program.claims)
        nodes = [*self.evidence, *self.claims]
        local = {n: x for x, n in enumerate(nodes)}
        self._nodes = nodes
        self._local = local
        self._first_claim = len(self.evidence)
        self._roots = [local[r] for r in program.roots]
        self._just: list[int] = []  # local justification -> its number in the index
        self._claim: list[int] = []  # local justification -> local claim
        self._antecedents: list[tuple[int, ...]] = []
        self._justs_of: list[list[int]] = [[] for _ in nodes]
        self._watch: list[list[int]] = [[] for _ in nodes]
        for n in self.claims:
            c = local[n]
            for j in index.justs_of[n]:
                k = len(self._just)
                antecedents = tuple(local[a] for a in index.just_antecedents[j])
                self._just.append(j)
                self._claim.append(c)
                self._antecedents.append(antecedents)
                self._justs_of[c].append(k)
                for a in antecedents:
                    self._watch[a].append(k)
        self._sizes = [len(a) for a in self._antecedents]
        first = self._first_claim
        self._evidence_count = [sum(1 for a in ante if a < first) for ante in self._antecedents]
        self._premises = [k for k, size in enumerate(self._sizes) if size == 0]
        self.work = 0
        self._grown: tuple[frozenset[int], bytearray] | None = None  # the last grow's set

    # --- the least fixpoint -------------------------------------------------------------
    def _least(
        self, present: Iterable[int], fired: list[int] | None = None
    ) -> tuple[list[int], bytearray]:
        """Counters (antecedents not derived, per justification) and the derived flags of
        the least fixpoint of the evidence ``present`` (local numbers); ``fired`` as for
        :meth:`_propagate`."""
        remaining = self._sizes.copy()
        derived = bytearray(len(self._nodes))
        frontier: list[int] = []
        for x in present:
            if not derived[x]:  # once each, however often it is given
                derived[x] = 1
                frontier.append(x)
        for k in self._premises:
            c = self._claim[k]
            if not derived[c]:
                derived[c] = 1
                frontier.append(c)
                if fired is not None:
                    fired[c] = k
        self._propagate(frontier, remaining, derived, fired=fired)
        return remaining, derived

    def _derivation_evidence(self, present: list[int]) -> list[int] | None:
        """The evidence (local numbers) a derivation of every root from ``present`` uses,
        in number order, or None when the roots do not all hold: a true subset of
        ``present``, often far smaller."""
        fired = [-1] * len(self._nodes)
        _, derived = self._least(present, fired)
        if not all(derived[r] for r in self._roots):
            return None
        first, antecedents = self._first_claim, self._antecedents
        used = bytearray(len(self._nodes))
        stack = list(self._roots)
        for r in stack:
            used[r] = 1
        while stack:
            x = stack.pop()
            if x < first:
                continue
            for a in antecedents[fired[x]]:  # derived before x: the walk ends
                if not used[a]:
                    used[a] = 1
                    stack.append(a)
        self.work += len(self._nodes)
        return [x for x in range(first) if used[x]]

    def shrink(self, present: Iterable[int]) -> frozenset[int] | None:
        """A minimal true subset of the evidence ``present`` (a minimal justification of
        the roots inside it), or None when the roots do not all hold under ``present``.
        The evidence of a derivation is kept; then each member in number order is dropped
        where the roots still hold without it (keeping the new derivation's evidence), so
        every member left is needed (as :func:`theory.solver.cone_kernel.shrink_true`)."""
        kept = self._derivation_evidence(self._locals(present))
        if kept is None:
            return None
        needed: set[int] = set()
        while True:
            x = next((x for x in kept if x not in needed), None)
            if x is None:
                break
            smaller = self._derivation_evidence([y for y in kept if y != x])
            if smaller is None:
                needed.add(x)
            else:
                kept = smaller
        evidence = self.evidence
        return frozenset(evidence[x] for x in kept)

    def examine(self, present: Iterable[int]) -> tuple[bool, frozenset[int]]:
        """``(True, M)``: the roots hold under the evidence ``present`` (node numbers) and M
        is a minimal true subset of it (:meth:`shrink`); or ``(False, O)``: they do not,
        and O is the cone's evidence outside a maximal false superset of it (:meth:`grow`).
        As :meth:`theory.solver.cone_kernel.ConeOracle.examine`."""
        given = list(present)
        grown = self.grow(given)
        if grown is None:
            minimal = self.shrink(given)
            assert minimal is not None
            return True, minimal
        return False, frozenset(self.evidence) - grown

    def _propagate(
        self,
        frontier: list[int],
        remaining: list[int],
        derived: bytearray,
        goal: set[int] | None = None,
        fired: list[int] | None = None,
    ) -> bool:
        """Derive from the nodes of ``frontier`` on. With ``goal`` (the roots not derived
        yet, emptied as they are), stop as soon as every root is derived and return True
        (the caller drops the trial). ``fired`` receives, for each claim derived, the
        justification that derived it (a derivation: its antecedents came first)."""
        watch, claim = self._watch, self._claim
        work = 0
        while frontier:
            n = frontier.pop()
            for k in watch[n]:
                work += 1
                left = remaining[k] - 1
                remaining[k] = left
                if left == 0:
                    c = claim[k]
                    if not derived[c]:
                        derived[c] = 1
                        frontier.append(c)
                        if fired is not None:
                            fired[c] = k
                        if goal is not None and c in goal:
                            goal.discard(c)
                            if not goal:
                                self.work += work
                                return True
        self.work += work
        return False

    def _locals(self, evidence: Iterable[int]) -> list[int]:
        """Local numbers of the cone's members of ``evidence`` (others cannot matter), in
        order: the derivation a propagation records follows the order it is given, so a
        set of ids (whose order follows the hash seed) gives the same answer in every
        process."""
        local = self._local
        return sorted(x for x in map(local.get, evidence) if x is not None)

    def holds(self, present: Iterable[int]) -> bool:
        """Whether every root is in the least fixpoint of the evidence ``present``."""
        _, derived = self._least(self._locals(present))
        return all(derived[r] for r in self._roots)

    def grow(self, present: Iterable[int]) -> frozenset[int] | None:
        """A maximal false set containing ``present``: each other evidence of the cone, in
        number order, joins it unless the roots would then all hold. None when the roots
        hold under ``present`` itself (no false set contains it)."""
        given = self._locals(present)
        remaining, derived = self._least(given)
        missing_roots = {r for r in self._roots if not derived[r]}
        if not missing_roots:
            return None
        for x in range(self._first_claim):
            if derived[x]:  # present already
                continue
            # a trial on copies (two copies in C cost less than logging each change)
            trial_remaining, trial_derived = remaining.copy(), derived[:]
            trial_derived[x] = 1
            if not self._propagate([x], trial_remaining, trial_derived, goal=set(missing_roots)):
                remaining, derived = trial_remaining, trial_derived
                missing_roots = {r for r in missing_roots if not derived[r]}
        evidence = self.evidence
        result = frozenset(evidence[x] for x in range(self._first_claim) if derived[x])
        self._grown = (result, derived)
        return result

    # --- unfounded sets -----------------------------------------------------------------
    def unfounded(self, present: Iterable[int]) -> list[Loop]:
        """The loops of the claims that could hold in a supported model under the evidence
        ``present`` (the greatest set of claims each with a justification whose antecedents
        are present or in the set) but are not in its least fixpoint: one per strongly
        connected component of them, through the justifications inside the set, that is a
        loop (as :meth:`theory.solver.cone_kernel.ConeOracle.unfounded`)."""
        given = frozenset(present)
        if self._grown is not None and self._grown[0] == given:  # the least fixpoint of grow
            derived = self._grown[1]
        else:
            _, derived = self._least(self._locals(given))
        first_claim, antecedents, claim = self._first_claim, self._antecedents, self._claim
        # the greatest fixpoint: every claim, less those left with no justification whose
        # antecedents are all present or still in
        size = len(self._nodes)
        inside = bytearray(derived[:first_claim]) + b"\x01" * (size - first_claim)
        missing = self._evidence_count.copy()  # every claim inside: the absent evidence
        watch = self._watch
        for x in range(first_claim):
            if inside[x]:
                for k in watch[x]:
                    missing[k] -= 1
        alive = [0] * size
        for k, left in enumerate(missing):
            if not left:
                alive[claim[k]] += 1
        gone = [x for x in range(first_claim, size) if not alive[x]]
        work = len(missing)
        while gone:
            x = gone.pop()
            if not inside[x]:
                continue
            inside[x] = 0
            for k in watch[x]:
                work += 1
                missing[k] += 1
                if missing[k] == 1:
                    c = claim[k]
                    alive[c] -= 1
                    if alive[c] == 0 and inside[c]:
                        gone.append(c)
        unfounded = [x for x in range(first_claim, size) if inside[x] and not derived[x]]
        if not unfounded:
            self.work += work
            return []
        in_set = bytearray(len(self._nodes))
        for x in unfounded:
            in_set[x] = 1
        justs_of = self._justs_of

        def predecessors(x: int) -> list[int]:
            return [a for k in justs_of[x] if missing[k] == 0 for a in antecedents[k] if in_set[a]]

        loops: list[Loop] = []
        nodes, just = self._nodes, self._just
        for members in tarjan(unfounded, predecessors):
            if len(members) == 1 and members[0] not in predecessors(members[0]):
                continue  # not a loop: held up by another component of the set
            member = set(members)
            external = [
                just[k]
                for x in members
                for k in justs_of[x]
                if not any(a in member for a in antecedents[k])
            ]
            work += sum(len(justs_of[x]) for x in members)
            loops.append((sorted(nodes[x] for x in members), external))
        self.work += work
        return loops


__all__ = ["ConeFixpoint", "Loop"]
