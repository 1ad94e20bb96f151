"""Pure core: support structures, the least-fixpoint active state, revision rules, monotone
support formulas, SAT minimal justifications and the influence-safety predicate.

No CLI and no database here; :mod:`jtms` builds on this package, never the reverse.

The names below load their module on first use (PEP 562), so a command that needs one module
of the package (``jtms audit`` needs the fixpoint, not the SAT solvers behind
:func:`minimal_justifications`) does not import the others, and a one-shot process starts sooner.
"""

from __future__ import annotations

import importlib
import typing

from theory.model.errors import GraphError, InputError

if typing.TYPE_CHECKING:
    from theory.io.graphfile import (
        dumps_graph,
        graph_to_dict,
        load_graph,
        loads_graph,
        parse_graph,
        save_graph,
    )
    from theory.model.structure import Justification, Kind, Node, SupportStructure
    from theory.safety.check import (
        CheckStream,
        ClaimReport,
        SafetyReport,
        Violation,
        check_structure,
        stream_check,
    )
    from theory.semantics.fixpoint import active_state
    from theory.semantics.revision import (
        RULES,
        Revision,
        RevisionRule,
        counting,
        exact,
        influence,
        none,
        revise,
    )
    from theory.solver.justifications import minimal_justifications

_MODULES = {
    "active_state": "semantics.fixpoint",
    **dict.fromkeys(
        ("dumps_graph", "graph_to_dict", "load_graph", "loads_graph", "parse_graph", "save_graph"),
        "io.graphfile",
    ),
    "minimal_justifications": "solver.justifications",
    **dict.fromkeys(
        ("RULES", "Revision", "RevisionRule", "counting", "exact", "influence", "none", "revise"),
        "semantics.revision",
    ),
    **dict.fromkeys(
        (
            "CheckStream",
            "ClaimReport",
            "SafetyReport",
            "Violation",
            "check_structure",
            "stream_check",
        ),
        "safety.check",
    ),
    **dict.fromkeys(("Justification", "Kind", "Node", "SupportStructure"), "model.structure"),
}
"""The module of :mod:`theory` that defines each name of :data:`__all__` (but the errors)."""


def __getattr__(name: str) -> typing.Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'theory' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"theory.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_MODULES))


__all__ = [
    "CheckStream",
    "ClaimReport",
    "GraphError",
    "InputError",
    "Justification",
    "Kind",
    "Node",
    "RULES",
    "Revision",
    "RevisionRule",
    "SafetyReport",
    "SupportStructure",
    "Violation",
    "active_state",
    "check_structure",
    "counting",
    "dumps_graph",
    "exact",
    "graph_to_dict",
    "influence",
    "load_graph",
    "loads_graph",
    "minimal_justifications",
    "none",
    "parse_graph",
    "revise",
    "save_graph",
    "stream_check",
]
