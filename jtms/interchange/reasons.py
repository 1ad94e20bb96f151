"""ftl-reasons networks: read its SQLite store or the JSON its ``export_network`` writes; write
that JSON back.

The mapping (docs/importing.md):

- a node with no justification is a *premise* of the network: here, evidence;
- a node with justifications is a claim; each SL justification's in-list (``antecedents``)
  is one justification (an AND), several are alternatives (OR), as ftl-reasons evaluates them
  (a node is IN when any justification is valid). CP justifications are evaluated by
  ftl-reasons exactly as SL ones, so they are read the same way and counted in the report;
- nogoods are nogoods;
- retracted nodes (``retracted_at`` set; in a store older than that column, the
  ``_retracted`` flag; a premise that is OUT) are the audit.

Out-lists ("believe X unless Y") are non-monotonic, outside this theory: a justification
with one is refused, naming the node and the justification, or with ``drop_out_lists``
dropped from the justification and listed in the report. A dependency cycle through an
out-list is refused either way: such a network need not have one well-founded labelling
(an even loop has two, an odd loop none), so there is no monotone reading to check.

The store is opened read-only (the package itself is not needed to read it, and its own
loader would write to the file while migrating the schema); nothing is written to it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from jtms.interchange.imported import (
    Disagreement,
    DroppedOutList,
    Imported,
    ImportReport,
    read_text,
)
from theory.model.errors import InputError
from theory.model.graphalgo import tarjan
from theory.model.ids import id_problem
from theory.model.structure import Nogood, SupportStructure
from theory.semantics.fixpoint import active_state

SQLITE_MAGIC = b"SQLite format 3\x00"
JUSTIFICATION_TYPES = ("SL", "CP")
GENERATOR = "jtms-revision"
_NODE_FIELDS = (
    "text",
    "truth_value",
    "supporting_justification",
    "justifications",
    "source",
    "source_url",
    "source_hash",
    "text_hash",
    "date",
    "metadata",
    "created_at",
    "updated_at",
    "reviewed_at",
    "verified_at",
    "retracted_at",
)


def read_reasons(path: str | Path, *, drop_out_lists: bool = False) -> Imported:
    """Read an ftl-reasons network (its SQLite store, or its ``export_network`` JSON)."""
    source = str(path)
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except FileNotFoundError:
        raise InputError("no such file", source=source) from None
    except OSError as error:
        raise InputError(f"cannot read file ({error.__class__.__name__})", source=source) from None
    if head == SQLITE_MAGIC:
        network = network_from_sqlite(path)
    else:
        try:
            network = json.loads(read_text(path))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            raise InputError(
                "not an ftl-reasons network: neither its SQLite store nor the JSON "
                "of its export_network",
                source=source,
            ) from None
    return from_network(network, source=source, drop_out_lists=drop_out_lists)


def network_from_sqlite(path: str | Path) -> dict[str, Any]:
    """The store's nodes, justifications and nogoods as an ``export_network``-shaped dict
    (with the ``_retracted`` flag kept in each node's metadata), read without writing."""
    source = str(path)
    # ftl-reasons keeps its store in WAL mode, and a read-only connection to it creates the
    # -wal and -shm files; without a -wal file (no writer has uncommitted pages) the store is
    # read as immutable, which creates nothing beside it
    resolved = Path(path).resolve()
    live = resolved.with_name(resolved.name + "-wal").exists()
    uri = resolved.as_uri() + ("?mode=ro" if live else "?mode=ro&immutable=1")
    try:
        connection = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as error:
        raise InputError(f"cannot open the SQLite file ({error})", source=source) from None
    try:
        tables = {
            row[0]
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        for needed in ("nodes", "justifications", "nogoods"):
            if needed not in tables:
                raise InputError(f"not an ftl-reasons store: no table {needed!r}", source=source)
        columns = {row[1] for row in connection.execute("PRAGMA table_info(nodes)")}
        retracted = "retracted_at" if "retracted_at" in columns else "NULL"
        nodes: dict[str, Any] = {}
        for node_id, text, truth, metadata_json, retracted_at in connection.execute(
            f"SELECT id, text, truth_value, metadata_json, {retracted} FROM nodes ORDER BY id"
        ):
            try:
                metadata = json.loads(metadata_json) if metadata_json else {}
            except json.JSONDecodeError:
                raise InputError(
                    "malformed metadata_json", source=source, node=str(node_id)
                ) from None
            nodes[node_id] = {
                "text": text,
                "truth_value": truth,
                "justifications": [],
                "metadata": metadata,
            }
            if retracted_at is not None:  # a store older than the column has only the flag
                nodes[node_id]["retracted_at"] = retracted_at
        for node_id, kind, antecedents, out_list in connection.execute(
            "SELECT node_id, type, antecedents_json, outlist_json FROM justifications ORDER BY rowid"
        ):
            if node_id not in nodes:
                raise InputError(
                    "a justification of an unknown node", source=source, node=str(node_id)
                )
            try:
                nodes[node_id]["justifications"].append(
                    {
                        "type": kind,
                        "antecedents": json.loads(antecedents),
                        "outlist": json.loads(out_list),
                    }
                )
            except json.JSONDecodeError:
                raise InputError(
                    "malformed antecedents_json or outlist_json", source=source, node=str(node_id)
                ) from None
        nogoods = []
        for nogood_id, nodes_json in connection.execute(
            "SELECT id, nodes_json FROM nogoods ORDER BY id"
        ):
            try:
                nogoods.append({"id": nogood_id, "nodes": json.loads(nodes_json)})
            except json.JSONDecodeError:
                raise InputError(
                    "malformed nodes_json", source=source, node=str(nogood_id)
                ) from None
    except sqlite3.Error as error:
        raise InputError(f"not an ftl-reasons store ({error})", source=source) from None
    finally:
        connection.close()
    return {"nodes": nodes, "nogoods": nogoods}


def _strings(value: Any, what: str, node: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InputError(f"{what} must be a list of node ids", node=node)
    return value


def from_network(
    network: Any, source: str = "<network>", *, drop_out_lists: bool = False
) -> Imported:
    """The graph, audit and report of an ``export_network``-shaped dict (see the module docstring)."""
    try:
        return _from_network(network, source, drop_out_lists)
    except InputError as error:
        raise error.with_source(source) from None


def _from_network(network: Any, source: str, drop_out_lists: bool) -> Imported:
    if not isinstance(network, Mapping) or not isinstance(network.get("nodes"), Mapping):
        hint = ""
        if isinstance(network, Mapping) and isinstance(network.get("nodes"), list):
            hint = " (this looks like a jtms graph file: drop --from)"
        raise InputError(
            "not an ftl-reasons network: expected an object whose 'nodes' maps "
            "node ids to nodes, as export_network writes" + hint
        )
    nodes: Mapping[str, Any] = network["nodes"]
    evidence: list[str] = []
    claims: list[str] = []
    texts: dict[str, str] = {}
    pairs: list[tuple[str, list[str]]] = []
    out_edges: list[tuple[str, str, int]] = []  # (out-listed node, node, justification)
    in_edges: list[tuple[str, str]] = []
    out_lists: list[DroppedOutList] = []
    retracted: set[str] = set()
    recorded: dict[str, str] = {}
    cp = 0
    for node_id, node in nodes.items():
        problem = id_problem(node_id)
        if problem is not None:
            raise InputError(f"id {problem}", node=str(node_id))
        if not isinstance(node, Mapping):
            raise InputError("a node must be an object", node=node_id)
        text = node.get("text", "")
        if not isinstance(text, str):
            raise InputError("'text' must be a string", node=node_id)
        texts[node_id] = text
        justifications = node.get("justifications", [])
        if not isinstance(justifications, list):
            raise InputError("'justifications' must be a list", node=node_id)
        (claims if justifications else evidence).append(node_id)
        for position, justification in enumerate(justifications):
            if not isinstance(justification, Mapping):
                raise InputError(f"justification {position} must be an object", node=node_id)
            kind = justification.get("type", "SL")
            if kind not in JUSTIFICATION_TYPES:
                raise InputError(
                    f"justification {position} has type {kind!r}; expected SL or CP", node=node_id
                )
            cp += kind == "CP"
            antecedents = _strings(
                justification.get("antecedents", []),
                f"justification {position}: 'antecedents'",
                node_id,
            )
            out_list = _strings(
                justification.get("outlist", []), f"justification {position}: 'outlist'", node_id
            )
            for antecedent in antecedents:
                if antecedent not in nodes:
                    raise InputError(
                        f"justification {position} names an unknown node {antecedent!r} "
                        "in its in-list",
                        node=node_id,
                    )
                in_edges.append((antecedent, node_id))
            if out_list:
                out_lists.append(DroppedOutList(node_id, position, tuple(out_list)))
                out_edges.extend((o, node_id, position) for o in out_list if o in nodes)
            pairs.append((node_id, antecedents))
        metadata = node.get("metadata", {})
        flagged = isinstance(metadata, Mapping) and bool(metadata.get("_retracted"))
        truth = node.get("truth_value", "IN")
        if truth not in ("IN", "OUT"):
            raise InputError(f"truth_value must be IN or OUT, got {truth!r}", node=node_id)
        recorded[node_id] = truth
        # ftl-reasons' retract sets retracted_at and the _retracted flag, its assert clears
        # both; its import_json restores an OUT node by retracting it and then puts back the
        # exported retracted_at, so the flag alone (with retracted_at empty) is no retraction
        stamped = bool(node["retracted_at"]) if "retracted_at" in node else flagged
        if stamped or (not justifications and truth == "OUT"):
            retracted.add(node_id)
    _refuse_out_list_cycles(in_edges, out_edges)
    if out_lists and not drop_out_lists:
        first = out_lists[0]
        raise InputError(
            f"justification {first.justification} has the out-list {list(first.out_list)}: "
            "out-lists are non-monotonic, outside this theory (--drop-out-lists drops them "
            f"and lists them; {len(out_lists)} in this network)",
            node=first.node,
        )
    nogoods = _nogoods(network.get("nogoods", []))
    structure = SupportStructure.build(evidence, claims, pairs, texts=texts, nogoods=nogoods)
    active = active_state(structure, blocked=retracted)
    disagreements = tuple(
        Disagreement(n, recorded[n], "IN" if n in active else "OUT")
        for n in sorted(recorded)
        if (recorded[n] == "IN") != (n in active)
    )
    notes = (
        (f"{cp} CP justification(s) read as SL (ftl-reasons evaluates them alike)",) if cp else ()
    )
    report = ImportReport(
        "reasons",
        source,
        dropped_out_lists=tuple(out_lists) if drop_out_lists else (),
        disagreements=disagreements,
        notes=notes,
    )
    return Imported(structure, frozenset(retracted), report)


def _refuse_out_list_cycles(
    in_edges: list[tuple[str, str]], out_edges: list[tuple[str, str, int]]
) -> None:
    """Refuse a dependency cycle that passes through an out-list (see the module docstring)."""
    if not out_edges:
        return
    number: dict[str, int] = {}
    for a, b in [*in_edges, *((o, n) for o, n, _ in out_edges)]:
        number.setdefault(a, len(number))
        number.setdefault(b, len(number))
    predecessors: list[list[int]] = [[] for _ in number]
    for a, b in in_edges:
        predecessors[number[b]].append(number[a])
    for a, b, _ in out_edges:
        predecessors[number[b]].append(number[a])
    component: dict[str, int] = {}
    names = list(number)
    for k, members in enumerate(tarjan(range(len(names)), predecessors.__getitem__)):
        for member in members:
            component[names[member]] = k
    for out_node, node, position in out_edges:
        if out_node == node or component.get(out_node, -1) == component.get(node, -2):
            raise InputError(
                f"justification {position} has {out_node!r} in its out-list, and {out_node!r} "
                "depends on this node: a cycle through out-lists has no single "
                "well-founded labelling",
                node=node,
            )


def _nogoods(items: Any) -> list[Nogood]:
    if not isinstance(items, list):
        raise InputError("'nogoods' must be a list")
    parsed = []
    for position, item in enumerate(items):
        if not isinstance(item, Mapping) or not isinstance(item.get("id"), str):
            raise InputError(f"nogoods[{position}] must be an object with a string 'id'")
        nogood_id = item["id"]
        problem = id_problem(nogood_id)
        if problem is not None:
            raise InputError(f"nogood id {problem}", node=nogood_id)
        members = _strings(item.get("nodes", []), "a nogood's 'nodes'", nogood_id)
        text = item.get("text", "")  # written by to_network; ftl-reasons has no such field
        if not isinstance(text, str):
            raise InputError("'text' must be a string", node=nogood_id)
        parsed.append(Nogood(nogood_id, frozenset(members), text))
    return parsed


def to_network(
    structure: SupportStructure,
    audit: frozenset[str] = frozenset(),
    *,
    retracted_at: Mapping[str, str] | None = None,
    project_name: str = "",
) -> dict[str, Any]:
    """``structure`` under ``audit`` as the JSON ``export_network`` writes (ftl-reasons'
    ``import_json`` reads it); :func:`from_network` reads it back to the same graph and audit.

    Evidence become premises; each justification an SL justification with an empty out-list;
    audited nodes are retracted (``retracted_at`` from ``retracted_at``, else now); truth values
    are the exact active state. A claim with no justification has no counterpart (ftl-reasons
    would read it as a premise, IN) and is refused, naming it. Nogood texts travel in a
    ``text`` key that ftl-reasons ignores.
    """
    unjustified = sorted(c for c, js in structure.justifications_of.items() if not js)
    if unjustified:
        raise InputError(
            "a claim with no justification has no ftl-reasons counterpart (it would be "
            f"read as a premise, IN); {len(unjustified)} such claim(s)",
            node=unjustified[0],
        )
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    stamps = retracted_at or {}
    active = active_state(structure, blocked=audit)
    by_claim = structure.justifications_of
    nodes: dict[str, Any] = {}
    for node_id in sorted(structure.nodes):
        justifications = sorted(by_claim.get(node_id, ()), key=lambda j: sorted(j.antecedents))
        supporting = None
        if node_id in active and node_id not in audit:
            valid = [k for k, j in enumerate(justifications) if j.antecedents <= active]
            supporting = valid[-1] if valid else None  # ftl-reasons prefers the last valid one
        nodes[node_id] = {
            "text": structure.nodes[node_id].text,
            "truth_value": "IN" if node_id in active else "OUT",
            "supporting_justification": supporting,
            "justifications": [
                {
                    "type": "SL",
                    "antecedents": sorted(j.antecedents),
                    "outlist": [],
                    "label": "",
                    "content_hash": "",
                }
                for j in justifications
            ],
            "source": "",
            "source_url": "",
            "source_hash": "",
            "text_hash": "",
            "date": "",
            "metadata": {},
            "created_at": "",
            "updated_at": "",
            "reviewed_at": "",
            "verified_at": "",
            "retracted_at": (stamps.get(node_id) or now) if node_id in audit else "",
        }
    return {
        "meta": {
            "schema_version": "1.0",
            "project_name": project_name,
            "node_count": len(nodes),
            "created_at": now,
            "updated_at": now,
            "generator": GENERATOR,
        },
        "nodes": nodes,
        "nogoods": [
            {
                "id": g.id,
                "nodes": sorted(g.nodes),
                "discovered": "",
                "resolution": "",
                "text": g.text,
            }
            for g in sorted(structure.nogoods, key=lambda g: g.id)
        ],
        "repos": {},
    }


__all__ = ["from_network", "network_from_sqlite", "read_reasons", "to_network"]
