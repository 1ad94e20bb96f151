"""Theorem 2 (the counting boundary) in first-order z3, for every finite graph at once.

The support-function vocabulary of :mod:`proofs.general` cannot see support loops, so this
encoding speaks of graphs. Sorts ``Node``, ``Just`` (justifications) and ``Set`` (sets of
nodes), with ``ev(n)`` (n is evidence), ``head(j)`` (the claim j concludes), ``ant(a, j)``
(a is an antecedent of j), ``mem(n, S)``, the claim ``c`` and an audit ``R`` (a predicate
``aud(n)``). Derived predicates, each characterised by axioms:

- ``s0(n)``    the active set before the audit: closed under the rules (evidence; a
  justification all of whose antecedents are in it adds its head) and every member derived
  (evidence, or the head of a justification whose antecedents are in s0 with a smaller
  ``rank0``, an Int >= 0): so s0 is the least fixpoint, ranks being the round a node enters;
- ``alive(n)`` exact revision's active set after R: the same with the nodes of R forced out
  (members not in R; closure only for heads outside R), with its own ``rank``; and one
  instance of its leastness (Coq ``Graph.active_least``): it lies inside s0, which is closed
  under the rules with R forced out (Coq ``alive_antimono`` with [] ⊆ R);
- ``kept(n)``  Datalog Counting's kept set: supported (every member in s0, not in R, evidence
  or the head of a justification whose antecedents are all kept) and containing every
  supported set, stated for the set the proof needs (``U``, axiomatised as L ∪ alive:
  if U is supported then U ⊆ kept);
- ``W(L)``     the witness condition on a set L: c in L, and every member in s0, not in R,
  not alive, and the head of a justification whose antecedents each lie in L or are alive.

Theorem 2 says ``safe <=> no witness`` over the audits drawn from D; both sides range over
the same audits, so it is proved per audit R (any R at all, hence any D): c in kept and not
alive (Counting keeps c, exact revision retires it) iff some set L satisfies W(L).

- ``general:counting_criterion_only_if`` (a witness => unsafe on R): assert W(L), the union
  U = L ∪ alive and c not in kept: UNSAT.
- ``general:counting_criterion_if`` (unsafe on R => a witness): assert c kept, c not alive,
  the set K = kept \\ alive (comprehension for that one set) and no set satisfying W: UNSAT.
- ``general:counting_loop``: a member n of a set L with W(L) keeps a justification with an
  antecedent in L (the support loop): UNSAT of its negation.

Faithfulness: a finite graph with an audit R, read as Node = its nodes, Just = its
justifications, Set = all sets of nodes, s0/alive = the least fixpoints with their entry
rounds as ranks, kept = the greatest supported set, satisfies every axiom (each is a
property of the least or greatest fixpoint, or an instance of one for a particular set); so
a counterexample graph would be a model of the negated statement, and UNSAT rules them all
out. The mutants weaken W once per direction and must be SAT; their models are read back as
graphs and checked with :mod:`theory` (``~no_exact_condition`` drops "not alive" from W, so
an alive claim is its own witness; ``~no_loop`` demands every antecedent alive, so the
self-supporting loop that keeps c is no witness).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import z3

from proofs.results import SAT, UNKNOWN, UNSAT, VACUOUS, ProofResult
from theory import SupportStructure
from theory.model.structure import Kind
from theory.semantics.fixpoint import active_state
from theory.semantics.revision import counting

MUTANT_NODES = 3
"""A mutant's model, and a proof's model without its negated goal, are asked for with at
most this many nodes and justifications (z3 then finds them at once; the loop
counterexample ``c <- m; c <- e; m <- c``, audit {e}, has three of each)."""


class GraphVocabulary:
    """Sorts, symbols and axioms of the graph encoding (a fresh z3 context each)."""

    def __init__(self, mutant: str | None = None) -> None:
        self.ctx = ctx = z3.Context()
        self.mutant = mutant
        self.Node = z3.DeclareSort("Node", ctx)
        self.Just = z3.DeclareSort("Just", ctx)
        self.Set = z3.DeclareSort("Set", ctx)
        b = z3.BoolSort(ctx)
        self.ev = z3.Function("ev", self.Node, b)
        self.head = z3.Function("head", self.Just, self.Node)
        self.ant = z3.Function("ant", self.Node, self.Just, b)
        self.mem = z3.Function("mem", self.Node, self.Set, b)
        self.aud = z3.Function("aud", self.Node, b)
        self.s0 = z3.Function("s0", self.Node, b)
        self.alive = z3.Function("alive", self.Node, b)
        self.kept = z3.Function("kept", self.Node, b)
        self.rank0 = z3.Function("rank0", self.Node, z3.IntSort(ctx))
        self.rank = z3.Function("rank", self.Node, z3.IntSort(ctx))
        self.c = z3.Const("c", self.Node)
        self.n = z3.Const("n", self.Node)
        self.a = z3.Const("a", self.Node)
        self.j = z3.Const("j", self.Just)

    # helpers
    def antecedents_in(
        self, j: z3.ExprRef, inside: Callable[[z3.ExprRef], z3.BoolRef]
    ) -> z3.BoolRef:
        a = z3.Const("a_in", self.Node)
        return z3.ForAll([a], z3.Implies(self.ant(a, j), inside(a)))

    def derived(
        self,
        member: Callable[[z3.ExprRef], z3.BoolRef],
        rank: z3.FuncDeclRef | None,
        n: z3.ExprRef,
    ) -> z3.BoolRef:
        """n is evidence or the head of a justification whose antecedents are members
        (of smaller rank, when ``rank`` is given)."""
        j = z3.Const("j_d", self.Just)
        if rank is None:
            inside = member
        else:
            inside = lambda a: z3.And(member(a), rank(a) < rank(n))  # noqa: E731
        return z3.Or(
            self.ev(n), z3.Exists([j], z3.And(self.head(j) == n, self.antecedents_in(j, inside)))
        )

    def lfp(self, member: z3.FuncDeclRef, rank: z3.FuncDeclRef, audited: bool) -> list:
        """member = the least fixpoint (with the audit's nodes forced out when ``audited``)."""
        n, j = self.n, self.j
        out = (lambda x: self.aud(x)) if audited else (lambda x: z3.BoolVal(False, self.ctx))
        return [
            z3.ForAll([n], z3.Implies(z3.And(self.ev(n), z3.Not(out(n))), member(n))),
            z3.ForAll(
                [j],
                z3.Implies(
                    z3.And(self.antecedents_in(j, member), z3.Not(out(self.head(j)))),
                    member(self.head(j)),
                ),
            ),
            z3.ForAll([n], rank(n) >= 0),
            z3.ForAll(
                [n],
                z3.Implies(member(n), z3.And(z3.Not(out(n)), self.derived(member, rank, n))),
            ),
        ]

    def axioms(self) -> list:
        n, j = self.n, self.j
        return [
            z3.ForAll([j], z3.Not(self.ev(self.head(j)))),  # evidence has no justification
            z3.Not(self.ev(self.c)),
            self.s0(self.c),  # c is an active claim
            *self.lfp(self.s0, self.rank0, audited=False),
            *self.lfp(self.alive, self.rank, audited=True),
            z3.ForAll([n], z3.Implies(self.alive(n), self.s0(n))),  # leastness, one instance
            z3.ForAll([n], z3.Implies(self.kept(n), self.supported_member(self.kept, n))),
        ]

    def supported_member(
        self, member: Callable[[z3.ExprRef], z3.BoolRef], n: z3.ExprRef
    ) -> z3.BoolRef:
        return z3.And(self.s0(n), z3.Not(self.aud(n)), self.derived(member, None, n))

    def supported(self, s: z3.ExprRef) -> z3.BoolRef:
        n = z3.Const("n_s", self.Node)
        inside = lambda x: self.mem(x, s)  # noqa: E731
        return z3.ForAll([n], z3.Implies(self.mem(n, s), self.supported_member(inside, n)))

    def witness(self, s: z3.ExprRef) -> z3.BoolRef:
        """W(L) for the set s (weakened by the mutant, if any)."""
        n, j = z3.Const("n_w", self.Node), z3.Const("j_w", self.Just)
        if self.mutant == "no_loop":
            inside = lambda a: self.alive(a)  # noqa: E731
        else:
            inside = lambda a: z3.Or(self.mem(a, s), self.alive(a))  # noqa: E731
        conditions = [self.s0(n), z3.Not(self.aud(n))]
        if self.mutant != "no_exact_condition":
            conditions.append(z3.Not(self.alive(n)))
        conditions.append(z3.Exists([j], z3.And(self.head(j) == n, self.antecedents_in(j, inside))))
        return z3.And(
            self.mem(self.c, s),
            z3.ForAll([n], z3.Implies(self.mem(n, s), z3.And(*conditions))),
        )

    def at_most(self, nodes: int, justs: int) -> list:
        """At most ``nodes`` nodes and ``justs`` justifications (only to find a mutant's
        small model: a restriction can only remove models)."""
        x, j = z3.Const("x_m", self.Node), z3.Const("j_m", self.Just)
        node_names = [z3.Const(f"node{i}", self.Node) for i in range(nodes)]
        just_names = [z3.Const(f"just{i}", self.Just) for i in range(justs)]
        return [
            z3.ForAll([x], z3.Or(*[x == y for y in node_names])),
            z3.ForAll([j], z3.Or(*[j == k for k in just_names])),
        ]

    def standard(
        self,
        evidence: list[str],
        claims: list[str],
        justifications: list[tuple[str, list[str]]],
        audit: list[str],
    ) -> list:
        """Facts that pin every symbol to the standard interpretation of a finite graph and
        audit (c the first claim): Node = its nodes, Just = its justifications, Set = all
        sets of nodes, s0/alive the least fixpoints (ranks: the round a node enters) and
        kept the greatest supported set, computed by :mod:`theory`. Ground facts: the
        universes are left in ``self.domains`` for :meth:`holds_in_standard`."""
        if not justifications or len(evidence) + len(claims) < 2:
            raise ValueError("a standard model here needs two nodes and a justification")
        g = SupportStructure.build(evidence, claims, justifications)
        ids = list(evidence) + list(claims)
        s0 = active_state(g)
        alive = active_state(g, blocked=audit)
        kept = s0 - counting(g, frozenset(audit))
        node = {i: z3.Const(f"node_{i}", self.Node) for i in ids}
        just = [z3.Const(f"just_{k}", self.Just) for k in range(len(justifications))]
        subsets = [
            frozenset(i for b, i in enumerate(ids) if mask >> b & 1)
            for mask in range(1 << len(ids))
        ]
        sets = [z3.Const(f"set_{mask}", self.Set) for mask in range(len(subsets))]
        self.domains = {"Node": list(node.values()), "Just": just, "Set": sets}
        facts = [z3.Distinct(*node.values()), self.c == node[claims[0]]]
        facts += [z3.Distinct(*just), z3.Distinct(*sets)]
        rank0, rank = _rounds(g, ()), _rounds(g, audit)
        for i in ids:
            facts += [
                self.ev(node[i]) == (i in evidence),
                self.aud(node[i]) == (i in audit),
                self.s0(node[i]) == (i in s0),
                self.alive(node[i]) == (i in alive),
                self.kept(node[i]) == (i in kept),
                self.rank0(node[i]) == rank0.get(i, 0),
                self.rank(node[i]) == rank.get(i, 0),
            ]
            for k, (_, body) in enumerate(justifications):
                facts.append(self.ant(node[i], just[k]) == (i in body))
            for u, subset in zip(sets, subsets):
                facts.append(self.mem(node[i], u) == (i in subset))
        for k, (h, _) in enumerate(justifications):
            facts.append(self.head(just[k]) == node[h])
        return facts

    def holds_in_standard(self, formulas: list, graph: tuple, timeout_s: float = 60.0) -> bool:
        """Whether ``formulas`` hold in the standard model of ``graph`` (the arguments of
        :meth:`standard`): every quantifier is expanded over that model's finite universes,
        every other constant of a graph sort is one of its elements, so a quantifier-free
        solver decides it."""
        pins = self.standard(*graph)
        solver = z3.Solver(ctx=self.ctx)
        solver.set("timeout", max(1, int(timeout_s * 1000)))
        solver.add(*pins, *[_ground(f, self.domains) for f in formulas])
        for free in _free_constants(formulas):
            sort = free.sort().name()
            if sort in self.domains:
                solver.add(z3.Or(*[free == u for u in self.domains[sort]]))
        return solver.check() == z3.sat

    def unsafe(self) -> z3.BoolRef:
        return z3.And(self.kept(self.c), z3.Not(self.alive(self.c)))


def _ground(e: z3.ExprRef, domains: dict[str, list]) -> z3.ExprRef:
    """``e`` with every quantifier expanded over ``domains`` (sort name -> its elements)."""
    if z3.is_quantifier(e):
        sorts = [e.var_sort(i).name() for i in range(e.num_vars())]
        cases = [
            _ground(z3.substitute_vars(e.body(), *reversed(combo)), domains)
            for combo in itertools.product(*[domains[s] for s in sorts])
        ]
        return z3.And(*cases) if e.is_forall() else z3.Or(*cases)
    if z3.is_app(e) and e.num_args() > 0:
        return e.decl()(*[_ground(a, domains) for a in e.children()])
    return e


def _free_constants(formulas: list) -> list:
    seen: dict[str, z3.ExprRef] = {}
    todo = list(formulas)
    while todo:
        e = todo.pop()
        if z3.is_quantifier(e):
            todo.append(e.body())
        elif z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            seen[str(e)] = e
        elif z3.is_app(e):
            todo.extend(e.children())
    return list(seen.values())


def _rounds(g: SupportStructure, audit: Iterable[str]) -> dict[str, int]:
    """The round each node enters the least fixpoint with ``audit`` forced out (evidence 0)."""
    out = set(audit)
    rank = {i: 0 for i, node in g.nodes.items() if node.kind == Kind.EVIDENCE and i not in out}
    round_ = 0
    while True:
        round_ += 1
        new = {
            j.claim
            for j in g.justifications
            if j.claim not in rank and j.claim not in out and all(a in rank for a in j.antecedents)
        }
        if not new:
            return rank
        rank.update({i: round_ for i in new})


LOOP_GRAPH = (["e"], ["c", "m"], [("c", ["m"]), ("m", ["c"]), ("m", ["e"])], ["e"])
LOOP_TEXT = "c <- m; m <- c; m <- e with the audit {e} (Counting keeps the loop c, m)"


def _only_if(v: GraphVocabulary) -> list:
    loop, union = z3.Const("L", v.Set), z3.Const("U", v.Set)
    n = v.n
    return [
        v.witness(loop),
        z3.ForAll([n], v.mem(n, union) == z3.Or(v.mem(n, loop), v.alive(n))),
        z3.Implies(v.supported(union), z3.ForAll([n], z3.Implies(v.mem(n, union), v.kept(n)))),
        z3.Not(v.unsafe()),
    ]


def _if(v: GraphVocabulary) -> list:
    retired, s = z3.Const("K", v.Set), z3.Const("S", v.Set)
    n = v.n
    return [
        z3.ForAll([n], v.mem(n, retired) == z3.And(v.kept(n), z3.Not(v.alive(n)))),
        v.unsafe(),
        z3.ForAll([s], z3.Not(v.witness(s))),
    ]


def _loop(v: GraphVocabulary) -> list:
    loop, n, j, a = z3.Const("L", v.Set), z3.Const("m", v.Node), v.j, v.a
    return [
        v.witness(loop),
        v.mem(n, loop),
        z3.Not(
            z3.Exists(
                [j],
                z3.And(
                    v.head(j) == n,
                    v.antecedents_in(j, lambda x: z3.Or(v.mem(x, loop), v.alive(x))),
                    z3.Exists([a], z3.And(v.ant(a, j), v.mem(a, loop))),
                ),
            )
        ),
    ]


@dataclass(frozen=True)
class GraphStatement:
    name: str
    text: str
    query: Callable[[GraphVocabulary], list]
    mutant: str | None = None
    mutant_of: str | None = None


GRAPH_GENERAL: dict[str, GraphStatement] = {
    s.name: s
    for s in (
        GraphStatement(
            "general:counting_criterion_if",
            "Theorem 2, any audit R (so any D): Counting keeps c and exact revision retires "
            "it => a witness L (every finite graph)",
            _if,
        ),
        GraphStatement(
            "general:counting_criterion_only_if",
            "Theorem 2, any audit R: a witness L => Counting keeps c and exact revision "
            "retires it (every finite graph)",
            _only_if,
        ),
        GraphStatement(
            "general:counting_loop",
            "every member of a witness L has a justification inside L ∪ alive_R with an "
            "antecedent in L (the support loop)",
            _loop,
        ),
        GraphStatement(
            "general:counting_criterion_if~no_loop",
            "mutant: the witness's antecedents must all be alive (none in L)",
            _if,
            mutant="no_loop",
            mutant_of="general:counting_criterion_if",
        ),
        GraphStatement(
            "general:counting_criterion_only_if~no_exact_condition",
            "mutant: 'not alive' dropped from the witness",
            _only_if,
            mutant="no_exact_condition",
            mutant_of="general:counting_criterion_only_if",
        ),
    )
}


@dataclass(frozen=True)
class DecodedGraph:
    """A finite z3 model read back: the graph document, the audit and the c's id."""

    graph: dict[str, object]
    audit: list[str]
    claim: str


def decode_model(v: GraphVocabulary, model: z3.ModelRef) -> DecodedGraph:
    """The graph of a finite model (node ids n0, n1, ..; repeated justifications merged)."""
    nodes = model.get_universe(v.Node) or []
    justs = model.get_universe(v.Just) or []
    names = {str(x): f"n{i}" for i, x in enumerate(nodes)}

    def true(e: z3.ExprRef) -> bool:
        return z3.is_true(model.eval(e, model_completion=True))

    documents = [
        {"id": names[str(x)], "kind": "evidence" if true(v.ev(x)) else "claim", "text": ""}
        for x in nodes
    ]
    pairs = {
        (
            names[str(model.eval(v.head(j), model_completion=True))],
            tuple(sorted(names[str(a)] for a in nodes if true(v.ant(a, j)))),
        )
        for j in justs
    }
    graph = {
        "nodes": documents,
        "justifications": [{"claim": h, "antecedents": list(b)} for h, b in sorted(pairs)],
    }
    audit = sorted(names[str(x)] for x in nodes if true(v.aud(x)))
    return DecodedGraph(graph, audit, names[str(model.eval(v.c, model_completion=True))])


def prove_graph_general(name: str, timeout_s: float = 60.0) -> ProofResult:
    """Refute the statement's query (UNSAT proves it); a mutant must come back SAT, with its
    model decoded into a graph (``details["graph"]``, ``["audit"]``, ``["claim"]``).

    An UNSAT answer counts only if the query less its last fact (the negated goal) has a
    model (``details["without_goal"]``, decoded), else it is ``VACUOUS``: the axioms and
    hypotheses alone would be contradictory."""
    spec = GRAPH_GENERAL[name]
    start, cpu = time.perf_counter(), time.process_time()
    v = GraphVocabulary(spec.mutant)
    solver = z3.Solver(ctx=v.ctx)
    solver.set("timeout", max(1, int(timeout_s * 1000)))
    facts = spec.query(v)
    solver.add(*v.axioms(), *facts)
    if spec.mutant:
        solver.add(*v.at_most(MUTANT_NODES, MUTANT_NODES))
    answer = solver.check()
    result = SAT if answer == z3.sat else UNSAT if answer == z3.unsat else UNKNOWN
    details: dict[str, object] = {"text": spec.text}
    if answer == z3.unsat:  # non-vacuity: without its negated goal (last) the query holds
        if v.holds_in_standard(v.axioms() + facts[:-1], LOOP_GRAPH, timeout_s):
            details["without_goal"] = "holds in the standard model of " + LOOP_TEXT
        else:
            result = VACUOUS
    if answer == z3.sat:
        decoded = decode_model(v, solver.model())
        details.update(graph=decoded.graph, audit=decoded.audit, claim=decoded.claim)
    return ProofResult(
        statement=name,
        n=None,
        solver="z3 (first-order, graphs)",
        result=result,
        seconds=time.perf_counter() - start,
        expected=SAT if spec.mutant else UNSAT,
        mutant=spec.mutant is not None,
        cpu_seconds=time.process_time() - cpu,
        details=details,
    )
