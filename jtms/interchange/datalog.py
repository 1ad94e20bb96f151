"""``--from datalog FILE``: a positive Datalog/ASP program, grounded by clingo, as a graph.

The program is grounded by clingo's own grounder through its Python API (the ``clingo``
extra); the ground program is read back through clingo's observer, so every ground rule
instance the grounder makes is one justification:

- each fact is evidence; each atom a rule derives is a claim; each ground rule instance
  ``h :- b1, ..., bn`` is the justification ``h <- b1 AND ... AND bn``;
- an atom that is both a fact and derived is a claim justified by its fact, and the fact
  itself is evidence under the id ``fact:ATOM`` (``fact:edge(1,3)``): no atom clingo prints
  begins with ``fact:``, so the two ids never meet;
- with ``evidence`` (``--evidence PRED[,PRED...]``) only those predicates' facts are
  evidence (auditable); the other facts are premises (claims with an empty justification);
- ids are the atoms as clingo prints them (``path(1,2)``); their commas lie inside
  parentheses, so an id list names them (:func:`theory.model.ids.split_ids`).

Only positive programs are read: rules whose head is one atom and whose body is atoms and
built-in comparisons. Negation (``not``, classical ``-``), disjunction, aggregates, choice
rules, conditional literals, integrity constraints and the other directives are refused,
naming the rule and its line (``#const`` and ``#show`` are allowed; ``#show`` changes no
support and is ignored). Facts are handed to the grounder as choices so that it keeps the
rule instances that use them (a fact it knows true would be folded into the derived atoms,
leaving no instance to read).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from jtms.interchange.imported import Imported, ImportReport
from theory.model.errors import InputError
from theory.model.ids import id_problem
from theory.model.optional import import_optional
from theory.model.structure import SupportStructure

FACT_PREFIX = "fact:"
"""The id of the evidence behind an atom that is both a fact and derived: ``fact:ATOM``."""


def read_datalog(path: str | Path, *, evidence: Sequence[str] | None = None) -> Imported:
    """Ground the positive program in ``path`` with clingo and read it as a graph (see the
    module docstring); ``evidence``: the predicates whose facts are evidence (default all)."""
    clingo = import_optional("clingo", "clingo")
    import_optional("clingo.ast", "clingo")
    source = str(path)
    if not Path(path).is_file():
        raise InputError("no such file", source=source)
    messages: list[str] = []

    def logger(_code: Any, message: str) -> None:
        messages.append(" ".join(message.split()))

    control = clingo.Control(["--warn=none"], logger=logger, message_limit=20)
    observer = _Observer()
    control.register_observer(observer)
    _load(clingo, control, source, messages)
    try:
        control.ground([("base", [])])
    except RuntimeError:
        raise InputError(
            "clingo could not ground the program: " + (messages[-1] if messages else "error"),
            source=source,
        ) from None
    names = {atom.literal: str(atom.symbol) for atom in control.symbolic_atoms}
    return _graph(observer, names, evidence, source)


class _Observer:
    """Collects the ground rules clingo's grounder emits (heads and bodies as literals)."""

    def __init__(self) -> None:
        self.facts: list[int] = []
        self.rules: list[tuple[int, Sequence[int]]] = []

    def rule(self, choice: bool, head: Sequence[int], body: Sequence[int]) -> None:
        if choice:  # a fact of the program (handed to the grounder as a choice)
            self.facts.extend(head)
        elif head:
            self.rules.append((head[0], body))


def _load(clingo: Any, control: Any, source: str, messages: list[str]) -> None:
    """Parse ``source``, refuse what is not positive Datalog, hand the rest to ``control``
    (facts and rules whose body has no atom as choices)."""
    ast = clingo.ast
    refused: list[str] = []
    plain: list[str] = []  # plain facts as choices, handed over as text (parsed in C++)

    def add(statement: Any) -> None:
        if refused:
            return
        text = str(statement)
        if _PLAIN_FACT.fullmatch(text) and not text.startswith("not "):
            plain.append("{" + text[:-1] + "}.")
            return
        problem = _problem(ast, statement)
        if problem is not None:
            line = statement.location.begin.line
            text = " ".join(text.split())
            refused.append(f"line {line}: {problem}: {text[:120]}")
            return
        if statement.ast_type == ast.ASTType.Rule and not any(
            _is_atom(ast, literal) for literal in statement.body
        ):
            location = statement.location
            head = ast.ConditionalLiteral(location, statement.head, [])
            statement = ast.Rule(
                location, ast.Aggregate(location, None, [head], None), statement.body
            )
        if statement.ast_type in (ast.ASTType.ShowSignature, ast.ASTType.ShowTerm):
            return
        if statement.ast_type.name == "Comment":
            return
        builder.add(statement)

    try:
        with ast.ProgramBuilder(control) as builder:
            ast.parse_files([source], add, logger=lambda _c, m: messages.append(m))
    except RuntimeError:
        shown = " ".join(messages[-1].split()) if messages else "syntax error"
        raise InputError(f"not a clingo program: {shown}", source=source) from None
    if refused:
        raise InputError(
            f"not a positive Datalog program: {refused[0]} (only rules whose head is one atom "
            "and whose body is atoms and comparisons are read)",
            source=source,
        )
    control.add("base", [], "\n".join(plain))


_PLAIN_FACT = re.compile(r"[a-z_][^:;{}|\"#%]*\.")
"""A statement as clingo prints it that is one atom and nothing else (no body, no string, no
pool, no directive, no comment), so read as a fact without a walk through its tree: the walk
costs tens of microseconds a statement, and large programs are mostly such facts."""


def _is_atom(ast: Any, literal: Any) -> bool:
    return literal.ast_type == ast.ASTType.Literal and (
        literal.atom.ast_type == ast.ASTType.SymbolicAtom
    )


def _problem(ast: Any, statement: Any) -> str | None:
    """Why ``statement`` is outside positive Datalog (None when it is inside)."""
    kind = statement.ast_type
    if kind == ast.ASTType.Program:
        return (
            None
            if statement.name == "base" and not statement.parameters
            else ("a #program part other than base (only base is grounded)")
        )
    if kind in (ast.ASTType.Definition, ast.ASTType.ShowSignature, ast.ASTType.ShowTerm):
        return None
    if kind.name == "Comment":  # clingo >= 5.8 hands comments to the callback
        return None
    if kind != ast.ASTType.Rule:
        return f"a {_kind_name(kind)} statement"
    head = statement.head
    if head.ast_type == ast.ASTType.Disjunction:
        return "a disjunctive head"
    if head.ast_type in (ast.ASTType.Aggregate, ast.ASTType.HeadAggregate):
        return "a choice or aggregate head"
    if head.ast_type != ast.ASTType.Literal:
        return f"a {_kind_name(head.ast_type)} head"
    if head.atom.ast_type == ast.ASTType.BooleanConstant:
        return "an integrity constraint"
    if head.atom.ast_type != ast.ASTType.SymbolicAtom or head.sign != ast.Sign.NoSign:
        return "a head that is not one atom"
    if _classical(ast, head.atom):
        return "classical negation"
    for literal in statement.body:
        if literal.ast_type != ast.ASTType.Literal:
            return f"a {_kind_name(literal.ast_type)} in the body"
        if literal.sign != ast.Sign.NoSign:
            return "negation (not)"
        atom = literal.atom
        if atom.ast_type == ast.ASTType.SymbolicAtom:
            if _classical(ast, atom):
                return "classical negation"
        elif atom.ast_type not in (ast.ASTType.Comparison, ast.ASTType.BooleanConstant):
            return f"a {_kind_name(atom.ast_type)} in the body"
    return None


def _classical(ast: Any, atom: Any) -> bool:
    return bool(atom.symbol.ast_type == ast.ASTType.UnaryOperation)


def _kind_name(kind: Any) -> str:
    """``ASTType.BodyAggregate`` -> ``body aggregate``."""
    name = str(getattr(kind, "name", kind))
    return "".join(" " + c.lower() if c.isupper() else c for c in name).strip()


def _graph(
    observer: _Observer,
    names: dict[int, str],
    evidence: Sequence[str] | None,
    source: str,
) -> Imported:
    """The graph of the ground program (see the module docstring)."""
    wanted = None if evidence is None else frozenset(evidence)
    predicates: dict[int, str] = {}
    if wanted is not None:  # an atom's predicate is its name up to "(" (no "-": refused)
        predicates.update((literal, name.split("(", 1)[0]) for literal, name in names.items())
        unknown = sorted(wanted - set(predicates.values()))
        if unknown:
            raise InputError(
                f"--evidence names {unknown[0]!r}, a predicate the program does not have",
                source=source,
            )
    fact_set = set(observer.facts)
    derived = {head for head, _body in observer.rules}
    for literal in (*fact_set, *derived):
        if literal not in names:
            raise InputError(f"clingo made an auxiliary atom ({literal})", source=source)
    evidence_ids: list[str] = []
    claims: list[str] = []
    pairs: list[tuple[str, Iterable[str]]] = []
    premises = 0
    both = 0
    for literal in sorted(fact_set, key=names.__getitem__):
        name = names[literal]
        auditable = wanted is None or predicates[literal] in wanted
        if literal in derived:
            both += 1
            if auditable:
                evidence_ids.append(FACT_PREFIX + name)
                pairs.append((name, (FACT_PREFIX + name,)))
            else:
                premises += 1
                pairs.append((name, ()))
        elif auditable:
            evidence_ids.append(name)
        else:
            premises += 1
            claims.append(name)
            pairs.append((name, ()))
    claims.extend(names[literal] for literal in sorted(derived, key=names.__getitem__))
    for node_id in (*evidence_ids, *claims):
        problem = id_problem(node_id)
        if problem is not None:
            raise InputError(f"atom {problem}", source=source, node=node_id)
    for _head, body in observer.rules:
        for literal in body:
            if literal not in names:
                raise InputError(f"clingo made an auxiliary atom ({literal})", source=source)
    pairs.extend((names[head], [names[b] for b in body]) for head, body in observer.rules)
    structure = SupportStructure.build(evidence_ids, claims, pairs)
    counts = {
        "facts": len(fact_set),
        "derived_atoms": len(derived),
        "facts_also_derived": both,
        "premises": premises,
        "evidence": len(evidence_ids),
        "ground_rules": len(observer.rules),
    }
    notes: tuple[str, ...] = (
        f"{len(fact_set)} fact(s) ({len(evidence_ids)} evidence, {premises} premise(s)), "
        f"{len(derived)} derived atom(s), {len(observer.rules)} ground rule instance(s)",
    )
    if both:
        notes += (
            f"{both} atom(s) both a fact and derived: a claim justified by its fact, whose "
            f"evidence id is {FACT_PREFIX}ATOM",
        )
    report = ImportReport(
        format="datalog",
        source=source,
        notes=notes,
        counts=counts,
        evidence_predicates=None if wanted is None else tuple(sorted(wanted)),
    )
    return Imported(structure, frozenset(), report)
