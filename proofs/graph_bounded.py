"""Theorem 2 (the counting boundary) bounded: every graph on n nodes, by SAT, with certificates.

The support-function vocabulary of :mod:`proofs.statements` cannot see support loops (a loop
changes no support function), so Theorem 2 is encoded over graphs themselves. For n nodes,
node 0 is the claim c; the free variables are the graph:

- ``ev[v]``     node v is evidence (``ev[0]`` is false: c is a claim), the others claims;
- ``J[h, B]``   the justification ``h <- B`` is present, for every node h and every set B
  of nodes (2^n bodies: the empty body makes h a premise, B may contain h); evidence has
  no justification (``J[h, B] -> not ev[h]``), as :class:`theory.SupportStructure` demands.

So the models of the body are exactly the graphs on n nodes with c a claim, split into
evidence and claims in every way (e evidence, k claims, e + k = n). For every audit R (a set
of nodes, a constant bit mask; it is *drawn from D* when its members are evidence, for
``D = evidence``, claims, or any nodes) the encoding defines, all by Tseitin gates in both
directions (so every auxiliary is a function of the graph):

- ``alive_R``    exact revision's active set: the least fixpoint with the nodes of R forced
  out, unrolled n rounds from the evidence outside R (each round adds a node or is stable);
  ``S0 = alive_{}`` is the active set before any audit;
- ``kept_R``     Datalog Counting's kept set: the greatest fixpoint, unrolled n rounds down
  from ``S0 \\ R`` (a claim stays while one of its justifications has every antecedent
  kept; each round removes a node or is stable);
- ``safe``       for every R drawn from D: not (c in kept_R and c not in alive_R);
- ``witness``    OR over every R drawn from D and every set L of nodes with c in L and L
  disjoint from R of ``W(R, L)``: every member of L is in S0, not in alive_R, and has a
  justification whose antecedents each lie in L or in alive_R.

With c active (``S0[c]``), the statement's negation ``(safe and witness) or (not safe and no
witness)``, i.e. ``safe <-> witness``, is asserted: UNSAT proves Theorem 2 for every graph
on n nodes and the audits drawn from D. A mutant weakens W (``~no_exact_condition`` drops
"not in alive_R", so an active claim's own support is a witness; ``~no_loop`` demands the
antecedents in alive_R only, so no loop can keep c) and must be SAT; :func:`decode_graph`
reads its model back as a graph, which the tests check with :mod:`theory`.

>>> encoding = encode_counting("counting_criterion", 3)
>>> encoding.n, len(encoding.audits)
(3, 8)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pysat.solvers import Solver

from proofs.certificate import check, dimacs
from proofs.cnf_encoding import Builder
from proofs.results import SAT, UNSAT, Countermodel, ProofResult
from theory import SupportStructure
from theory.semantics.revision import counting, exact

AUDITS = ("evidence", "claims", "all")
COUNTING_MAX_N = 6
"""The most nodes ``jtms prove`` encodes (n = 6: 1.6 million clauses, minutes to solve)."""


@dataclass(frozen=True)
class CountingStatement:
    name: str
    text: str
    audits: str  # the set D the audits are drawn from
    mutant: str | None = None  # which ingredient of W is weakened

    @property
    def mutant_of(self) -> str | None:
        return self.name.split("~")[0] if self.mutant else None


COUNTING: dict[str, CountingStatement] = {
    s.name: s
    for s in (
        CountingStatement(
            "counting_criterion",
            "Theorem 2, audits of evidence: an active claim c is counting-safe <=> no witness "
            "(R, L) (every graph on n nodes)",
            "evidence",
        ),
        CountingStatement(
            "counting_criterion_claims",
            "Theorem 2, audits of claims: counting-safe <=> no witness (every graph on n nodes)",
            "claims",
        ),
        CountingStatement(
            "counting_criterion_all",
            "Theorem 2, audits of any nodes (mixed): counting-safe <=> no witness",
            "all",
        ),
        CountingStatement(
            "counting_criterion~no_exact_condition",
            "mutant of counting_criterion: 'not in alive_R' dropped from the witness",
            "evidence",
            mutant="no_exact_condition",
        ),
        CountingStatement(
            "counting_criterion~no_loop",
            "mutant of counting_criterion: the antecedents must be alive (none in L)",
            "evidence",
            mutant="no_loop",
        ),
    )
}


def counting_statement(name: str) -> CountingStatement:
    try:
        return COUNTING[name]
    except KeyError:
        raise ValueError(
            f"unknown statement {name!r} (choose from {', '.join(COUNTING)})"
        ) from None


@dataclass
class CountingEncoding:
    """The CNF of one negated counting statement on n nodes, and where the graph lies."""

    statement: str
    n: int
    clauses: list[list[int]]
    nvars: int
    evidence: list[int]  # ev[v]
    justification: dict[tuple[int, int], int]  # (h, body mask) -> J[h, B]
    audits: list[int]  # the audit masks R (every subset of the nodes)
    alive: dict[int, list[int]] = field(default_factory=dict)  # R -> alive_R[v]
    kept: dict[int, list[int]] = field(default_factory=dict)  # R -> kept_R[v]
    drawn: dict[int, int] = field(default_factory=dict)  # R -> "R is drawn from D"
    safe: int = 0
    witness: int = 0
    body: int = 0  # the number of clauses before the final assertion


def _members(mask: int, n: int) -> list[int]:
    return [v for v in range(n) if mask >> v & 1]


def encode_counting(name: str, n: int, assert_negation: bool = True) -> CountingEncoding:
    """The CNF: the graph's variables, the per-audit fixpoints, ``safe``, ``witness``, and
    (unless ``assert_negation`` is false) the assertion ``safe <-> witness`` with c active."""
    spec = counting_statement(name)
    if n < 1:
        raise ValueError("n must be at least 1")
    b = Builder()
    ev = [b.new() for _ in range(n)]
    jv = {(h, mask): b.new() for h in range(n) for mask in range(1 << n)}
    b.add([-ev[0]])
    for (h, _), var in jv.items():
        b.add([-var, -ev[h]])
    masks = list(range(1 << n))
    enc = CountingEncoding(name, n, [], 0, ev, jv, masks)

    def supported(v: int, member: list[int]) -> int:
        """v has a justification whose antecedents are all ``member``."""
        return b.or_(
            [b.and_([jv[v, mask]] + [member[a] for a in _members(mask, n)]) for mask in masks]
        )

    false = -b.true()
    for audit in masks:
        state = [false if audit >> v & 1 else ev[v] for v in range(n)]
        for _ in range(n):
            state = [
                false if audit >> v & 1 else b.or_([ev[v], supported(v, state)]) for v in range(n)
            ]
        enc.alive[audit] = state
    s0 = enc.alive[0]
    for audit in masks:
        state = [false if audit >> v & 1 else s0[v] for v in range(n)]
        for _ in range(n):
            state = [b.and_([state[v], b.or_([ev[v], supported(v, state)])]) for v in range(n)]
        enc.kept[audit] = state
        members = _members(audit, n)
        enc.drawn[audit] = b.and_(
            [ev[v] for v in members]
            if spec.audits == "evidence"
            else [-ev[v] for v in members]
            if spec.audits == "claims"
            else []
        )
    unsafe = [b.and_([enc.drawn[r], enc.kept[r][0], -enc.alive[r][0]]) for r in masks if not r & 1]
    enc.safe = -b.or_(unsafe)
    witnesses = []
    for audit in masks:
        alive = enc.alive[audit]
        for loop in masks:
            if not loop & 1 or loop & audit:
                continue
            member = (
                alive
                if spec.mutant == "no_loop"
                else [b.true() if loop >> v & 1 else alive[v] for v in range(n)]
            )
            conditions = [enc.drawn[audit]]
            for v in _members(loop, n):
                conditions += [s0[v], supported(v, member)]
                if spec.mutant != "no_exact_condition":
                    conditions.append(-alive[v])
            witnesses.append(b.and_(conditions))
    enc.witness = b.or_(witnesses)
    enc.body = len(b.clauses)
    if assert_negation:
        b.add([s0[0]])
        b.add([enc.safe, -enc.witness])
        b.add([-enc.safe, enc.witness])
    enc.clauses, enc.nvars = b.clauses, b.nvars
    return enc


def decode_graph(enc: CountingEncoding, model: list[int]) -> dict[str, object]:
    """The graph of a model (a graph document: nodes ``c``, ``x1`` ..; evidence, claims, and
    the justifications present)."""
    true = {lit for lit in model if lit > 0}
    names = ["c"] + [f"x{v}" for v in range(1, enc.n)]
    nodes = [
        {"id": names[v], "kind": "evidence" if enc.evidence[v] in true else "claim", "text": ""}
        for v in range(enc.n)
    ]
    justifications = [
        {"claim": names[h], "antecedents": [names[a] for a in _members(mask, enc.n)]}
        for (h, mask), var in sorted(enc.justification.items())
        if var in true
    ]
    return {"nodes": nodes, "justifications": justifications}


def fix_graph(enc: CountingEncoding, evidence: set[int], justs: set[tuple[int, int]]) -> list[int]:
    """The literals (solver assumptions) that fix the encoding's graph to the given one
    (node numbers, justifications as (head, body mask))."""
    literals = [enc.evidence[v] if v in evidence else -enc.evidence[v] for v in range(enc.n)]
    literals += [var if key in justs else -var for key, var in enc.justification.items()]
    return literals


def solve_counting(name: str, n: int, engine: str = "cadical") -> ProofResult:
    """Solve one counting statement on n nodes with CaDiCaL (or Glucose, a second solver)."""
    spec = counting_statement(name)
    start, cpu = time.perf_counter(), time.process_time()
    enc = encode_counting(name, n)
    engines = {"cadical": "cadical195", "glucose": "glucose42"}
    with Solver(name=engines[engine], bootstrap_with=enc.clauses) as solver:
        satisfiable = solver.solve()
        model = solver.get_model() if satisfiable else None
    details: dict[str, object] = {"variables": enc.nvars, "clauses": len(enc.clauses)}
    countermodel = None
    if model is not None:
        countermodel = countermodel_of(decode_graph(enc, model), spec.audits)
        details["graph"] = countermodel.graph
    return ProofResult(
        statement=name,
        n=n,
        solver=engine,
        result=SAT if satisfiable else UNSAT,
        seconds=time.perf_counter() - start,
        expected=SAT if spec.mutant else UNSAT,
        mutant=spec.mutant is not None,
        cpu_seconds=time.process_time() - cpu,
        countermodel=countermodel,
        details=details,
    )


def countermodel_of(graph: dict[str, Any], audits: str) -> Countermodel:
    """A decoded graph as a countermodel row: c's justifications, and the first audit drawn
    from ``audits`` on which Counting keeps c and exact revision retires it (recomputed with
    :mod:`theory`, not read from the model), if any."""
    nodes = graph["nodes"]
    g = SupportStructure.build(
        [x["id"] for x in nodes if x["kind"] == "evidence"],
        [x["id"] for x in nodes if x["kind"] == "claim"],
        [(j["claim"], j["antecedents"]) for j in graph["justifications"]],
    )
    pool = sorted(
        x["id"]
        for x in nodes
        if audits == "all" or (x["kind"] == "evidence") == (audits == "evidence")
    )
    witness = None
    for mask in range(1 << len(pool)):
        audit = frozenset(pool[i] for i in range(len(pool)) if mask >> i & 1)
        if "c" not in counting(g, audit) and "c" in exact(g, audit):
            witness = sorted(audit)
            break
    text = "; ".join(
        f"{j['claim']} <- {{{','.join(j['antecedents'])}}}" for j in graph["justifications"]
    )
    evidence = ",".join(x["id"] for x in nodes if x["kind"] == "evidence")
    bodies = [j["antecedents"] for j in graph["justifications"] if j["claim"] == "c"]
    return Countermodel(
        graph=graph,
        minimal_justifications=bodies,
        ancestors=sorted({a for body in bodies for a in body}),
        witness_audit=witness,
        note=f"graph: {text}; evidence {{{evidence}}}"
        + ("" if witness else "; c counting-safe (no audit keeps it wrongly)"),
    )


def certify_counting(name: str, n: int, checker: str = "dratify") -> ProofResult:
    """CaDiCaL's DRUP refutation of one counting statement on n nodes, checked by ``checker``
    (:func:`proofs.certificate.check`); UNSAT only if the proof checks."""
    if counting_statement(name).mutant:
        raise ValueError("mutants are SAT: there is no refutation to certify")
    start, cpu = time.perf_counter(), time.process_time()
    enc = encode_counting(name, n)
    with Solver(name="cadical195", bootstrap_with=enc.clauses, with_proof=True) as solver:
        satisfiable = solver.solve()
        proof = "" if satisfiable else "\n".join(solver.get_proof()) + "\n"
    solved_cpu = time.process_time() - cpu
    if satisfiable:
        return ProofResult(
            name, n, f"cadical+{checker}", SAT, time.perf_counter() - start, certificate="none: SAT"
        )
    check_cpu = time.process_time()
    verdict = check(dimacs(enc.nvars, enc.clauses), proof, checker)
    check_cpu = time.process_time() - check_cpu
    return ProofResult(
        statement=name,
        n=n,
        solver=f"cadical+{checker}",
        result=UNSAT if verdict.valid else "UNCHECKED",
        seconds=time.perf_counter() - start,
        cpu_seconds=solved_cpu + check_cpu,
        certificate=f"DRUP {'checked' if verdict.valid else 'REJECTED'} by {checker}",
        details={
            "variables": enc.nvars,
            "clauses": len(enc.clauses),
            "lemmas": verdict.lemmas,
            "solve_cpu_seconds": round(solved_cpu, 4),
            "check_cpu_seconds": round(check_cpu, 4),
        },
    )


def export_counting(name: str, n: int, directory: Path) -> Path:
    """Write the CNF of (negated) counting statement ``name`` on n nodes as DIMACS, with a
    header saying where the graph's variables are; returns the path."""
    spec = counting_statement(name)
    enc = encode_counting(name, n)
    header = [
        f"c jtms prove: negation of {name!r} ({spec.text}), n = {n} nodes",
        f"c expected answer: {'SAT (mutant)' if spec.mutant else 'UNSAT'}",
        f"c variables 1..{n}: node v is evidence (node 0 is the claim c); variables "
        f"{n + 1}..{n + n * (1 << n)}: justification h <- B, in the order h, then B as a bit mask",
    ]
    path = directory / f"{name.replace('~', '--')}-n{n}.cnf"
    path.write_text("\n".join(header) + "\n" + dimacs(enc.nvars, enc.clauses))
    return path
