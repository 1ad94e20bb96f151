"""What a graph document may carry beyond the graph (docs/design.md section 4), checked the
one way for every command that reads a graph file.

A node may have a ``text``, an ``author``, and, for evidence, a calculation (``expression``
and the ``value`` it gave) that ``jtms review`` re-executes. The theory's reader
(:func:`theory.io.graphfile.parse_graph`) reads the graph and ignores these fields' content;
a memory must be able to store them. Checking them here, both when a memory imports a
document and when ``jtms check``, ``supports``, ``revise`` or ``diagnose`` read one, makes a
file valid or invalid the same way everywhere: a text with a NUL or a claim with a
calculation is refused by all of them, not accepted by one and refused by the next.

>>> from theory.io.graphfile import parse_graph
>>> document = {"nodes": [{"id": "e", "kind": "evidence", "expression": "2*3", "value": "6"}]}
>>> node_extras(document, parse_graph(document), "<doc>")
{'e': {'expression': '2*3', 'value': '6'}}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import filterfalse
from typing import Any

from jtms.memory.limits import LIMITS, MAX_TEXT, text_problem
from theory.model.errors import InputError
from theory.model.structure import Nogood, SupportStructure

EXTRA_KEYS = ("author", "expression", "value")
"""The node fields a memory stores beyond the graph."""
_EXTRA_SET = frozenset(EXTRA_KEYS)


def check_calculation(node_id: str, expression: Any, value: Any, source: str) -> None:
    """Refuse a calculation the reviewer could not re-execute safely (bad input, exit 2)."""
    from jtms.calc.safe_expr import UnsafeExpression, check_expression  # static: evaluates nothing

    for what, text in (("expression", expression), ("value", value)):
        if not isinstance(text, str):
            raise InputError(f"{what} must be a string", source=source, node=node_id)
        try:
            check_expression(text)
        except UnsafeExpression as error:
            raise InputError(
                f"{what} {text[:60]!r}: {error.problem}", source=source, node=node_id
            ) from None


def check_texts(texts: Iterable[tuple[str, str]], nogoods: Iterable[Nogood], source: str) -> None:
    """Refuse a graph with a node's or a nogood's text that cannot be stored (too long, NUL,
    a lone surrogate: :func:`jtms.memory.limits.text_problem`) before anything is written."""
    for node_id, text in texts:
        if len(text) > MAX_TEXT or "\x00" in text or not (text.isascii() or _encodes(text)):
            raise InputError(f"text {text_problem(text, MAX_TEXT)}", source=source, node=node_id)
    for nogood in nogoods:
        problem = text_problem(nogood.text, MAX_TEXT)
        if problem is not None:
            raise InputError(f"text {problem}", source=source, node=nogood.id)


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def node_extras(
    document: Mapping[str, Any], structure: SupportStructure | None, source: str
) -> dict[str, dict[str, Any]]:
    """The ``author``, ``expression`` and ``value`` of each node of a document that the
    graph reader accepted, checked: strings within their limits, a calculation only on
    evidence, with both its expression and its value, in the calculation grammar.
    ``structure``: the parsed graph when the caller has it (it says which nodes are
    evidence); otherwise each node's ``kind`` field does."""
    extras: dict[str, dict[str, Any]] = {}
    # the nodes with one of these keys, found in one pass in C (a set's ``isdisjoint`` of a
    # node mapping reads its keys): a million plain nodes cost 0.44 s as a loop in Python
    for node in filterfalse(_EXTRA_SET.isdisjoint, document.get("nodes", [])):
        extra = {k: node[k] for k in EXTRA_KEYS if k in node}
        for key, value in extra.items():
            if value is not None and not isinstance(value, str):
                raise InputError(f"{key!r} must be a string", source=source, node=node["id"])
            problem = (
                None
                if value is None
                else text_problem(value, LIMITS["source" if key == "author" else "expression"])
            )
            if problem is not None:
                raise InputError(f"{key!r} {problem}", source=source, node=node["id"])
        if ("expression" in extra) != ("value" in extra):
            raise InputError(
                "a calculation needs both 'expression' and 'value'",
                source=source,
                node=node["id"],
            )
        if extra.get("expression") is not None:
            evidence = (
                node["id"] in structure.evidence
                if structure is not None
                else node.get("kind") == "evidence"
            )
            if not evidence:
                raise InputError(
                    "only evidence records a calculation", source=source, node=node["id"]
                )
            check_calculation(node["id"], extra["expression"], extra["value"], source)
        extras[node["id"]] = extra
    return extras


def check_document(document: Any, structure: SupportStructure, source: str) -> None:
    """Everything a memory's import checks beyond :func:`theory.io.graphfile.parse_graph`, for a
    command that only reads the graph file ``source`` (``jtms check FILE``): its texts and
    its calculations. ``structure`` is the document parsed."""
    texts = ((node.id, node.text) for node in structure.nodes.values() if node.text)
    check_texts(texts, structure.nogoods, source)
    if isinstance(document, Mapping):
        node_extras(document, structure, source)


__all__ = ["EXTRA_KEYS", "check_calculation", "check_document", "check_texts", "node_extras"]
