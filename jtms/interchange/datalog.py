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
leaving no instance to read): each fact ``p(1,2)`` becomes the fact ``_jtms_fact_p(1,2)`` of a
hidden predicate, and one choice rule per predicate, ``{p(X0,X1)} :- _jtms_fact_p(X0,X1).``,
makes the atoms (one non-ground statement per predicate, not one per fact: a million facts as
a million choice statements held gigabytes in the grounder). A program that uses the prefix
``_jtms_fact_`` itself is refused. The ground program is passed to the observer only (clasp,
the solver, never receives it), and is kept as flat integer arrays until the graph is built.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain
from pathlib import Path
from typing import Any

from jtms.interchange.imported import Imported, ImportReport
from theory.model.errors import InputError
from theory.model.ids import id_problem
from theory.model.optional import import_optional
from theory.model.structure import SupportStructure

FACT_PREFIX = "fact:"
"""The id of the evidence behind an atom that is both a fact and derived: ``fact:ATOM``."""

HIDDEN_FACT = "_jtms_fact_"
"""The prefix of the hidden predicate that holds a program's facts for the grounder
(``p(1,2).`` is handed over as ``_jtms_fact_p(1,2).``; see the module docstring)."""


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
    control.register_observer(observer, replace=True)  # the solver never holds the program
    _load(clingo, control, source, messages)
    try:
        control.ground([("base", [])])
    except RuntimeError:
        shown = messages[-1].replace(HIDDEN_FACT, "") if messages else "error"
        raise InputError("clingo could not ground the program: " + shown, source=source) from None
    del control  # the grounder's memory, before the graph is built
    return _graph(observer, evidence, source)


class _Observer:
    """Collects the ground program clingo's grounder emits: the facts (the heads of choice
    rules), each rule instance with a body as its head and body literals in flat integer
    arrays (rule ``r``'s body is ``bodies[ends[r - 1]:ends[r]]``), the heads of rules with an
    empty body (the facts of the hidden predicate), and the name of each atom."""

    def __init__(self) -> None:
        self.facts = array("i")
        self.heads = array("i")
        self.bodies = array("i")
        self.ends = array("q")
        self.bare = array("i")  # heads of rules with an empty body
        self.names: dict[int, str] = {}  # literal -> the atom as clingo prints it

    def rule(self, choice: bool, head: Sequence[int], body: Sequence[int]) -> None:
        if choice:  # a fact of the program (handed to the grounder as a choice)
            self.facts.extend(head)
        elif body:
            self.heads.append(head[0])
            self.bodies.extend(body)
            self.ends.append(len(self.bodies))
        elif head:
            self.bare.append(head[0])

    def output_atom(self, symbol: Any, atom: int) -> None:
        if atom:  # 0: a fact of the hidden predicate (HIDDEN_FACT), known true
            self.names[atom] = str(symbol)

    def instances(self) -> Iterator[tuple[int, Sequence[int]]]:
        """Each rule instance with a body as (head, body literals), in the grounder's order."""
        bodies = self.bodies
        start = 0
        for head, end in zip(self.heads, self.ends):
            yield head, bodies[start:end]
            start = end


def _load(clingo: Any, control: Any, source: str, messages: list[str]) -> None:
    """Parse ``source``, refuse what is not positive Datalog, hand the rest to ``control``
    (facts as facts of the hidden predicate, with one choice rule per predicate; rules whose
    body has no atom as choices)."""
    ast = clingo.ast
    refused: list[str] = []
    hidden: list[str] = []  # the facts as facts of the hidden predicate, as text (parsed in C++)
    signatures: set[tuple[str, int]] = set()  # the facts' predicates (name, arity)

    def hide(signature: tuple[str, int] | None, text: str) -> bool:
        """Hand a fact over as a fact of the hidden predicate (False: not a plain fact)."""
        if signature is None or not text.startswith(signature[0]):
            return False
        signatures.add(signature)
        hidden.append(HIDDEN_FACT + text)
        return True

    def add(statement: Any) -> None:
        if refused:
            return
        text = str(statement)
        if HIDDEN_FACT in text:
            line = statement.location.begin.line
            refused.append(f"line {line}: the reserved prefix {HIDDEN_FACT}: {text[:120]}")
            return
        if hide(_plain_signature(text), text):
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
            if hide(_fact_signature(ast, statement), text):
                return
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
    for name, arity in sorted(signatures):
        terms = "(" + ",".join(f"X{k}" for k in range(arity)) + ")" if arity else ""
        hidden.append(f"{{{name}{terms}}} :- {HIDDEN_FACT}{name}{terms}.")
    control.add("base", [], "\n".join(hidden))


def _fact_signature(ast: Any, statement: Any) -> tuple[str, int] | None:
    """The predicate (name, arity) of a statement that is one positive atom with no body
    (a fact, pools aside), None for any other statement."""
    if statement.ast_type != ast.ASTType.Rule or statement.body:
        return None
    head = statement.head
    if head.ast_type != ast.ASTType.Literal or head.sign != ast.Sign.NoSign:
        return None
    atom = head.atom
    if atom.ast_type != ast.ASTType.SymbolicAtom:
        return None
    symbol = atom.symbol
    if symbol.ast_type != ast.ASTType.Function or symbol.external:
        return None
    return symbol.name, len(symbol.arguments)


_PLAIN_FACT = re.compile(r"(_*[a-z][A-Za-z0-9_']*)(?:\(([^:;{}|\"#%]*)\))?\.")
"""A statement as clingo prints it that is one atom and nothing else (no body, no string, no
pool, no directive, no comment): its predicate's name, and the text of its arguments."""


def _plain_signature(text: str) -> tuple[str, int] | None:
    """The predicate (name, arity) of a statement that :data:`_PLAIN_FACT` matches, read from
    its text, None for any other statement: large programs are mostly such facts, and reading
    a fact's tree (:func:`_fact_signature`) costs tens of microseconds a statement. A string
    fact is read from its tree.

    >>> _plain_signature("edge(1,f(2,3)).") , _plain_signature("p."), _plain_signature("p :- q.")
    (('edge', 2), ('p', 0), None)
    """
    match = _PLAIN_FACT.fullmatch(text)
    if match is None:
        return None
    name, arguments = match.groups()
    if arguments is None:
        return name, 0
    if not arguments.strip():
        return None
    if "(" not in arguments:
        return name, arguments.count(",") + 1
    depth, arity = 0, 1
    for char in arguments:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:  # "p(1),q(2)": not one atom
                return None
        elif char == "," and not depth:
            arity += 1
    return (name, arity) if depth == 0 else None


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


def _graph(observer: _Observer, evidence: Sequence[str] | None, source: str) -> Imported:
    """The graph of the ground program (see the module docstring)."""
    names = observer.names
    wanted = None if evidence is None else frozenset(evidence)
    if wanted is not None:  # an atom's predicate is its name up to "(" (no "-": refused)
        unknown = sorted(wanted - {name.split("(", 1)[0] for name in names.values()})
        if unknown:
            raise InputError(
                f"--evidence names {unknown[0]!r}, a predicate the program does not have",
                source=source,
            )
    fact_set = set(observer.facts)
    derived = set(observer.heads)
    rules = len(observer.heads)
    # a rule with an empty body is a fact of the hidden predicate (no name): the program's
    # facts are choices, and its rules without an atom in the body too
    made_fact = next((head for head in observer.bare if head in names), None)
    if made_fact is not None:
        raise InputError(f"clingo made {names[made_fact]} a fact", source=source)
    auxiliary = next(
        (n for n in chain(fact_set, derived, set(observer.bodies)) if n not in names), None
    )
    if auxiliary is not None:
        raise InputError(f"clingo made an auxiliary atom ({auxiliary})", source=source)
    evidence_ids: list[str] = []
    claims: list[str] = []
    pairs: list[tuple[str, Iterable[str]]] = []
    premises = 0
    both = 0
    for literal in sorted(fact_set, key=names.__getitem__):
        name = names[literal]
        auditable = wanted is None or name.split("(", 1)[0] in wanted
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
    named = names.__getitem__  # the rule instances one at a time, never all as strings
    structure = SupportStructure.build(
        evidence_ids,
        claims,
        chain(pairs, ((named(head), map(named, body)) for head, body in observer.instances())),
    )
    counts = {
        "facts": len(fact_set),
        "derived_atoms": len(derived),
        "facts_also_derived": both,
        "premises": premises,
        "evidence": len(evidence_ids),
        "ground_rules": rules,
    }
    notes: tuple[str, ...] = (
        f"{len(fact_set)} fact(s) ({len(evidence_ids)} evidence, {premises} premise(s)), "
        f"{len(derived)} derived atom(s), {rules} ground rule instance(s)",
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
