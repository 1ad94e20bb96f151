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
  self-supporting loops are cut lazily: a model is checked component by component
  (:meth:`SupportProgram.loop_clauses`, bottom-up over the cyclic components, each checked
  on its own from the model's values of its outside antecedents); the held members of the
  first component that its own least fixpoint does not reach form an *unfounded set* U,
  and each loop of U (its strongly connected components through the justifications the
  model holds) gets its loop formula. The model violates it; every
  well-founded model satisfies it (the first member of U to be derived is derived by a
  justification with no antecedent in U). So a solver that alternates solving and adding
  loop clauses returns only well-founded models, and its UNSAT answers are exact.

Loop formulas use an auxiliary ``s`` per set, so each costs |U| + |external supports|
literals. The unrolled circuit of :mod:`theory.solver.formula` stays as the independent oracle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import count

from pysat.formula import IDPool

from theory.model.graphalgo import (
    ancestor_numbers,
    is_cyclic_component,
    strongly_connected_components,
    tarjan,
)
from theory.model.index import SupportIndex
from theory.solver.cnf import Encoding
from theory.solver.ranking import ORDER_UP_TO, Levels, clauses_per_edge

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
    ranked: bool = False  # level rankings: every model founded (theory.solver.ranking)
    loops_added: int = 0
    plans: list["ComponentPlan"] = field(
        default_factory=list
    )  # one per cyclic component, on first use


@dataclass
class ComponentPlan:
    """One cyclic component of a copy, laid out for the founded check of
    :meth:`SupportProgram.loop_clauses`: members by local position, and for every
    justification of a member that is not constantly false: its claim's position, the
    positions of its antecedents inside the component, and the literals of the others."""

    members: list[int]  # claim numbers
    holds: list[int]  # their h variables
    just: list[int]  # per justification: its number in the index
    target: list[int]  # per justification: position of its claim
    inside: list[tuple[int, ...]]  # per justification: antecedent positions in the component
    outside: list[tuple[int, ...]]  # per justification: literals of the other antecedents
    of_member: list[list[int]]  # position -> its justifications
    watchers: list[list[int]]  # position -> justifications with it inside


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
    _fresh: "count[int]" = field(default_factory=count)

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
        """About how many clauses the level rankings of ``encode(ranked=True)`` add: one
        comparison (:func:`theory.solver.ranking.clauses_per_edge`) per antecedent inside its
        claim's cyclic component, and the order of each member's levels."""
        index = self.index
        total = 0
        for position, members in enumerate(self.cyclic):
            per_edge = clauses_per_edge(len(members))
            total += len(members) * min(len(members), ORDER_UP_TO)
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

    # --- encoding -------------------------------------------------------------------------
    def encode(
        self,
        pool: IDPool,
        inputs: Inputs,
        positive: bool = True,
        tag: str = "p",
        ranked: bool = False,
    ) -> tuple[Encoding, ProgramCopy]:
        """Clauses of one copy; ``inputs(evidence id)`` gives each evidence literal.

        ``ranked`` (root-true copies): the cyclic components get level rankings
        (:mod:`theory.solver.ranking`) instead of loop formulas, so every model is founded and
        :meth:`loop_clauses` never has anything to add."""
        index = self.index
        ids = index.ids
        ranked = ranked and positive
        copy = ProgramCopy(
            tag,
            positive,
            {e: inputs(ids[e]) for e in self.evidence},
            {n: pool.id((tag, "h", n)) for n in self.claims},
            {},
            True,
            ranked=ranked,
        )
        clauses: list[list[int]] = []
        levels: list[Levels] = []
        if ranked:
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
                if ranked and n in self.component:
                    inner = [
                        a
                        for a in index.just_antecedents[j]
                        if self.component.get(a) == self.component[n]
                    ]
                    if inner:  # held up through its support: body and lower levels inside
                        u = pool.id((tag, "u", j))
                        copy.body[j] = u
                        clauses.extend([-u, p] for p in lits)
                        rank = levels[self.component[n]]
                        for a in inner:
                            clauses.extend(rank.below(u, a, n))
                        bodies.append(u)
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
        if positive and not ranked:
            for members in self.cyclic:
                clauses.extend(self._loop_formula(pool, copy, set(members)))
        copy.root = self._root_literal(pool, copy, clauses)
        return Encoding(clauses, copy.root), copy

    def _plan(self, copy: ProgramCopy, members: list[int]) -> ComponentPlan:
        index = self.index
        position = {n: i for i, n in enumerate(members)}
        plan = ComponentPlan(
            list(members),
            [copy.holds[n] for n in members],
            [],
            [],
            [],
            [],
            [[] for _ in members],
            [[] for _ in members],
        )
        for i, n in enumerate(members):
            for j in index.justs_of[n]:
                if copy.body.get(j, False) is False:
                    continue
                antecedents = index.just_antecedents[j]
                inside = tuple(position[a] for a in antecedents if a in position)
                lits = [
                    copy.inputs[a] if a in copy.inputs else copy.holds[a]
                    for a in antecedents
                    if a not in position
                ]
                outside = tuple(x for x in lits if x is not True)
                if any(x <= 0 for x in outside):  # type: ignore[operator]
                    raise ValueError("the founded check needs positive input literals")
                k = len(plan.target)
                plan.just.append(j)
                plan.target.append(i)
                plan.inside.append(inside)
                plan.outside.append(outside)  # type: ignore[arg-type]
                plan.of_member[i].append(k)
                for a in inside:
                    plan.watchers[a].append(k)
        return plan

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
        """The loop formula of ``members``: ``h_n -> s`` for each, ``s -> OR(external bodies)``."""
        external = self._external_bodies(copy, members)
        if any(b is True for b in external):
            return []
        bodies = [b for b in external if b is not False]
        return self.loop_formula_clauses(pool, copy, sorted(members), bodies)  # type: ignore[arg-type]

    # --- the lazy part --------------------------------------------------------------------
    def loop_clauses(
        self, pool: IDPool, copy: ProgramCopy, model: Sequence[int]
    ) -> list[list[int]]:
        """Loop clauses that cut ``model`` if a claim it holds in a cyclic component is not
        well-founded, else [] (then the root, if held, is in the least fixpoint).

        The cyclic components are checked bottom-up, each on its own: while every held
        claim of the components below is founded, so is every held claim outside the
        cyclic components below (its completion clause gives it a body the model holds),
        so an antecedent outside the component is founded iff the model holds it, and the
        founded members are the least fixpoint inside the component from the justifications
        whose outside antecedents the model holds. The first component with a held member
        that is not founded gets the loop formulas of its unfounded set and the check stops.
        Cost: linear in the held members' justifications, not in the cone."""
        if copy.ranked:
            return []
        if isinstance(copy.root, bool):
            if not copy.root:
                return []
        elif (model[abs(copy.root) - 1] > 0) != (copy.root > 0):
            return []
        if copy.positive and len(copy.plans) < len(self.cyclic):  # laid out on first use
            copy.plans = [self._plan(copy, members) for members in self.cyclic]
        for plan in copy.plans:
            held = [i for i, h in enumerate(plan.holds) if model[h - 1] > 0]
            if not held:
                continue
            intact, founded = self._founded_members(plan, model, held)
            if len(founded) < len(held):
                return self._cuts(
                    pool, copy, plan, model, [i for i in held if i not in founded], intact
                )
        return []

    @staticmethod
    def _founded_members(
        plan: ComponentPlan, model: Sequence[int], held: list[int]
    ) -> tuple[list[int], set[int]]:
        """The justifications of held members that the model holds (every antecedent held
        or present), and the positions of the held members founded through them."""
        is_held = bytearray(len(plan.members))
        for i in held:
            is_held[i] = 1
        inside, outside, of_member = plan.inside, plan.outside, plan.of_member
        intact: list[int] = []
        missing: dict[int, int] = {}
        stack: list[int] = []
        founded: set[int] = set()
        for i in held:
            for k in of_member[i]:
                for x in outside[k]:
                    if model[x - 1] < 0:
                        break
                else:
                    ins = inside[k]
                    for a in ins:
                        if not is_held[a]:
                            break
                    else:
                        intact.append(k)
                        if ins:
                            missing[k] = len(ins)
                        elif i not in founded:
                            founded.add(i)
                            stack.append(i)
        watchers, target = plan.watchers, plan.target
        while stack:
            a = stack.pop()
            for k in watchers[a]:
                left = missing.get(k)
                if left is None:
                    continue
                missing[k] = left - 1
                if left == 1:
                    c = target[k]
                    if c not in founded:
                        founded.add(c)
                        stack.append(c)
        return intact, founded

    def _cuts(
        self,
        pool: IDPool,
        copy: ProgramCopy,
        plan: ComponentPlan,
        model: Sequence[int],
        unfounded: list[int],
        intact: list[int],
    ) -> list[list[int]]:
        """One loop formula per loop of ``unfounded`` (positions in ``plan``): its strongly
        connected components through the justifications the model holds, which is stronger
        than one formula for all of it. A loop with a held justification from outside it
        would be founded from that one, so each formula is violated by the model."""
        in_u = set(unfounded)
        inside, target = plan.inside, plan.target
        predecessors: dict[int, list[int]] = {u: [] for u in unfounded}
        for k in intact:
            t = target[k]
            if t in in_u:
                predecessors[t].extend(a for a in inside[k] if a in in_u)
        clauses: list[list[int]] = []
        for part in tarjan(unfounded, predecessors.__getitem__):
            members = set(part)
            if len(part) == 1 and part[0] not in predecessors[part[0]]:
                continue  # not a loop
            bodies: list[int] = []
            premise = False
            for i in part:
                for k in plan.of_member[i]:
                    if any(a in members for a in inside[k]):
                        continue
                    b = copy.body[plan.just[k]]
                    if b is True:
                        premise = True
                    else:
                        bodies.append(b)  # type: ignore[arg-type]
            if premise or any(model[abs(b) - 1] == b for b in bodies):
                continue  # held from outside in this model: not the culprit
            clauses.extend(
                self.loop_formula_clauses(pool, copy, [plan.members[i] for i in part], bodies)
            )
        if not clauses:
            raise AssertionError("an unfounded model without a violated loop formula")
        return clauses

    def loop_formula_clauses(
        self, pool: IDPool, copy: ProgramCopy, members: list[int], bodies: list[int]
    ) -> list[list[int]]:
        """The loop formula "some member held -> some external body held" of ``members``
        (node numbers) over ``copy``'s variables, in the fewer literals of two clause
        forms: ``h_n -> OR(bodies)`` for each member n (|members| x (|bodies| + 1)), or
        ``h_n -> s`` for each and ``s -> OR(bodies)`` with s a fresh variable of ``pool``
        (2 |members| + |bodies| + 1: linear, where the first is quadratic)."""
        copy.loops_added += 1
        if len(members) * (len(bodies) + 1) <= 2 * len(members) + len(bodies) + 1:
            return [[-copy.holds[n]] + bodies for n in members]
        s = pool.id((copy.tag, "loop", next(self._fresh)))
        clauses: list[list[int]] = [[-s] + bodies]
        clauses.extend([-copy.holds[n], s] for n in sorted(members))
        return clauses


__all__ = ["ComponentPlan", "ProgramCopy", "SupportProgram"]
