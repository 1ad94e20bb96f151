"""``jtms export --format reasons|prov``: a stored memory's graph and audits in force.

What travels: every node (its text), justification and nogood, and the audits in force (as
retracted / invalidated nodes). What does not: the history (events, reinstated audits,
authors, recorded calculations); ``--format jsonl`` keeps all of it.
"""

from __future__ import annotations

import json
from typing import IO

from jtms.memory.jsonl import Summary


def export_interchange(location: str, fmt: str, out: IO[str]) -> Summary:
    """Write the memory at ``location`` as ``fmt`` (``reasons``: the JSON ftl-reasons'
    ``export_network`` writes; ``prov``: PROV-JSON) to ``out``. The whole text is built
    before anything is written, so a refusal (one line) writes nothing."""
    from jtms.memory.memory import Memory

    with Memory.open(location) as memory, memory.snapshot():
        structure = memory.structure()
        audits = memory.open_audits()
        times = {row["id"]: row["time"] for row in memory.table("events") if row["id"] in audits}
    audit = frozenset(node for roots in audits.values() for node in roots)
    if fmt == "reasons":
        from jtms.interchange.reasons import to_network

        stamps = {node: str(times[a]) for a, roots in sorted(audits.items()) for node in roots}
        text = json.dumps(to_network(structure, audit, retracted_at=stamps), indent=2) + "\n"
    else:
        from jtms.interchange.prov import dumps_prov

        text = dumps_prov(structure, audit)
    out.write(text)
    return Summary(
        {
            "nodes": len(structure.nodes),
            "justifications": len(structure.justifications),
            "nogoods": len(structure.nogoods),
            "audits": len(audits),
        },
        location,
    )
