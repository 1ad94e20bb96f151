"""ftl-reasons networks: read its SQLite store or the JSON its ``export_network`` writes; write
that JSON back.

The mapping (docs/importing.md):

- a node with no justification is a *premise* of the network: here, evidence;
- a node with justifications is a claim; each SL justification's in-list (``antecedents``)
  is one justification (an AND), several are alternatives (OR), as ftl-reasons evaluates them
  (a node is IN when any justification is valid). CP justifications are evaluated by
  ftl-reasons exactly as SL ones, so they are read the same way and counted in the report;
- nogoods are nogoods;
- retracted nodes are the audit: ``retracted_at`` set; a node recorded OUT that carries
  ``metadata.retract_reason`` (a user's retraction: ftl-reasons' propagation leaves it OUT
  whatever its justifications say); in a store older than the ``retracted_at`` column, the
  ``_retracted`` flag; a premise that is OUT;
- an in-list naming a node the network does not have never holds (ftl-reasons reads the
  missing node as OUT): that justification is left out, and the report names the reference;
  a missing out-list node is OUT, so it never defeats (left out of the out-list, named too).

Out-lists ("believe X unless Y") are non-monotonic, outside this theory. ``out_lists``
chooses their reading (:data:`OUT_LIST_MODES`):

``labels``  each out-list is evaluated at the labels the network records: a justification
            whose out-list has a node recorded IN is defeated (left out), one whose out-list
            is all OUT keeps its in-list. This reproduces ftl-reasons' own labelling, and is
            the default when every node carries a ``truth_value``;
``drop``    every out-list is dropped (its justification keeps its in-list) and listed;
``refuse``  a justification with an out-list is refused, naming the node and the
            justification (the default for a document without labels).

Under ``drop`` and ``refuse`` a dependency cycle through an out-list is refused: such a
network need not have one well-founded labelling (an even loop has two, an odd loop none),
so there is no monotone reading to check. Under ``labels`` the recorded labelling is that
reading. Every node whose recorded label differs from the computed active state is listed
(``disagreements``).

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
    DanglingReference,
    Disagreement,
    DroppedOutList,
    EvaluatedOutList,
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
OUT_LIST_MODES = ("labels", "drop", "refuse")
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


def read_reasons(
    path: str | Path, *, drop_out_lists: bool = False, out_lists: str | None = None
) -> Imported:
    """Read an ftl-reasons network (its SQLite store, or its ``export_network`` JSON).

    ``out_lists`` is one of :data:`OUT_LIST_MODES` (None: ``labels`` when the network records
    every node's label, else ``refuse``); ``drop_out_lists`` is ``out_lists="drop"``."""
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
    return from_network(network, source=source, drop_out_lists=drop_out_lists, out_lists=out_lists)


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
    network: Any,
    source: str = "<network>",
    *,
    drop_out_lists: bool = False,
    out_lists: str | None = None,
) -> Imported:
    """The graph, audit and report of an ``export_network``-shaped dict (see the module
    docstring; ``out_lists`` and ``drop_out_lists`` as in :func:`read_reasons`)."""
    try:
        mode = _out_list_mode(network, drop_out_lists, out_lists)
        return _from_network(network, source, mode)
    except InputError as error:
        raise error.with_source(source) from None


def _out_list_mode(network: Any, drop_out_lists: bool, out_lists: str | None) -> str:
    """The reading of out-lists asked for, or the default for ``network``."""
    if out_lists is not None and out_lists not in OUT_LIST_MODES:
        raise InputError(
            f"--out-lists must be one of {', '.join(OUT_LIST_MODES)}, got {out_lists!r}"
        )
    if drop_out_lists:
        if out_lists not in (None, "drop"):
            raise InputError(f"--drop-out-lists contradicts --out-lists {out_lists}")
        return "drop"
    nodes = network.get("nodes") if isinstance(network, Mapping) else None
    unlabelled = (
        next(
            (
                n
                for n, node in nodes.items()
                if not (isinstance(node, Mapping) and "truth_value" in node)
            ),
            None,
        )
        if isinstance(nodes, Mapping)
        else None
    )
    if out_lists == "labels" and unlabelled is not None:
        raise InputError(
            "--out-lists labels evaluates out-lists at the recorded labels, and this node "
            "records none (no truth_value)",
            node=str(unlabelled),
        )
    if out_lists is not None:
        return out_lists
    return "labels" if isinstance(nodes, Mapping) and nodes and unlabelled is None else "refuse"


def _from_network(network: Any, source: str, mode: str) -> Imported:
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
    evaluated: list[EvaluatedOutList] = []
    dangling: list[DanglingReference] = []
    retracted: set[str] = set()
    recorded: dict[str, str] = {}
    cp = 0
    for node_id, node in nodes.items():  # the labels first: out-lists are evaluated at them
        truth = node.get("truth_value", "IN") if isinstance(node, Mapping) else "IN"
        if truth not in ("IN", "OUT"):
            raise InputError(f"truth_value must be IN or OUT, got {truth!r}", node=str(node_id))
        if isinstance(node, Mapping) and "truth_value" in node:
            recorded[node_id] = truth
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
            missing = [a for a in antecedents if a not in nodes]
            missing_out = [o for o in out_list if o not in nodes]
            dangling.extend(DanglingReference(node_id, position, m, "in") for m in missing)
            dangling.extend(DanglingReference(node_id, position, m, "out") for m in missing_out)
            out_list = [o for o in out_list if o in nodes]  # a missing node is OUT: no defeat
            if missing:  # a missing antecedent is OUT: this justification never holds
                continue
            in_edges.extend((antecedent, node_id) for antecedent in antecedents)
            if out_list and mode == "labels":
                defeaters = tuple(o for o in out_list if recorded.get(o, "IN") == "IN")
                evaluated.append(EvaluatedOutList(node_id, position, tuple(out_list), defeaters))
                if defeaters:  # defeated at the recorded labels: it supports nothing
                    continue
            elif out_list:
                out_lists.append(DroppedOutList(node_id, position, tuple(out_list)))
                out_edges.extend((o, node_id, position) for o in out_list)
            pairs.append((node_id, antecedents))
        metadata = node.get("metadata", {})
        metadata = metadata if isinstance(metadata, Mapping) else {}
        flagged = bool(metadata.get("_retracted"))
        out = recorded.get(node_id) == "OUT"
        # ftl-reasons' retract sets retracted_at, the _retracted flag and (given a reason)
        # retract_reason; its assert clears the flag and the stamp, not the reason, so a
        # reason counts on a node recorded OUT. Its import_json restores an OUT label by
        # retracting and then puts back the exported (empty) retracted_at: the flag alone is
        # no user's retraction. A store older than the retracted_at column has the flag only.
        if "retracted_at" in node:
            stamped = bool(node["retracted_at"]) or (out and bool(metadata.get("retract_reason")))
        else:
            stamped = flagged
        if stamped or (not justifications and out):
            retracted.add(node_id)
    _refuse_out_list_cycles(in_edges, out_edges)
    if out_lists and mode == "refuse":
        first = out_lists[0]
        raise InputError(
            f"justification {first.justification} has the out-list {list(first.out_list)}: "
            "out-lists are non-monotonic, outside this theory (--out-lists labels evaluates "
            "them at the recorded labels, --out-lists drop drops them; "
            f"{len(out_lists)} in this network)",
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
        dropped_out_lists=tuple(out_lists) if mode == "drop" else (),
        disagreements=disagreements,
        notes=notes,
        out_list_mode=mode,
        evaluated_out_lists=tuple(evaluated),
        dangling=tuple(dangling),
        labels_recorded=len(recorded),
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


__all__ = ["OUT_LIST_MODES", "from_network", "network_from_sqlite", "read_reasons", "to_network"]
