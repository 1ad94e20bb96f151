"""Maximal false evidence sets and unfounded loops of one support cone, in Python.

What :class:`theory.cone_kernel.ConeOracle` computes compiled, for the solver loop of the
interpreted path (:class:`theory.justifications.JustificationEnumerator`), which runs where
the compiled kernels are not loaded. When a model of the completion holds the roots only
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
>>> from theory.completion import SupportProgram
>>> from theory.index import index_of
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

from theory.completion import SupportProgram
from theory.graphalgo import tarjan

Loop = tuple[list[int], list[int]]
"""A loop of an unfounded set: its claims (node numbers) and the justifications of its
members with no antecedent in it (justification numbers)."""


class ConeFixpoint:
    """The least and greatest fixpoints of ``program``'s cone under sets of its evidence
    (node numbers), by counters over the cone's justifications."""

    def __init__(self, program: SupportProgram) -> None:
        index = program.index
        self.roots = program.roots
        self.evidence = list(program.evidence)
        self.claims = list(program.claims)
        claim_set = set(self.claims)
        self.just_claim: dict[int, int] = {}
        self.antecedents: dict[int, tuple[int, ...]] = {}
        self.justs_of: dict[int, list[int]] = {n: [] for n in self.claims}
        self.watch: dict[int, list[int]] = {n: [] for n in (*self.evidence, *self.claims)}
        for n in self.claims:
            for j in index.justs_of[n]:
                antecedents = index.just_antecedents[j]
                self.just_claim[j] = n
                self.antecedents[j] = antecedents
                self.justs_of[n].append(j)
                for a in antecedents:
                    self.watch[a].append(j)
        self.claim_set = claim_set
        self.work = 0
        self._grown: tuple[frozenset[int], set[int]] | None = None  # the last grow's set

    # --- the least fixpoint -------------------------------------------------------------
    def _least(self, present: Iterable[int]) -> tuple[dict[int, int], set[int]]:
        """Counters (antecedents not derived, per justification) and the derived claims."""
        remaining = {j: len(a) for j, a in self.antecedents.items()}
        derived: set[int] = set()
        stack = [j for j, left in remaining.items() if left == 0]  # premises
        for j in stack:
            c = self.just_claim[j]
            if c not in derived:
                derived.add(c)
        self._propagate([*present, *derived], remaining, derived)
        return remaining, derived

    def _propagate(
        self,
        frontier: list[int],
        remaining: dict[int, int],
        derived: set[int],
        counted: list[int] | None = None,
        added: list[int] | None = None,
        goal: set[int] | None = None,
    ) -> bool:
        """Derive from the nodes of ``frontier`` on; ``counted`` and ``added`` (when given)
        log the counters lowered and the claims derived, to undo them. With ``goal`` (the
        roots not derived yet, emptied as they are), stop as soon as every root is derived
        and return True (the caller undoes the trial)."""
        watch, just_claim = self.watch, self.just_claim
        work = 0
        while frontier:
            n = frontier.pop()
            for j in watch[n]:
                work += 1
                left = remaining[j] - 1
                remaining[j] = left
                if counted is not None:
                    counted.append(j)
                if left == 0:
                    c = just_claim[j]
                    if c not in derived:
                        derived.add(c)
                        if added is not None:
                            added.append(c)
                        frontier.append(c)
                        if goal is not None and c in goal:
                            goal.discard(c)
                            if not goal:
                                self.work += work
                                return True
        self.work += work
        return False

    def holds(self, present: Iterable[int]) -> bool:
        """Whether every root is in the least fixpoint of the evidence ``present``."""
        _, derived = self._least(present)
        return all(r in derived for r in self.roots)

    def grow(self, present: Iterable[int]) -> frozenset[int] | None:
        """A maximal false set containing ``present``: each other evidence of the cone, in
        number order, joins it unless the roots would then all hold. None when the roots
        hold under ``present`` itself (no false set contains it)."""
        given = set(present)
        remaining, derived = self._least(given)
        roots = self.roots
        missing_roots = {r for r in roots if r not in derived}
        if not missing_roots:
            return None
        grown = set(given)
        for e in self.evidence:
            if e in given:
                continue
            counted: list[int] = []
            added: list[int] = []
            if self._propagate([e], remaining, derived, counted, added, set(missing_roots)):
                for j in counted:  # undo: e would make the roots hold
                    remaining[j] += 1
                derived.difference_update(added)
                self.work += len(counted)
            else:
                grown.add(e)
                missing_roots.difference_update(added)
        result = frozenset(grown)
        self._grown = (result, derived)
        return result

    # --- unfounded sets -----------------------------------------------------------------
    def unfounded(self, present: Iterable[int]) -> list[Loop]:
        """The loops of the claims that could hold in a supported model under the evidence
        ``present`` (the greatest set of claims each with a justification whose antecedents
        are present or in the set) but are not in its least fixpoint: one per strongly
        connected component of them, through the justifications inside the set, that is a
        loop (as :meth:`theory.cone_kernel.ConeOracle.unfounded`)."""
        given = frozenset(present)
        if self._grown is not None and self._grown[0] == given:  # the least fixpoint of grow
            derived = self._grown[1]
        else:
            _, derived = self._least(given)
        # the greatest fixpoint: every claim, less those left with no justification whose
        # antecedents are all present or still in
        missing = {
            j: sum(1 for a in ante if a not in self.claim_set and a not in given)
            for j, ante in self.antecedents.items()
        }
        alive = {n: sum(1 for j in self.justs_of[n] if missing[j] == 0) for n in self.claims}
        kept = set(self.claims)
        gone = [n for n, count in alive.items() if count == 0]
        work = len(missing)
        while gone:
            n = gone.pop()
            if n not in kept:
                continue
            kept.discard(n)
            for j in self.watch[n]:
                work += 1
                missing[j] += 1
                if missing[j] == 1:
                    c = self.just_claim[j]
                    alive[c] -= 1
                    if alive[c] == 0 and c in kept:
                        gone.append(c)
        unfounded = kept - derived
        if not unfounded:
            self.work += work
            return []

        def predecessors(n: int) -> list[int]:
            return [
                a
                for j in self.justs_of[n]
                if missing[j] == 0
                for a in self.antecedents[j]
                if a in unfounded
            ]

        loops: list[Loop] = []
        for members in tarjan(sorted(unfounded), predecessors):
            inside = set(members)
            if len(members) == 1 and members[0] not in predecessors(members[0]):
                continue  # not a loop: held up by another component of the set
            external = [
                j
                for n in members
                for j in self.justs_of[n]
                if not any(a in inside for a in self.antecedents[j])
            ]
            work += sum(len(self.justs_of[n]) for n in members)
            loops.append((sorted(members), external))
        self.work += work
        return loops


__all__ = ["ConeFixpoint", "Loop"]
