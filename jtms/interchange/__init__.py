"""Other tools' memories in and out: ftl-reasons networks and W3C PROV documents.

:func:`read_source` reads either into an :class:`Imported` (the graph, the audit the source
had in force, and an :class:`ImportReport` of what was dropped, ignored or left to a choice);
:mod:`jtms.interchange.reasons` and :mod:`jtms.interchange.prov` write them back where the
mapping is lossless. docs/importing.md describes both mappings.
"""

from jtms.interchange.imported import (
    ChoiceDependence,
    DanglingReference,
    Disagreement,
    DroppedOutList,
    EvaluatedOutList,
    Imported,
    ImportReport,
)
from jtms.interchange.sources import SOURCES, read_source

__all__ = [
    "SOURCES",
    "ChoiceDependence",
    "DanglingReference",
    "Disagreement",
    "DroppedOutList",
    "EvaluatedOutList",
    "ImportReport",
    "Imported",
    "read_source",
]
