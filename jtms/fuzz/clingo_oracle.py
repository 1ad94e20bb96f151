"""An independent oracle for the active state: clingo stable models.

A support structure is the normal logic program

    h(e)  :- not off(e).                          for each evidence e
    h(c)  :- h(a1), ..., h(ak), not off(c).       for each justification c <- a1 ... ak
    #external off(n).                             for each node n

An audit R sets the externals ``off(n)`` for ``n`` in R to true; everything else is false.
Apart from the externals the program is positive, so it has exactly one stable model: the
least model, in which a support loop with no grounded entry is false (clingo's unfounded-set
check), which is the docs/design.md semantics. The oracle shares no code with :mod:`theory`: it
reads only the node ids and justifications of the structure.

One :class:`ClingoOracle` grounds its graph once and answers any number of audits by
reassigning the externals (multi-shot solving), which is what makes long differential
campaigns cheap; :func:`fresh_active_state` grounds a new program per audit (the slow
baseline the benchmark compares against).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from theory.model.optional import import_optional
from theory.model.structure import Kind, SupportStructure

clingo: Any = None  # the optional engine, imported on first use (extra ``clingo``)


def _load_clingo() -> None:
    global clingo
    if clingo is None:
        clingo = import_optional("clingo", "clingo")


_ARGS = ["--warn=none", "--models=0"]


class OracleError(RuntimeError):
    """The program did not have exactly one stable model (should never happen)."""


class ClingoOracle:
    """The active state of one structure under any audit, computed by clingo.

    ``encoding="backend"`` (default) builds the ground program through clingo's backend API;
    ``encoding="text"`` writes the non-ground program above as text and lets clingo ground
    it. Both give the same answers; the backend is faster to set up.
    """

    def __init__(self, structure: SupportStructure, encoding: str = "backend"):
        if encoding not in ("backend", "text"):
            raise ValueError(f"unknown encoding {encoding!r}")
        self.encoding = encoding
        self.ids = sorted(structure.nodes)
        _load_clingo()
        self._ctl = clingo.Control(_ARGS)
        if encoding == "backend":
            self._build_backend(structure)
        else:
            self._build_text(structure)
        self._assigned: frozenset[str] = frozenset()
        self.solves = 0

    # --- grounding --------------------------------------------------------------------
    def _build_backend(self, structure: SupportStructure) -> None:
        ctl = self._ctl
        number = {node_id: i for i, node_id in enumerate(self.ids)}
        with ctl.backend() as backend:
            holds = {
                node_id: backend.add_atom(clingo.Function("h", [clingo.Number(i)]))
                for node_id, i in number.items()
            }
            off = {
                node_id: backend.add_atom(clingo.Function("off", [clingo.Number(i)]))
                for node_id, i in number.items()
            }
            for node_id in self.ids:
                backend.add_external(off[node_id], clingo.TruthValue.False_)
            for node in structure.nodes.values():
                if node.kind is Kind.EVIDENCE:
                    backend.add_rule([holds[node.id]], [-off[node.id]])
            for justification in structure.justifications:
                body = [holds[a] for a in sorted(justification.antecedents)]
                body.append(-off[justification.claim])
                backend.add_rule([holds[justification.claim]], body)
        self._off = off
        self._name = {
            clingo.Function("h", [clingo.Number(i)]): node_id for node_id, i in number.items()
        }

    def _build_text(self, structure: SupportStructure) -> None:
        number = {node_id: i for i, node_id in enumerate(self.ids)}
        self._ctl.add("base", [], program_text(structure, number))
        self._ctl.ground([("base", [])])
        self._off = {n: clingo.Function("off", [clingo.Number(i)]) for n, i in number.items()}
        self._name = {clingo.Function("h", [clingo.Number(i)]): n for n, i in number.items()}

    # --- solving ----------------------------------------------------------------------
    def active(self, audit: Iterable[str] = ()) -> frozenset[str]:
        """The active node ids after forcing the nodes of ``audit`` inactive."""
        audit = frozenset(audit)
        unknown = audit - self._off.keys()
        if unknown:
            raise KeyError(f"unknown node(s) {sorted(unknown)}")
        ctl = self._ctl
        for node_id in self._assigned - audit:
            ctl.assign_external(self._off[node_id], False)
        for node_id in audit - self._assigned:
            ctl.assign_external(self._off[node_id], True)
        self._assigned = audit
        models: list[frozenset[str]] = []
        name = self._name
        with ctl.solve(yield_=True) as handle:
            for model in handle:
                models.append(frozenset(name[s] for s in model.symbols(atoms=True) if s in name))
        self.solves += 1
        if len(models) != 1:
            raise OracleError(f"expected exactly one stable model, got {len(models)}")
        return models[0]

    def retired(self, audit: Iterable[str]) -> frozenset[str]:
        """Exact revision according to clingo: active before and inactive after ``audit``."""
        audit = frozenset(audit)
        before = self.active(frozenset())
        return before - self.active(audit)


def program_text(
    structure: SupportStructure,
    number: dict[str, int] | None = None,
    audit: Iterable[str] | None = None,
) -> str:
    """The logic program of a structure (readable ids if ``number`` is not given).

    Node ids are written as quoted strings, so any id is safe. With ``audit`` the audit is
    compiled in instead of the externals (audited evidence is no fact, audited claims have no
    rules): the one-shot program of :func:`fresh_active_state`.
    """

    def term(node_id: str) -> str:
        if number is not None:
            return str(number[node_id])
        return '"' + node_id.replace("\\", "\\\\").replace('"', '\\"') + '"'

    off = frozenset(audit or ())

    def guard(node_id: str) -> list[str]:
        return [] if audit is not None else [f"not off({term(node_id)})"]

    lines = []
    if audit is None:
        for node_id in sorted(structure.nodes):
            lines.append(f"#external off({term(node_id)}).")
    rules = [(e, ()) for e in sorted(structure.evidence)] + sorted(
        (j.claim, tuple(sorted(j.antecedents))) for j in structure.justifications
    )
    for head, antecedents in rules:
        if head in off:
            continue
        body = [f"h({term(a)})" for a in antecedents] + guard(head)
        lines.append(f"h({term(head)}) :- {', '.join(body)}." if body else f"h({term(head)}).")
    return "\n".join(lines) + "\n"


def fresh_active_state(structure: SupportStructure, audit: Iterable[str] = ()) -> frozenset[str]:
    """Baseline: a new Control per audit, audited evidence left out, audited claims underived."""
    _load_clingo()
    ctl = clingo.Control(_ARGS)
    ctl.add("base", [], program_text(structure, audit=frozenset(audit)) + "#show h/1.\n")
    ctl.ground([("base", [])])
    models: list[frozenset[str]] = []
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            models.append(frozenset(s.arguments[0].string for s in model.symbols(shown=True)))
    if len(models) != 1:
        raise OracleError(f"expected exactly one stable model, got {len(models)}")
    return models[0]


def clingo_conflict_sets(
    structure: SupportStructure, nodes: Iterable[str], blocked: Iterable[str] = ()
) -> frozenset[frozenset[str]]:
    """Conflict sets of a nogood according to clingo: the program of :func:`program_text`,
    each evidence item's ``off`` atom a free choice, ``blocked`` nodes off, every node of
    ``nodes`` required; subset-maximal ``off`` sets by domain-heuristic enumeration
    (``domRec``) are the subset-minimal evidence sets, through stable models (so a support
    loop never holds by itself)."""

    def term(node_id: str) -> str:
        return '"' + node_id.replace("\\", "\\\\").replace('"', '\\"') + '"'

    _load_clingo()
    off = frozenset(blocked)
    free = sorted(structure.evidence - off)
    lines = [program_text(structure)]
    lines += [f"off({term(n)})." for n in sorted(off)]
    lines += [f"{{ off({term(e)}) }}.\n#heuristic off({term(e)}). [1, true]" for e in free]
    lines += [f":- not h({term(n)})." for n in sorted(frozenset(nodes))]
    minimal = ["--heuristic=Domain", "--enum-mode=domRec"] if free else []  # else one model
    ctl = clingo.Control(_ARGS + minimal)
    ctl.add("base", [], "\n".join(lines) + "\n")
    ctl.ground([("base", [])])
    found: list[frozenset[str]] = []

    def on_model(model: Any) -> None:
        gone = {s.arguments[0].string for s in model.symbols(atoms=True) if s.name == "off"}
        found.append(frozenset(free) - gone)

    ctl.solve(on_model=on_model)
    return frozenset(found)
