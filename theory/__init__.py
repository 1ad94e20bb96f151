"""Pure core: support structures, the least-fixpoint active state, revision rules, monotone
support formulas, SAT minimal justifications and the influence-safety predicate.

No CLI and no database here; :mod:`jtms` builds on this package, never the reverse.
"""

from theory.errors import GraphError, InputError
from theory.fixpoint import active_state
from theory.graphfile import (
    dumps_graph,
    graph_to_dict,
    load_graph,
    loads_graph,
    parse_graph,
    save_graph,
)
from theory.justifications import minimal_justifications
from theory.revision import RULES, Revision, RevisionRule, exact, influence, none, revise
from theory.safety import (
    CheckStream,
    ClaimReport,
    SafetyReport,
    Violation,
    check_structure,
    stream_check,
)
from theory.structure import Justification, Kind, Node, SupportStructure

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
