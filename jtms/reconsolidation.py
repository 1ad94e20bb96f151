"""Selective reconsolidation on a persistent memory: the Python API.

```python
from jtms.reconsolidation import Memory

with Memory.create("jtms.db") as memory:          # or Memory.open("jtms.db")
    memory.add_evidence("obs1", text="assay A shows X")
    memory.add_claim("c1", [["obs1"]], text="mechanism M")
    result = memory.audit(["obs1"], reason="assay contaminated", reviewer="ana")
    result.retired            # frozenset({'obs1', 'c1'})
    memory.reinstate(result.audit_id)
```

The in-memory state is a :class:`theory.incremental.SupportState` (the least fixpoint with
audited nodes blocked, plus well-founded support pointers). An audit plans the change on
the support region of its roots only (:meth:`SupportState.plan_retract`, which re-derives
that region with :func:`theory.fixpoint.rederive`), writes it in one SQLite transaction,
and applies it to the in-memory state after the commit. Before every write the memory
checks, under the write lock, whether another process wrote since it last looked, and
reloads if so: concurrent writers are serialised and each plans on the latest state.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from theory.errors import InputError
from theory.fixpoint import active_numbers
from theory.graphfile import parse_graph, paused_gc
from theory.incremental import GrowingIndex, Plan, SupportState
from theory.revision import downstream_numbers
from theory.structure import Kind, SupportStructure

from jtms import store

ACTIVE, INACTIVE = "active", "inactive"


@dataclass(frozen=True)
class AuditResult:
    """An audit (or its dry run, ``audit_id`` None)."""

    audit_id: int | None
    roots: tuple[str, ...]
    retired: frozenset[str]          # active before, inactive after (roots included)
    region: int                      # size of the support region the audit examined
    seconds: float                   # planning + commit (+ applying), wall clock
    reason: str = ""
    reviewer: str | None = None
    _rederived: tuple[int, ...] = field(default=(), repr=False, compare=False)
    _ids: Sequence[str] = field(default=(), repr=False, compare=False)

    @property
    def rederived(self) -> frozenset[str]:
        """Claims that lost their support pointer but stay active, on another justification."""
        return frozenset(self._ids[n] for n in self._rederived)


@dataclass(frozen=True)
class Change:
    """A write other than an audit: the event id and the nodes it (re)activated."""

    event_id: int
    activated: frozenset[str]
    seconds: float
    added: int = 0


@dataclass(frozen=True)
class Step:
    """One step of a certificate: ``claim`` holds because all of ``antecedents`` do."""

    claim: str
    antecedents: tuple[str, ...]


@dataclass(frozen=True)
class Explanation:
    id: str
    kind: str
    active: bool
    text: str
    certificate: tuple[Step, ...] = ()        # active claim: a well-founded derivation
    evidence: tuple[str, ...] = ()            # the evidence the certificate rests on
    blocked_by: tuple[int, ...] = ()          # audits that invalidated this node itself
    withdrawn_by: int | None = None           # the event of its latest deactivation
    broken: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()  # (justification, inactive antecedents)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "active": self.active,
            "text": self.text,
            "certificate": [{"claim": s.claim, "antecedents": list(s.antecedents)}
                            for s in self.certificate],
            "evidence": list(self.evidence),
            "blocked_by": list(self.blocked_by),
            "withdrawn_by": self.withdrawn_by,
            "broken_justifications": [{"antecedents": list(j), "inactive": list(i)}
                                      for j, i in self.broken],
        }


@dataclass
class _Loaded:
    index: GrowingIndex
    state: SupportState
    seen_event: int
    audits: dict[int, list[int]] = field(default_factory=dict)   # open audits -> root numbers


def _clean_id(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip() or value != value.strip():
        raise InputError(f"{what} must be a non-empty id without surrounding spaces",
                         node=str(value))
    return value


def _check_calculation(node_id: str, expression: Any, value: Any, source: str) -> None:
    """Refuse a calculation the reviewer could not re-execute safely (bad input, exit 2)."""
    from jtms.safe_expr import UnsafeExpression, check_expression  # static: evaluates nothing

    for what, text in (("expression", expression), ("value", value)):
        if not isinstance(text, str):
            raise InputError(f"{what} must be a string", source=source, node=node_id)
        try:
            check_expression(text)
        except UnsafeExpression as error:
            raise InputError(f"{what} {text[:60]!r}: {error.problem}", source=source,
                             node=node_id) from None


class Memory:
    """A persistent memory of evidence and claims with exact, incremental revision."""

    def __init__(self, connection: sqlite3.Connection, path: str):
        self._db = connection
        self.path = path
        self._loaded: _Loaded | None = None
        # test hook: called inside an audit's transaction, after its writes, before COMMIT
        self._before_commit: Callable[[], None] | None = None

    # --- opening ------------------------------------------------------------------------------
    @classmethod
    def create(cls, path: str | Path, durability: str = "full") -> "Memory":
        return cls(store.create(path, durability), str(path))

    @classmethod
    def open(cls, path: str | Path, durability: str = "full") -> "Memory":
        return cls(store.open_existing(path, durability), str(path))

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- loading --------------------------------------------------------------------------
    def _load(self) -> _Loaded:
        db = self._db
        index = GrowingIndex()
        rows = db.execute("SELECT num, id, kind = 'evidence' FROM nodes ORDER BY num").fetchall()
        if rows and (rows[0][0] != 0 or rows[-1][0] != len(rows) - 1):
            raise InputError("node numbers are not dense (corrupt store)", source=self.path)
        index.extend([(node_id, bool(evidence)) for _, node_id, evidence in rows],
                     ((claim, tuple(map(int, antecedents.split()))) for claim, antecedents in
                      db.execute("SELECT claim, antecedents FROM justifications ORDER BY num")),
                     canonical=True)
        audits: dict[int, list[int]] = {}
        blocks: dict[int, int] = {}
        for audit, roots in store.blocked_roots(db):
            numbers = [index.number[r] for r in roots]
            audits[audit] = numbers
            for n in numbers:
                blocks[n] = blocks.get(n, 0) + 1
        return _Loaded(index, SupportState(index, blocks), store.last_event(db), audits)

    def _current(self) -> _Loaded:
        """The in-memory state, reloaded if another process wrote since we last looked."""
        loaded = self._loaded
        if loaded is None or store.last_event(self._db) != loaded.seen_event:
            loaded = self._loaded = self._load()
        return loaded

    def _write(self, work: Callable[[_Loaded], tuple[int, Any, Any]]) -> Any:
        """Run ``work`` in one write transaction on the latest state.

        ``work`` returns (event id, what to apply after COMMIT, result): a :class:`Plan` for
        the in-memory state, a callable, or None.
        """
        try:
            with store.transaction(self._db):
                loaded = self._current()
                event, plan, value = work(loaded)
                if self._before_commit is not None:
                    self._before_commit()
        except BaseException:
            self._loaded = None  # the in-memory state may be half-changed: reload lazily
            raise
        if isinstance(plan, Plan):
            loaded.state.apply(plan)
        elif plan is not None:
            plan()
        loaded.seen_event = event
        return value

    def _event(self, kind: str, **fields: Any) -> int:
        columns = ["kind", "time"] + list(fields)
        values = [kind, store.now()] + list(fields.values())
        cursor = self._db.execute(
            f"INSERT INTO events ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
            values,
        )
        return int(cursor.lastrowid)

    def _revisions(self, numbers: Iterable[int], status: str, event: int) -> None:
        self._db.executemany("INSERT INTO revisions (node, status, event) VALUES (?, ?, ?)",
                             ((n, status, event) for n in numbers))

    # --- reading ----------------------------------------------------------------------------
    @property
    def state(self) -> SupportState:
        return self._current().state

    def __contains__(self, node_id: str) -> bool:
        return node_id in self._current().index.number

    def _number(self, node_id: str, loaded: _Loaded | None = None) -> int:
        number = (loaded or self._current()).index.number.get(node_id)
        if number is None:
            raise InputError("unknown id", source=self.path, node=node_id)
        return number

    def is_active(self, node_id: str) -> bool:
        loaded = self._current()
        return bool(loaded.state.active[self._number(node_id, loaded)])

    def active_ids(self) -> frozenset[str]:
        loaded = self._current()
        return loaded.index.names(n for n, flag in enumerate(loaded.state.active) if flag)

    def blocked_ids(self) -> frozenset[str]:
        loaded = self._current()
        return loaded.index.names(loaded.state.blocks)

    def open_audits(self) -> dict[int, tuple[str, ...]]:
        """Audits in force (not reinstated): audit id -> its roots."""
        loaded = self._current()
        ids = loaded.index.ids
        return {a: tuple(ids[n] for n in roots) for a, roots in loaded.audits.items()}

    def structure(self) -> SupportStructure:
        """The whole stored graph (every node and justification) as a support structure."""
        texts = dict(self._db.execute("SELECT id, text FROM nodes"))
        return self._current().index.structure(texts)

    def node(self, node_id: str) -> dict[str, Any]:
        self._number(node_id)
        row = self._db.execute(
            "SELECT n.id, n.kind, n.text, n.author, n.expression, n.value, e.time "
            "FROM nodes n JOIN events e ON e.id = n.event WHERE n.id = ?", (node_id,)
        ).fetchone()
        keys = ("id", "kind", "text", "author", "expression", "value", "created")
        return dict(zip(keys, row))

    # --- adding -----------------------------------------------------------------------------
    def _check_new(self, loaded: _Loaded, node_id: str) -> str:
        node_id = _clean_id(node_id, "id")
        if node_id in loaded.index.number:
            raise InputError("duplicate id (already in the memory)", source=self.path, node=node_id)
        return node_id

    def _antecedents(self, loaded: _Loaded, claim: str, antecedents: Any,
                     pending: Mapping[str, int] = {}) -> list[int]:
        if isinstance(antecedents, str) or not isinstance(antecedents, Iterable):
            raise InputError("a justification is a list of antecedent ids", node=claim)
        numbers = []
        for a in antecedents:
            number = loaded.index.number.get(a) if isinstance(a, str) else None
            if number is None:
                number = pending.get(a) if isinstance(a, str) else None
            if number is None:
                raise InputError(f"unknown antecedent {a!r} in a justification of {claim!r}",
                                 source=self.path, node=str(a))
            numbers.append(number)
        return numbers

    def add_evidence(self, node_id: str, text: str = "", author: str | None = None,
                     expression: str | None = None, value: str | None = None) -> Change:
        """Add one evidence node (active: nothing can have audited a new id)."""
        started = time.perf_counter()
        if (expression is None) != (value is None):
            raise InputError("a calculation needs both an expression and its value", node=node_id)
        if expression is not None:
            _check_calculation(node_id, expression, value, self.path)

        def work(loaded: _Loaded):
            nid = self._check_new(loaded, node_id)
            event = self._event("add-evidence", actor=author)
            num = loaded.index.size
            self._db.execute(
                "INSERT INTO nodes (num, id, kind, text, author, expression, value, event, status)"
                " VALUES (?, ?, 'evidence', ?, ?, ?, ?, ?, 'active')",
                (num, nid, text, author, expression, value, event),
            )
            loaded.index.add_node(nid, True)
            plan = loaded.state.plan_extend(seeds=[num])
            return event, plan, Change(event, frozenset([nid]), 0.0, 1)

        change = self._write(work)
        return replace(change, seconds=time.perf_counter() - started)

    def add_claim(self, node_id: str, justifications: Sequence[Sequence[str]], text: str = "",
                  author: str | None = None) -> Change:
        """Add a claim with its justifications (lists of antecedent ids; [] makes a premise)."""
        started = time.perf_counter()

        def work(loaded: _Loaded):
            nid = self._check_new(loaded, node_id)
            if isinstance(justifications, (str, bytes)) or not isinstance(justifications, Sequence):
                raise InputError("justifications must be a list of antecedent lists", node=nid)
            num = loaded.index.size
            resolved = [self._antecedents(loaded, nid, ants, {nid: num}) for ants in justifications]
            event = self._event("add-claim", actor=author)
            loaded.index.add_node(nid, False)
            for ants in resolved:
                if loaded.index.find_justification(num, ants) is None:
                    loaded.index.add_justification(num, ants)
            plan = loaded.state.plan_extend(seeds=[num])
            status = ACTIVE if plan.activated else INACTIVE
            self._db.execute(
                "INSERT INTO nodes (num, id, kind, text, author, event, status)"
                " VALUES (?, ?, 'claim', ?, ?, ?, ?)", (num, nid, text, author, event, status))
            self._insert_justifications(loaded.index, loaded.index.justs_of[num], event)
            return event, plan, Change(event, loaded.index.names(plan.activated), 0.0, 1)

        change = self._write(work)
        return replace(change, seconds=time.perf_counter() - started)

    def add_justification(self, claim: str, antecedents: Sequence[str],
                          author: str | None = None) -> Change:
        """Add a justification to an existing claim (may activate it and its consequences)."""
        started = time.perf_counter()

        def work(loaded: _Loaded):
            num = loaded.index.number.get(claim)
            if num is None:
                raise InputError("unknown claim", source=self.path, node=claim)
            if loaded.index.is_evidence[num]:
                raise InputError("evidence cannot have a justification", source=self.path, node=claim)
            ants = self._antecedents(loaded, claim, antecedents)
            if loaded.index.find_justification(num, ants) is not None:
                raise InputError("this justification is already recorded", node=claim)
            event = self._event("add-justification", actor=author)
            j = loaded.index.add_justification(num, ants)
            self._insert_justifications(loaded.index, [j], event)
            plan = loaded.state.plan_extend(seeds=[num])
            self._revisions(plan.activated, ACTIVE, event)
            return event, plan, Change(event, loaded.index.names(plan.activated), 0.0, 0)

        change = self._write(work)
        return replace(change, seconds=time.perf_counter() - started)

    def _insert_justifications(self, index: GrowingIndex, numbers: Iterable[int], event: int) -> None:
        self._db.executemany(
            "INSERT INTO justifications (num, claim, antecedents, event) VALUES (?, ?, ?, ?)",
            ((j, index.just_claim[j], " ".join(map(str, index.just_antecedents[j])), event)
             for j in numbers),
        )

    def import_graph(self, graph: SupportStructure | Mapping[str, Any], source: str = "<graph>",
                     author: str | None = None) -> Change:
        """Add a whole graph (a structure, or a decoded graph document) in one transaction.

        The graph must be self-contained (validated by :func:`theory.graphfile.parse_graph`)
        and share no id with the memory. Graph documents may give evidence a calculation:
        ``{"id": "e1", "kind": "evidence", "expression": "2*3", "value": "6"}``.
        """
        with paused_gc():  # hundreds of thousands of small rows and tuples, none cyclic
            return self._import_graph(graph, source, author)

    def _import_graph(self, graph: SupportStructure | Mapping[str, Any], source: str,
                      author: str | None) -> Change:
        started = time.perf_counter()
        extras: dict[str, dict[str, Any]] = {}
        if isinstance(graph, SupportStructure):
            structure = graph
        else:
            structure = parse_graph(graph, source=source)
            for node in graph.get("nodes", []):
                extra = {k: node[k] for k in ("author", "expression", "value") if k in node}
                for key, value in extra.items():
                    if value is not None and not isinstance(value, str):
                        raise InputError(f"{key!r} must be a string", source=source, node=node["id"])
                if ("expression" in extra) != ("value" in extra):
                    raise InputError("a calculation needs both 'expression' and 'value'",
                                     source=source, node=node["id"])
                if extra.get("expression") is not None and node["kind"] != "evidence":
                    raise InputError("only evidence records a calculation", source=source,
                                     node=node["id"])
                if extra.get("expression") is not None:
                    _check_calculation(node["id"], extra["expression"], extra["value"], source)
                if extra:
                    extras[node["id"]] = extra

        def work(loaded: _Loaded):
            index = loaded.index
            for node_id in sorted(structure.nodes):
                if node_id in index.number:
                    raise InputError("duplicate id (already in the memory)", source=source,
                                     node=node_id)
            event = self._event("import", actor=author, source=source)
            first_node, first_just = index.size, len(index.just_claim)
            ordered = sorted(structure.evidence) + sorted(structure.claims)
            n_evidence = len(structure.evidence)
            number = {node_id: first_node + k for k, node_id in enumerate(ordered)}
            index.extend([(node_id, k < n_evidence) for k, node_id in enumerate(ordered)],
                         ((number[j.claim], tuple(sorted([number[a] for a in j.antecedents])))
                          for j in structure.justifications), canonical=True)
            # the graph is self-contained: nothing stored changes status, so the state is
            # rebuilt (linear, faster than re-deriving a region as large as the graph)
            state = SupportState(index, dict(loaded.state.blocks))
            active = state.active
            nodes = structure.nodes
            rows = []
            for offset, node_id in enumerate(ordered):
                num = first_node + offset
                extra = extras.get(node_id, {})
                rows.append((num, node_id, nodes[node_id].kind.value, nodes[node_id].text,
                             extra.get("author", author), extra.get("expression"),
                             extra.get("value"), event,
                             ACTIVE if active[num] else INACTIVE))
            self._db.executemany(
                "INSERT INTO nodes (num, id, kind, text, author, expression, value, event, status)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
            self._insert_justifications(index, range(first_just, len(index.just_claim)), event)

            def install() -> None:
                loaded.state = state

            activated = index.names(n for n in range(first_node, index.size) if active[n])
            return event, install, Change(event, activated, 0.0, len(ordered))

        change = self._write(work)
        return replace(change, seconds=time.perf_counter() - started)

    # --- audits -------------------------------------------------------------------------------
    def _roots(self, loaded: _Loaded, roots: Iterable[str]) -> tuple[tuple[str, ...], list[int]]:
        if isinstance(roots, str):
            roots = [roots]
        ids = tuple(dict.fromkeys(roots))
        if not ids:
            raise InputError("an audit needs at least one id to invalidate", source=self.path)
        numbers = []
        for root in ids:
            number = loaded.index.number.get(root) if isinstance(root, str) else None
            if number is None:
                raise InputError("unknown audit id", source=self.path, node=str(root))
            numbers.append(number)
        return ids, numbers

    def preview(self, roots: Iterable[str]) -> AuditResult:
        """Dry run of :meth:`audit`: what it would retire; nothing is written."""
        started = time.perf_counter()
        loaded = self._current()
        ids, numbers = self._roots(loaded, roots)
        plan = loaded.state.plan_retract(numbers)
        return self._result(None, ids, plan, loaded, started, "", None)

    def audit(self, roots: Iterable[str], reason: str, reviewer: str | None = None) -> AuditResult:
        """Invalidate ``roots`` (evidence or claims) in one transaction; returns what retired."""
        started = time.perf_counter()
        if not isinstance(reason, str) or not reason.strip():
            raise InputError("an audit needs a reason", source=self.path)
        roots = list(roots) if not isinstance(roots, str) else [roots]

        def work(loaded: _Loaded):
            ids, numbers = self._roots(loaded, roots)
            plan = loaded.state.plan_retract(numbers)
            event = self._event("audit", actor=reviewer, reason=reason,
                                roots=json.dumps(list(ids)))
            self._revisions(plan.deactivated, INACTIVE, event)
            loaded.audits[event] = numbers
            return event, plan, (ids, plan, loaded)

        ids, plan, loaded = self._write(work)
        return self._result(loaded.seen_event, ids, plan, loaded, started, reason, reviewer)

    def _result(self, audit_id, ids, plan: Plan, loaded: _Loaded, started: float,
                reason: str, reviewer: str | None) -> AuditResult:
        index = loaded.index
        return AuditResult(audit_id, ids, index.names(plan.deactivated), plan.region,
                           time.perf_counter() - started, reason, reviewer,
                           plan.rederived, index.ids)

    def kept(self, roots: Iterable[str]) -> list[tuple[str, tuple[str, ...]]]:
        """Downstream claims of ``roots`` that are active now, each with its intact justification."""
        loaded = self._current()
        _, numbers = self._roots(loaded, roots)
        index, state = loaded.index, loaded.state
        result = []
        for n in downstream_numbers(index, numbers):  # type: ignore[arg-type]
            if state.active[n] and not index.is_evidence[n]:
                j = state.support[n]
                result.append((index.ids[n], tuple(sorted(index.ids[a] for a in index.just_antecedents[j]))))
        return sorted(result)

    def reinstate(self, audit_id: int, reason: str | None = None,
                  reviewer: str | None = None) -> Change:
        """Undo an audit: its roots are unblocked and the fixpoint recomputed from them."""
        started = time.perf_counter()

        def work(loaded: _Loaded):
            if not isinstance(audit_id, int) or isinstance(audit_id, bool):
                raise InputError(f"audit id must be an integer, got {audit_id!r}", source=self.path)
            numbers = loaded.audits.get(audit_id)
            if numbers is None:
                row = self._db.execute("SELECT kind FROM events WHERE id = ?", (audit_id,)).fetchone()
                problem = ("no such audit" if row is None or row[0] != "audit"
                           else "this audit was already reinstated")
                raise InputError(f"audit {audit_id}: {problem}", source=self.path)
            event = self._event("reinstate", actor=reviewer, reason=reason, target=audit_id)
            plan = loaded.state.plan_extend(unblock=numbers)
            self._revisions(plan.activated, ACTIVE, event)
            del loaded.audits[audit_id]
            return event, plan, Change(event, loaded.index.names(plan.activated), 0.0)

        change = self._write(work)
        return replace(change, seconds=time.perf_counter() - started)

    # --- history and explanations -------------------------------------------------------------
    def history(self, node_id: str) -> list[dict[str, Any]]:
        """Every status of a node, oldest first: its creation, then each revision."""
        num = self._number(node_id)
        rows = [
            {"seq": 0, "status": status, "event": event, "kind": kind, "time": when,
             "actor": actor, "reason": reason}
            for status, event, kind, when, actor, reason in self._db.execute(
                "SELECT n.status, e.id, e.kind, e.time, e.actor, e.reason FROM nodes n "
                "JOIN events e ON e.id = n.event WHERE n.num = ?", (num,))
        ]
        rows += [
            {"seq": seq, "status": status, "event": event, "kind": kind, "time": when,
             "actor": actor, "reason": reason}
            for seq, status, event, kind, when, actor, reason in self._db.execute(
                "SELECT r.seq, r.status, e.id, e.kind, e.time, e.actor, e.reason FROM revisions r "
                "JOIN events e ON e.id = r.event WHERE r.node = ? ORDER BY r.seq", (num,))
        ]
        return rows

    def audits_naming(self, node_id: str) -> list[int]:
        self._number(node_id)
        return [row[0] for row in self._db.execute(
            "SELECT e.id FROM events e, json_each(e.roots) r WHERE e.kind = 'audit' "
            "AND r.value = ? ORDER BY e.id", (node_id,))]

    def explain(self, node_id: str) -> Explanation:
        """Why a node is active (a certificate down to evidence) or why it is not."""
        loaded = self._current()
        num = self._number(node_id, loaded)
        index, state = loaded.index, loaded.state
        kind = Kind.EVIDENCE.value if index.is_evidence[num] else Kind.CLAIM.value
        text = self._db.execute("SELECT text FROM nodes WHERE num = ?", (num,)).fetchone()[0]
        ids = index.ids
        blocked_by = tuple(sorted(a for a, roots in loaded.audits.items() if num in roots))
        if state.active[num]:
            steps = tuple(Step(ids[c], tuple(sorted(ids[a] for a in index.just_antecedents[j])))
                          for c, j in state.certificate(num))
            evidence = sorted({a for s in steps for a in s.antecedents
                               if index.is_evidence[index.number[a]]})
            if kind == Kind.EVIDENCE.value:
                evidence = [node_id]
            return Explanation(node_id, kind, True, text, steps, tuple(evidence), blocked_by)
        withdrawn = self._db.execute(
            "SELECT event FROM revisions WHERE node = ? AND status = 'inactive' "
            "ORDER BY seq DESC LIMIT 1", (num,)).fetchone()
        broken = tuple(
            (tuple(sorted(ids[a] for a in index.just_antecedents[j])),
             tuple(sorted(ids[a] for a in index.just_antecedents[j] if not state.active[a])))
            for j in index.justs_of[num]
        )
        return Explanation(node_id, kind, False, text, (), (), blocked_by,
                           withdrawn[0] if withdrawn else None, broken)

    def withdrawn(self) -> list[dict[str, Any]]:
        """Inactive nodes that were once active, with the audit that withdrew them and why."""
        loaded = self._current()
        rows = self._db.execute(
            "SELECT n.id, r.event, e.kind, e.reason, e.actor, e.time FROM revisions r "
            "JOIN nodes n ON n.num = r.node JOIN events e ON e.id = r.event "
            "WHERE r.seq IN (SELECT max(seq) FROM revisions GROUP BY node) AND r.status = 'inactive' "
            "ORDER BY r.seq DESC").fetchall()
        active = loaded.state.active
        result = []
        for node_id, event, kind, reason, actor, when in rows:
            if not active[loaded.index.number[node_id]]:
                result.append({"id": node_id, "audit": event, "reason": reason,
                               "reviewer": actor, "time": when})
        return result

    def context(self, budget: int, query: str | None = None):
        from jtms.context import compile_context
        return compile_context(self, budget, query)

    # --- integrity ------------------------------------------------------------------------------
    def integrity_problems(self) -> list[str]:
        """Empty when the store is sound: SQLite checks, stored status = theory's fixpoint."""
        problems = store.sqlite_problems(self._db)
        loaded = self._current()
        index = loaded.index
        expected = active_numbers(index, blocked=list(loaded.state.blocks))  # type: ignore[arg-type]
        stored = store.stored_status(self._db)
        for n in range(index.size):
            if (stored.get(n) == ACTIVE) != bool(expected[n]):
                problems.append(f"node {index.ids[n]!r}: stored status {stored.get(n)} differs from "
                                f"the least fixpoint")
        problems.extend(loaded.state.verify())
        return problems


def load_structure(db_path: str | Path) -> SupportStructure:
    """The stored memory as it stands now, for ``jtms check --db``.

    Audited (invalidated) nodes that are still blocked are removed, with every justification
    that uses them; claims they were the only support of stay, unjustified or with broken
    justifications, so they are inactive. The least fixpoint of the result is exactly the
    memory's current active state, and its claims are checked for influence safety.
    """
    with Memory.open(db_path) as memory:
        loaded = memory._current()
        index, blocked = loaded.index, loaded.state.blocks
        texts = dict(memory._db.execute("SELECT id, text FROM nodes"))
    ids = index.ids
    evidence = [ids[n] for n in range(index.size) if index.is_evidence[n] and n not in blocked]
    claims = [ids[n] for n in range(index.size) if not index.is_evidence[n]]
    pairs = []
    for j, claim in enumerate(index.just_claim):
        ants = index.just_antecedents[j]
        if claim in blocked or any(a in blocked for a in ants):
            continue
        pairs.append((ids[claim], [ids[a] for a in ants]))
    return SupportStructure.build(evidence, claims, pairs, texts=texts)


def load_memory(db_path: str | Path) -> tuple[SupportStructure, frozenset[str]]:
    """The whole stored graph and the ids currently blocked by audits in force."""
    with Memory.open(db_path) as memory:
        return memory.structure(), memory.blocked_ids()


__all__ = ["AuditResult", "Change", "Explanation", "Memory", "Step", "load_memory",
           "load_structure"]
