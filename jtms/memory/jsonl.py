"""A whole memory as one JSON Lines file: ``jtms export`` writes it, ``jtms import-memory``
reads it into a new memory on any backend (SQLite file or PostgreSQL), losing nothing.

The file is the memory's append-only history in event order. The first line is a header,
then each event followed by the rows it wrote, then a trailer with the counts (so that a
truncated file is refused rather than half imported)::

    {"format": "jtms-memory", "version": 1, "tables": ["events", "nodes", ...]}
    {"table": "events", "row": {"id": 1, "kind": "init", "time": "...", ...}}
    {"table": "events", "row": {"id": 2, "kind": "import", "source": "g.json", ...}}
    {"table": "nodes", "row": {"num": 0, "id": "obs1", "kind": "evidence", "text": "...",
                               "author": "ana", "expression": null, "value": null,
                               "event": 2, "status": "active"}}
    {"table": "justifications", "row": {"num": 0, "claim": 1, "antecedents": [0], "event": 2}}
    {"table": "revisions", "row": {"seq": 1, "node": 0, "status": "inactive", "event": 3}}
    {"table": "supports", "row": {"seq": 1, "node": 1, "justification": 0, "rank": 1, "event": 2}}
    {"end": {"events": 3, "nodes": 2, ...}}

Every stored column is kept (event ids and times, authors, calculations, texts, revision
order), so a memory exported from SQLite, imported into PostgreSQL, exported again and
imported into SQLite has the same ``history``, ``explain`` and active state, and the two
export files are identical. Derived data (checkpoints) is not exported.

```python
from jtms.memory.jsonl import export_memory, import_memory

with open("m.jsonl", "w") as out:                        # doctest: +SKIP
    export_memory("jtms.db", out)
import_memory("m.jsonl", "postgresql://ana@db:5432/team?memory=lab")   # doctest: +SKIP
```
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from operator import lt
from pathlib import Path
from typing import IO, Any

from jtms.engine.incremental import NO_RANK
from jtms.memory.documents import check_calculation
from jtms.memory.limits import (
    MAX_EVENT,
    MAX_EXPRESSION,
    MAX_TEXT,
    event_time,
    show_int,
    text_problem,
)
from jtms.memory.memory import Memory
from jtms.store import create_store
from jtms.store.protocol import (
    ACTIVE,
    EVENT_KINDS,
    INACTIVE,
    TABLES,
    JustificationRow,
    NewNode,
    NogoodRow,
    Store,
)
from theory.model.errors import InputError, shorten
from theory.model.ids import id_problem

FORMAT = "jtms-memory"
VERSION = 1

# columns of each table, as exported (the order of the keys in each row)
COLUMNS: dict[str, tuple[str, ...]] = {
    "events": ("id", "kind", "time", "actor", "reason", "roots", "target", "source"),
    "nodes": ("num", "id", "kind", "text", "author", "expression", "value", "event", "status"),
    "justifications": ("num", "claim", "antecedents", "event"),
    "revisions": ("seq", "node", "status", "event"),
    "supports": ("seq", "node", "justification", "rank", "event"),
    "nogoods": ("id", "nodes", "text", "author", "event", "status"),
    "nogood_revisions": ("seq", "nogood", "status", "event"),
    "expiries": ("node", "until", "event"),
    "erasures": ("node", "event"),
}
KEY = {
    "events": "id",
    "nodes": "num",
    "justifications": "num",
    "revisions": "seq",
    "supports": "seq",
    "nogoods": "id",
    "nogood_revisions": "seq",
    "expiries": "node",
    "erasures": "node",
}
DENSE = {
    "events": 1,
    "nodes": 0,
    "justifications": 0,
    "revisions": 1,
    "supports": 1,
    "nogood_revisions": 1,
}  # the first number of each densely numbered table
# the order of the tables within one event (a row only refers to rows before it)
ORDER = (
    "events",
    "nodes",
    "justifications",
    "revisions",
    "supports",
    "nogoods",
    "nogood_revisions",
)
OPTIONAL = ("expiries", "erasures")
"""Tables a file holds only when the memory has rows in them (the evidence's valid_until,
the erasure records of purges), after the others: a memory without them exports as before,
and a file without them imports."""
ALL = ORDER + OPTIONAL


@dataclass(frozen=True)
class Summary:
    """What an export wrote or an import read: rows per table."""

    counts: dict[str, int]
    location: str

    def as_dict(self) -> dict[str, Any]:
        return {"db": self.location, **{table: self.counts.get(table, 0) for table in ORDER}}


def _portable(table: str, row: dict[str, Any]) -> dict[str, Any]:
    """A stored row with backend-independent values (lists, not encoded text)."""
    record = {column: row[column] for column in COLUMNS[table]}
    if table == "events" and isinstance(record["roots"], str):
        record["roots"] = json.loads(record["roots"])
    if table == "justifications" and isinstance(record["antecedents"], str):
        record["antecedents"] = [int(a) for a in record["antecedents"].split()]
    if table == "nogoods" and isinstance(record["nodes"], str):
        record["nodes"] = json.loads(record["nodes"])
    return record


def export_lines(memory: Memory) -> Iterator[str]:
    """The export file of ``memory``, line by line, read in one snapshot."""
    unknown = [table for table in TABLES if table not in COLUMNS]
    if unknown:  # pragma: no cover - a table added without teaching the export about it
        raise InputError(f"cannot export table(s) {', '.join(unknown)} yet")
    with memory.snapshot():
        tables = {table: [_portable(table, row) for row in memory.table(table)] for table in ALL}
        created = {g.id: k for k, g in enumerate(memory.nogoods())}
    written = ORDER + tuple(table for table in OPTIONAL if tables[table])
    tables["nogoods"].sort(key=lambda row: created[row["id"]])  # creation order, as stored
    by_event: dict[str, dict[int, list[dict[str, Any]]]] = {}
    for table in written[1:]:
        grouped: dict[int, list[dict[str, Any]]] = {}
        for row in tables[table]:
            grouped.setdefault(row["event"], []).append(row)
        by_event[table] = grouped
    dumps = json.JSONEncoder(separators=(",", ":")).encode  # ASCII: safe on any terminal
    yield dumps({"format": FORMAT, "version": VERSION, "tables": list(written)})
    for event in tables["events"]:
        yield dumps({"table": "events", "row": event})
        for table in written[1:]:
            for row in by_event[table].get(event["id"], ()):
                yield dumps({"table": table, "row": row})
    yield dumps({"end": {table: len(tables[table]) for table in written}})


def export_memory(location: str, out: IO[str]) -> Summary:
    """Write the memory at ``location`` to ``out`` (see the module docstring)."""
    with Memory.open(location) as memory:
        counts: dict[str, int] = {}
        for line in export_lines(memory):
            out.write(line)
            out.write("\n")
            if line.startswith('{"table":"'):
                table = line[10 : line.index('"', 10)]
                counts[table] = counts.get(table, 0) + 1
        return Summary(counts, memory.path)


# --- reading a file ------------------------------------------------------------------------------


@dataclass
class _Event:
    row: dict[str, Any]
    rows: dict[str, list[dict[str, Any]]]


MAX_ROW_TEXT = MAX_TEXT
"""Characters of any text column of an imported row (the longest text a memory accepts)."""
_INTEGER = frozenset(
    {"id", "num", "seq", "event", "claim", "node", "justification", "rank", "target"}
)
_ID_LISTS = frozenset({"roots", "nodes"})
_NULLABLE = frozenset(
    {"actor", "reason", "roots", "target", "source", "author", "expression", "value"}
)
# per table: (column, kind, nullable) with kind "int", "str", "roots" or "antecedents"
_SPEC = {
    table: tuple(
        (
            column,
            "ids"
            if column in _ID_LISTS
            else "antecedents"
            if column == "antecedents"
            else "int"
            if column in _INTEGER
            and table not in ("nodes", "nogoods")
            or column in ("num", "event")
            else "str",
            column in _NULLABLE,
        )
        for column in columns
    )
    for table, columns in COLUMNS.items()
}


def _check_row(table: str, row: Any, where: str) -> dict[str, Any]:
    """``row`` when it has the columns of ``table`` with values of the right types and
    sizes, else :class:`InputError` naming the first wrong one."""
    if not isinstance(row, dict) or len(row) != len(COLUMNS[table]):
        raise InputError(
            f"{where}: a {table} row needs exactly the keys {', '.join(COLUMNS[table])}"
        )
    for column, kind, nullable in _SPEC[table]:
        if column not in row:
            raise InputError(
                f"{where}: a {table} row needs exactly the keys {', '.join(COLUMNS[table])}"
            )
        value = row[column]
        if value is None and nullable:
            continue
        if kind == "int":
            if type(value) is not int or not -MAX_EVENT <= value <= MAX_EVENT:
                raise InputError(f"{where}: {table}.{column} must be a 64-bit integer")
        elif kind == "str":
            if type(value) is not str:
                raise InputError(f"{where}: {table}.{column} must be a string")
            problem = (
                id_problem(value)
                if column == "id" or column == "nogood"
                else text_problem(value, MAX_ROW_TEXT)
            )
            if problem is not None:
                raise InputError(f"{where}: {table}.{column} {problem}")
        elif kind == "ids":
            if type(value) is not list or not all(type(r) is str for r in value):
                raise InputError(f"{where}: {table}.{column} must be a list of ids")
            for item in value:
                problem = id_problem(item)
                if problem is not None:
                    raise InputError(f"{where}: {table}.{column}: an id {problem}")
        elif type(value) is not list or not all(
            type(a) is int and 0 <= a <= MAX_EVENT for a in value
        ):
            raise InputError(f"{where}: justifications.antecedents must be a list of numbers")
    return row


_STATUSES = (ACTIVE, INACTIVE)
_INIT_ONLY = ("actor", "reason", "roots", "target", "source")  # init stores none of them


def _named(value: str) -> str:
    """An id from the file, quoted and cut for a one-line message."""
    return shorten(repr(value))


def _status_error(status: Any, name: str) -> InputError:
    """The error of a status the stores cannot hold (``name``: where, and which row)."""
    return InputError(f"{name}: status {shorten(repr(status), 40)} is not {ACTIVE} or {INACTIVE}")


def _sorted_once(values: list[Any]) -> bool:
    """Whether ``values`` is strictly increasing (sorted, no repeats), as writers store it."""
    return len(values) < 2 or all(map(lt, values, values[1:]))


class _References:
    """What the rows read so far define, to check each new row against in one pass (O(1) a
    row, and an id set the size of the memory's): a row may name only the nodes,
    justifications, nogoods and audits written before it, with the kinds and statuses the
    stores hold, as every writer of a memory does.

    The import replays the rows and then loads the memory, indexing by these numbers and
    ids: an export naming anything else must be refused here, before a memory is created
    (it would crash the load or leave a memory that later commands cannot read).
    """

    def __init__(self) -> None:
        self.number: dict[str, int] = {}  # node id -> node number
        self.evidence = bytearray()  # node number -> 1 for evidence, 0 for a claim
        self.claim_of: list[int] = []  # justification number -> its claim's number
        self.nogoods: set[str] = set()
        self.open_audits: set[int] = set()  # audit events not reinstated (yet)

    def checks(self) -> dict[str, Callable[[dict[str, Any], str], None]]:
        """The check of each table's rows: ``check(row, where)``."""
        return {
            "events": self.event,
            "nodes": self.node,
            "justifications": self.justification,
            "revisions": self.revision,
            "supports": self.support,
            "nogoods": self.nogood,
            "nogood_revisions": self.nogood_revision,
            "expiries": self.expiry,
            "erasures": self.erasure,
        }

    def _node_id(self, num: int) -> str:
        """The id of node ``num`` (an error message's: a scan, never on the way of a row)."""
        return next(node_id for node_id, n in self.number.items() if n == num)

    def event(self, row: dict[str, Any], where: str) -> None:
        event_id, kind, roots, target = row["id"], row["kind"], row["roots"], row["target"]
        if kind not in EVENT_KINDS:
            raise InputError(
                f"{where}: events.kind {shorten(repr(kind), 40)} is not one of "
                f"{', '.join(EVENT_KINDS)}"
            )
        if (kind == "init") != (event_id == 1):
            raise InputError(f"{where}: event {event_id}: only the first event is the init event")
        if event_time(row["time"]) is None:
            raise InputError(
                f"{where}: event {event_id}: time {shorten(repr(row['time']), 40)} is not an "
                "ISO time with a UTC offset (`jtms export` writes 2026-12-01T08:30:00.000+00:00)"
            )
        if kind == "init" and any(row[column] is not None for column in _INIT_ONLY):
            raise InputError(
                f"{where}: the init event has only an id, a kind and a time "
                f"({', '.join(_INIT_ONLY)} are null)"
            )
        if (kind == "audit") != (roots is not None):
            raise InputError(f"{where}: event {event_id}: roots are given for an audit, only")
        if (kind == "reinstate") != (target is not None):
            raise InputError(
                f"{where}: event {event_id}: a target is given for a reinstatement, only"
            )
        if roots is not None:
            self._audit(event_id, roots, where)
        if target is not None:
            if target not in self.open_audits:
                raise InputError(
                    f"{where}: event {event_id}: target {target} is not an audit in force "
                    "before it (a reinstatement undoes one)"
                )
            self.open_audits.discard(target)

    def _audit(self, event_id: int, roots: list[str], where: str) -> None:
        if not roots:
            raise InputError(f"{where}: audit {event_id}: its roots are empty")
        number = self.number
        for root in roots:
            if root not in number:
                raise InputError(
                    f"{where}: audit {event_id}: root {_named(root)} is not a node written "
                    "before it (an audit invalidates existing nodes)"
                )
        if len(set(roots)) != len(roots):
            raise InputError(f"{where}: audit {event_id}: its roots name a node twice")
        self.open_audits.add(event_id)

    def node(self, row: dict[str, Any], where: str) -> None:
        node_id, kind = row["id"], row["kind"]
        if node_id in self.number or node_id in self.nogoods:
            raise InputError(
                f"{where}: node {_named(node_id)}: duplicate id (a node or a nogood before "
                "it has it)"
            )
        if kind != "evidence" and kind != "claim":
            raise InputError(
                f"{where}: node {_named(node_id)}: kind {shorten(repr(kind), 40)} is not "
                "evidence or claim"
            )
        if row["status"] not in _STATUSES:
            raise _status_error(row["status"], f"{where}: node {_named(node_id)}")
        if row["expression"] is not None or row["value"] is not None:
            self._calculation(row, f"{where}: node {_named(node_id)}")
        self.number[node_id] = row["num"]
        self.evidence.append(kind == "evidence")

    def _calculation(self, row: dict[str, Any], where: str) -> None:
        """An evidence node's recorded calculation, checked as ``add_evidence`` checks one."""
        expression, value = row["expression"], row["value"]
        if row["kind"] != "evidence":
            raise InputError(f"{where}: only evidence records a calculation")
        if expression is None or value is None:
            raise InputError(f"{where}: a calculation needs both an expression and its value")
        for what, text in (("expression", expression), ("value", value)):
            problem = text_problem(text, MAX_EXPRESSION)
            if problem is not None:
                raise InputError(f"{where}: {what} {problem}")
        try:
            check_calculation(row["id"], expression, value, "")
        except InputError as error:
            raise InputError(f"{where}: {error.problem}") from None

    def expiry(self, row: dict[str, Any], where: str) -> None:
        node = row["node"]
        if not 0 <= node < len(self.evidence) or not self.evidence[node]:
            raise InputError(f"{where}: expiries: node {node} is not evidence written before it")
        if event_time(row["until"]) is None:
            raise InputError(
                f"{where}: expiries: until {shorten(repr(row['until']), 40)} "
                "is not an ISO time with a UTC offset"
            )

    def erasure(self, row: dict[str, Any], where: str) -> None:
        if not 0 <= row["node"] < len(self.evidence):
            raise InputError(
                f"{where}: erasures: node {row['node']} is not a node written before it"
            )
        if row["event"] not in self.open_audits:
            raise InputError(f"{where}: erasures: event {row['event']} is not an audit in force")

    def justification(self, row: dict[str, Any], where: str) -> None:
        claim, antecedents = row["claim"], row["antecedents"]
        evidence = self.evidence
        size = len(evidence)
        if not 0 <= claim < size:
            raise InputError(
                f"{where}: justification {row['num']}: claim {claim} is not a node written "
                f"before it (nodes 0 to {size - 1})"
            )
        if evidence[claim]:
            raise InputError(
                f"{where}: justification {row['num']}: node {_named(self._node_id(claim))} "
                "is evidence (evidence has no justifications)"
            )
        if antecedents and (
            antecedents[-1] >= size
            or len(antecedents) > 1
            and not all(map(lt, antecedents, antecedents[1:]))  # sorted, each once
        ):
            missing = [a for a in antecedents if a >= size]
            raise InputError(
                f"{where}: justification {row['num']}: "
                + (
                    f"antecedent {missing[0]} is not a node written before it "
                    f"(nodes 0 to {size - 1})"
                    if missing
                    else "antecedents must be sorted, each once"
                )
            )
        self.claim_of.append(claim)

    def revision(self, row: dict[str, Any], where: str) -> None:
        node = row["node"]
        if not 0 <= node < len(self.evidence):
            raise InputError(
                f"{where}: revision {row['seq']}: node {node} is not a node written before it"
            )
        if row["status"] not in _STATUSES:
            raise _status_error(row["status"], f"{where}: revision {row['seq']}")

    def support(self, row: dict[str, Any], where: str) -> None:
        node, justification, rank = row["node"], row["justification"], row["rank"]
        claim_of = self.claim_of
        if not 0 <= justification < len(claim_of):
            raise InputError(
                f"{where}: support {row['seq']}: justification {justification} is not one "
                f"written before it (justifications 0 to {len(claim_of) - 1})"
            )
        if claim_of[justification] != node:
            raise InputError(
                f"{where}: support {row['seq']}: justification {justification} is not one "
                f"of node {node}'s"
            )
        if not 0 < rank < NO_RANK:
            raise InputError(
                f"{where}: support {row['seq']}: rank {rank} is not between 1 and {NO_RANK - 1}"
            )

    def nogood(self, row: dict[str, Any], where: str) -> None:
        nogood_id, nodes = row["id"], row["nodes"]
        name = f"{where}: nogood {_named(nogood_id)}"
        if nogood_id in self.number or nogood_id in self.nogoods:
            raise InputError(
                f"{name}: duplicate id (a node or a nogood before it has it; a nogood needs "
                "an id of its own)"
            )
        if not nodes:
            raise InputError(f"{name}: a nogood needs at least one node")
        number = self.number
        for node_id in nodes:
            if node_id not in number:
                raise InputError(f"{name}: {_named(node_id)} is not a node written before it")
        if not _sorted_once(nodes):
            raise InputError(f"{name}: its nodes must be sorted, each once")
        if row["status"] not in _STATUSES:
            raise _status_error(row["status"], name)
        self.nogoods.add(nogood_id)

    def nogood_revision(self, row: dict[str, Any], where: str) -> None:
        if row["nogood"] not in self.nogoods:
            raise InputError(
                f"{where}: nogood revision {row['seq']}: {_named(row['nogood'])} is not a "
                "nogood written before it"
            )
        if row["status"] not in _STATUSES:
            raise _status_error(row["status"], f"{where}: nogood revision {row['seq']}")


def _check_version(version: Any, source: str) -> None:
    """Refuse a header whose version is not this jtms's (a number: ``"1"`` and ``true`` are
    not 1), naming what it holds instead."""
    if type(version) is int and version == VERSION:
        return
    if type(version) is int:
        raise InputError(
            f"export format version {show_int(version)}, this jtms reads version {VERSION}",
            source=source,
        )
    shown = (
        json.dumps(shorten(version, 20))
        if isinstance(version, str)
        else json.dumps(version)
        if version is None or isinstance(version, (bool, float))
        else f"a JSON {'list' if isinstance(version, list) else 'object'}"
    )
    raise InputError(
        f"export format version must be the number {VERSION}, got {shown}", source=source
    )


_decoder: Any = json.JSONDecoder()  # as json.loads's; typeshed omits its scan_once (C)
_scan: Callable[[str, int], tuple[Any, int]] = _decoder.scan_once


def _decode(line: str) -> Any:
    """``json.loads(line)``: the same value, or the same error. A line as ``jtms export``
    writes it (one JSON value, then the newline) is read in one call into C, about 40% less
    time than through json.loads's Python layers (a 1M-claim export has 3M lines, and this
    pays for the checks of :class:`_References`); anything else goes through ``json.loads``
    itself."""
    try:
        value, end = _scan(line, 0)
    except Exception:  # not a value at the start: json.loads says why (or skips spaces)
        return json.loads(line)
    if end == len(line) or line[end:].isspace():
        return value
    return json.loads(line)  # data after the value: its error


def read_export(lines: Iterable[str], source: str) -> list[_Event]:
    """Parse and check an export file: the events in order, each with the rows it wrote.

    Numbers must be dense and in order (as every backend writes them), every row must follow
    the event that wrote it, name only what was written before it (:class:`_References`),
    and the trailer's counts must match: anything else is refused with the line number,
    before a memory is created. One pass, O(1) work a row.
    """
    events: list[_Event] = []
    counts = {table: 0 for table in ORDER}
    checks = _References().checks()
    header = end = False
    for number, line in enumerate(lines, 1):
        where = f"line {number}"
        if not line or line.isspace():  # (no copy of each line, as strip() makes)
            continue
        if end:
            raise InputError(f"{where}: data after the end line", source=source)
        try:
            record = _decode(line)
        except json.JSONDecodeError as error:
            raise InputError(f"{where}: malformed JSON ({error.msg})", source=source) from None
        except RecursionError:
            raise InputError(f"{where}: JSON nested too deeply to read", source=source) from None
        except ValueError as error:  # an integer past Python's digit limit (4,300 by default)
            shown = str(error).split(";", 1)[0][:120]
            raise InputError(f"{where}: unreadable JSON number ({shown})", source=source) from None
        if not isinstance(record, dict):
            raise InputError(f"{where}: expected a JSON object", source=source)
        if not header:
            if record.get("format") != FORMAT:
                raise InputError(
                    "not a jtms memory export (its first line must be the "
                    f"{FORMAT!r} header; `jtms export` writes one)",
                    source=source,
                )
            _check_version(record.get("version"), source)
            tables = record.get("tables")
            if not isinstance(tables, list) or any(t not in COLUMNS for t in tables):
                raise InputError(
                    f"the export holds tables this jtms cannot import: {tables!r:.80}"
                    " (upgrade jtms-revision)",
                    source=source,
                )
            counts.update((table, 0) for table in OPTIONAL if table in tables)
            header = True
            continue
        if "end" in record:
            if (
                set(record) != {"end"}
                or record["end"] != counts
                or not all(type(count) is int for count in record["end"].values())
            ):
                raise InputError(
                    f"{where}: the end line's counts do not match the rows read ({counts})",
                    source=source,
                )
            end = True
            continue
        if set(record) != {"table", "row"} or record["table"] not in counts:
            raise InputError(
                f'{where}: expected {{"table": one of {", ".join(ORDER)}, "row": {{...}}}}',
                source=source,
            )
        table = record["table"]
        try:
            row = _check_row(table, record["row"], where)
        except InputError as error:
            raise error.with_source(source) from None
        first = DENSE.get(table)
        if first is not None and row[KEY[table]] != counts[table] + first:
            raise InputError(
                f"{where}: {table} {KEY[table]} {row[KEY[table]]}, expected "
                f"{counts[table] + first} (numbers are dense and in order)",
                source=source,
            )
        if table != "events":
            if not events or row["event"] != events[-1].row["id"]:
                raise InputError(
                    f"{where}: a {table} row must follow the event that wrote it "
                    f"(event {row['event']})",
                    source=source,
                )
            if len(events) == 1:  # the new memory's own init event writes none either
                raise InputError(f"{where}: the init event writes no {table} rows", source=source)
        try:
            checks[table](row, where)
        except InputError as error:
            raise error.with_source(source) from None
        counts[table] += 1
        if table == "events":
            events.append(_Event(row, {t: [] for t in ALL[1:]}))
        else:
            events[-1].rows[table].append(row)
    if not header:
        raise InputError("empty file, not a jtms memory export", source=source)
    if not end:
        raise InputError("truncated export (no end line): nothing imported", source=source)
    if not events or events[0].row["kind"] != "init":
        raise InputError("the first event of an export must be the init event", source=source)
    return events


def _replay(store: Store, events: list[_Event], source: str) -> None:
    """Write every event after init and its rows, checking that ids come out as exported."""
    for item in events[1:]:
        event = item.row
        event_id = store.append_event(
            event["kind"],
            event["time"],
            actor=event["actor"],
            reason=event["reason"],
            roots=event["roots"],
            target=event["target"],
            source=event["source"],
        )
        if event_id != event["id"]:
            raise InputError(f"event {event['id']} was stored as {event_id}", source=source)
        rows = item.rows
        store.add_nodes(
            NewNode(
                r["num"],
                r["id"],
                r["kind"],
                r["text"],
                r["author"],
                r["expression"],
                r["value"],
                r["event"],
                r["status"],
            )
            for r in rows["nodes"]
        )
        store.add_justifications(
            JustificationRow(r["num"], r["claim"], tuple(r["antecedents"]), r["event"])
            for r in rows["justifications"]
        )
        for status, nodes in _runs(rows["revisions"], "node"):
            store.add_revisions(event_id, status, nodes)
        store.add_supports(
            event_id, ((r["node"], r["justification"], r["rank"]) for r in rows["supports"])
        )
        store.add_nogoods(
            NogoodRow(r["id"], tuple(r["nodes"]), r["text"], r["author"], r["event"], r["status"])
            for r in rows["nogoods"]
        )
        for status, names in _runs(rows["nogood_revisions"], "nogood"):
            store.add_nogood_revisions(event_id, status, names)
        store.add_expiries(((r["node"], r["until"]) for r in rows["expiries"]), event_id)
        for r in rows["erasures"]:
            store.add_erasure(r["node"], event_id)


def _runs(rows: list[dict[str, Any]], column: str) -> Iterator[tuple[str, list[Any]]]:
    """Consecutive rows of one status, as (status, their ``column`` values), in order."""
    run: list[Any] = []
    status = None
    for row in rows:
        if row["status"] != status and run:
            yield str(status), run
            run = []
        status = row["status"]
        run.append(row[column])
    if run:
        yield str(status), run


MAX_LINE = 64 * 1024 * 1024
"""The longest line of an export file read (characters): reading stops there, so
``/dev/zero`` (one endless line) is refused with one line instead of filling the memory."""


def _bounded_lines(handle: IO[str], source: str) -> Iterator[str]:
    """The lines of ``handle``, each read with a size limit (:data:`MAX_LINE`)."""
    limit = MAX_LINE
    number = 0
    while True:
        line = handle.readline(limit + 1)
        if not line:
            return
        number += 1
        if len(line) > limit:
            raise InputError(
                f"line {number}: longer than {limit:,} characters, the longest "
                "line an export holds (not a jtms memory export)",
                source=source,
            )
        yield line


def import_memory(
    path: str | Path, location: str, progress: Callable[[str], None] | None = None
) -> Summary:
    """Create a memory at ``location`` holding exactly the export file at ``path``.

    ``location`` must not hold a memory yet (refused with "already exists"). The whole file
    is read and checked first (:func:`read_export`: a bad one creates nothing). Everything is
    written in one transaction; the new memory is then opened and checked
    (:meth:`Memory.integrity_problems`, which recomputes the least fixpoint with theory); if
    the file was not consistent, the new memory is removed again and the error says why.
    """
    source = str(path)
    try:
        with open(path, encoding="utf-8") as handle:
            events = read_export(_bounded_lines(handle, source), source)
    except OSError as error:
        raise InputError(f"cannot read the export: {error.strerror}", source=source) from None
    except UnicodeDecodeError:
        raise InputError("not a jtms memory export (not UTF-8 text)", source=source) from None
    store = create_store(location, init_time=events[0].row["time"])
    shown = store.location
    try:
        try:
            with store.write():
                if progress:
                    progress(f"writing {len(events)} events")
                _replay(store, events, source)
        finally:
            store.close()
        if progress:
            progress("checking the imported memory")
        with Memory.open(location) as memory:
            problems = memory.integrity_problems()
        counts = {table: sum(len(e.rows[table]) for e in events) for table in ORDER[1:]}
        counts["events"] = len(events)
        if problems:
            raise InputError(
                f"inconsistent export ({problems[0]}); nothing imported", source=source
            )
    except BaseException:
        remove_memory(location)
        raise
    return Summary(counts, shown)


def remove_memory(location: str) -> None:
    """Remove a memory that :func:`import_memory` itself created (after a failed import)."""
    from jtms.store import POSTGRES_PREFIXES

    if location.startswith(POSTGRES_PREFIXES):
        from jtms.store.postgres import drop_memory

        drop_memory(location)
        return
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(location + suffix)
        except OSError:
            pass


__all__ = [
    "FORMAT",
    "Summary",
    "VERSION",
    "export_lines",
    "export_memory",
    "import_memory",
    "read_export",
]
