"""The graph file format of docs/design.md section 4: load, validate, dump.

```json
{"nodes": [{"id": "obs1", "kind": "evidence", "text": "..."},
           {"id": "c1", "kind": "claim", "text": "..."}],
 "justifications": [{"claim": "c1", "antecedents": ["obs1"]}],
 "nogoods": [{"id": "n1", "nodes": ["c1", "c2"], "text": "c1 and c2 contradict"}]}
```

``"nogoods"`` is optional (see :class:`theory.model.structure.Nogood`). So is
``"counterexample"`` (:func:`recorded_audit`): ``{"audit": [ids], "rule": "...",
"exact_retired": [ids], "rule_retired": [ids]}``, the case ``jtms fuzz --out`` writes.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Mapping
from itertools import chain, repeat
from pathlib import Path
from typing import Any, cast

from theory.model.errors import GraphError, InputError, shorten
from theory.model.ids import all_ids, id_problem
from theory.model.index import paused_gc
from theory.model.structure import GraphRows, Kind, Nogood, SupportStructure

MAX_GRAPH_BYTES = 512 * 1024 * 1024
"""The largest graph file read (bytes): reading stops there, so ``/dev/zero`` or an endless
FIFO is refused with one line instead of filling the memory."""


def load_graph(path: str | Path) -> SupportStructure:
    """Read and validate a graph file; every problem raises :class:`GraphError` naming it."""
    return parse_graph(load_document(path), source=str(path))


def read_bounded(path: str | Path, what: str = "a file", advice: str = "") -> bytes:
    """The bytes of the file at ``path``, at most :data:`MAX_GRAPH_BYTES` of them: reading
    stops there, so /dev/zero or a FIFO that never ends is refused (a :class:`GraphError`
    saying that ``what`` may hold no more, then ``advice``), not read until memory runs out.
    ``path`` must be a str or a path-like (``open`` takes an int as a file descriptor: a
    graph read from 1 would read, then close, stdout). ``OSError`` is the caller's."""
    if not isinstance(path, (str, os.PathLike)):
        raise InputError(f"{what} is a path (str or Path), got {type(path).__name__}")
    limit = MAX_GRAPH_BYTES
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise GraphError(
            f"larger than {limit:,} bytes, the most {what} may hold{advice}", source=str(path)
        )
    return data


def load_document(path: str | Path) -> Any:
    """Read and decode a JSON file (not yet validated), with one-line errors naming it.

    Callers that need fields beyond the graph format (the memory's ``author``,
    ``expression``, ``value``) read the document here and validate it with
    :func:`parse_graph`.
    """
    source = str(path)
    try:
        text = read_bounded(path, "a graph file", " (split it and import the parts)").decode()
    except FileNotFoundError:
        raise GraphError("no such file", source=source) from None
    except IsADirectoryError:
        raise GraphError("is a directory, not a graph file", source=source) from None
    except UnicodeDecodeError as error:
        raise GraphError(f"not UTF-8 text (byte {error.start})", source=source) from None
    except OSError as error:
        raise GraphError(
            f"cannot read file ({error.strerror or error.__class__.__name__})", source=source
        ) from None
    except MemoryError:
        raise GraphError("too large to read into memory", source=source) from None
    return _decode(text, source)


def loads_graph(text: str, source: str = "<string>") -> SupportStructure:
    """Parse and validate a graph document given as a JSON string (docs/design.md section 4).

    Examples
    --------
    >>> g = loads_graph('''{"nodes": [{"id": "a", "kind": "evidence"}, {"id": "c", "kind": "claim"}],
    ...                     "justifications": [{"claim": "c", "antecedents": ["a"]}]}''')
    >>> sorted(g.evidence), sorted(g.claims)
    (['a'], ['c'])
    >>> loads_graph('{"nodes": [{"id": "a", "kind": "claim"}, {"id": "a", "kind": "claim"}]}')
    Traceback (most recent call last):
    ...
    theory.model.errors.GraphError: <string>: node 'a': duplicate id
    """
    return parse_graph(_decode(text, source), source=source)


class _DuplicateKey(Exception):
    """A JSON object naming one key twice (raised while decoding)."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """One decoded JSON object, refusing a key given twice: ``json`` would keep the last
    silently (``{"kind": "evidence", "kind": "claim"}`` a claim, a second
    ``"justifications": []`` dropping the first list)."""
    decoded = dict(pairs)
    if len(decoded) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return decoded


def _decode(text: str, source: str) -> Any:
    try:
        with paused_gc():
            return json.loads(text, object_pairs_hook=_object)
    except _DuplicateKey as error:
        raise GraphError(
            f"an object gives the key {shorten(str(error.args[0]), 80)!r} twice (JSON would "
            "keep only the last one): give each key once",
            source=source,
        ) from None
    except json.JSONDecodeError as error:
        raise GraphError(
            f"malformed JSON at line {error.lineno} column {error.colno}: {error.msg}",
            source=source,
        ) from None
    except RecursionError:
        raise GraphError("JSON nested too deeply to read", source=source) from None
    except ValueError as error:  # an integer past Python's digit limit (4,300 by default)
        raise GraphError(f"unreadable JSON number ({_first_line(error)})", source=source) from None


def _first_line(error: BaseException) -> str:
    return str(error).split(";", 1)[0].split("\n", 1)[0][:120]


def parse_graph(data: Any, source: str = "<graph>", *, pause_gc: bool = True) -> SupportStructure:
    """Validate a decoded graph document and build the structure.

    ``pause_gc`` pauses the cyclic garbage collector meanwhile (:func:`paused_gc`;
    ``python -m benchmarks.bench_ablation`` turns it off to measure the difference).
    """
    try:
        if not pause_gc:
            return _parse(data)
        with paused_gc():
            return _parse(data)
    except InputError as error:
        raise error.with_source(source) from None


# the keys each object of a graph document may carry (docs/design.md section 4; the memory's
# import reads author/expression/value/valid_until too); any other key is an error naming it
# and where
TOP_KEYS = frozenset({"nodes", "justifications", "nogoods", "counterexample"})
COUNTEREXAMPLE_KEYS = frozenset({"audit", "rule", "exact_retired", "rule_retired"})
NODE_KEYS = frozenset({"id", "kind", "text", "author", "expression", "value", "valid_until"})
JUSTIFICATION_KEYS = frozenset({"claim", "antecedents"})
_ONLY_STR = frozenset({str})  # antecedents: exactly str, checked per list in C (set of the types)
_ONLY_DICT = frozenset({dict})
_ONLY_LIST = frozenset({list})
_NO_ANTECEDENTS = None  # what a justification without the key reads: not a list, so invalid
_KINDS = frozenset(kind.value for kind in Kind)


def _known_keys(
    data: Mapping[Any, Any], allowed: frozenset[str], where: str, node: str | None = None
) -> None:
    if data.keys() <= allowed:
        return
    unknown = sorted(map(str, set(data) - allowed))
    hints = []
    for key in unknown:
        close = difflib.get_close_matches(key, sorted(allowed), n=1)
        hints.append(f"{key!r} (did you mean {close[0]!r}?)" if close else repr(key))
    raise GraphError(
        f"unknown key(s) in {where}: {', '.join(hints)}; expected {', '.join(sorted(allowed))}",
        node=node,
    )


def _parse(data: Any) -> SupportStructure:
    if not isinstance(data, Mapping):
        raise GraphError("top level must be an object with 'nodes' and 'justifications'")
    _known_keys(data, TOP_KEYS, "the top level")
    nodes = data.get("nodes")
    if not isinstance(nodes, list):
        raise GraphError("'nodes' must be a list")
    justifications = data.get("justifications", [])
    if not isinstance(justifications, list):
        raise GraphError("'justifications' must be a list")
    evidence: list[str] = []
    claims: list[str] = []
    texts: dict[str, str] = {}
    # hot loops (one pass per node and per justification of 100k-claim files): the enum
    # values and key sets are locals, a plain dict skips the Mapping ABC check
    evidence_kind, claim_kind = Kind.EVIDENCE.value, Kind.CLAIM.value
    node_keys, justification_keys = NODE_KEYS, JUSTIFICATION_KEYS
    for position, node in enumerate(nodes):
        if type(node) is not dict and not isinstance(node, Mapping):
            raise GraphError(f"nodes[{position}] must be an object")
        node_id = node.get("id")
        if not isinstance(node_id, str) or not node_id:
            raise GraphError(f"nodes[{position}] needs a non-empty string 'id'")
        problem = id_problem(node_id)
        if problem is not None:
            raise GraphError(f"nodes[{position}]: id {problem}", node=node_id)
        if not node.keys() <= node_keys:
            _known_keys(node, node_keys, f"nodes[{position}]", node=node_id)
        kind = node.get("kind")
        if kind == evidence_kind:
            evidence.append(node_id)
        elif kind == claim_kind:
            claims.append(node_id)
        else:
            raise GraphError(f"kind must be 'evidence' or 'claim', got {kind!r}", node=node_id)
        text = node.get("text", "")
        if not isinstance(text, str):
            raise GraphError("'text' must be a string", node=node_id)
        texts[node_id] = text
    pairs: list[tuple[str, list[str]]] = []
    for position, justification in enumerate(justifications):
        if type(justification) is not dict and not isinstance(justification, Mapping):
            raise GraphError(f"justifications[{position}] must be an object")
        claim = justification.get("claim")
        if not isinstance(claim, str):
            raise GraphError(f"justifications[{position}] needs a string 'claim'")
        if not justification.keys() <= justification_keys:
            _known_keys(
                justification, justification_keys, f"justifications[{position}]", node=claim
            )
        if "antecedents" not in justification:  # a forgotten key must not make a premise
            raise GraphError(
                f"justifications[{position}] needs 'antecedents' (a list of ids; [] makes "
                "the claim a premise)",
                node=claim,
            )
        antecedents = justification["antecedents"]
        if not isinstance(antecedents, list) or not set(map(type, antecedents)) <= _ONLY_STR:
            raise GraphError(
                f"justifications[{position}]: 'antecedents' must be a list of ids", node=claim
            )
        pairs.append((claim, antecedents))
    structure = SupportStructure.build(
        evidence, claims, pairs, texts=texts, nogoods=_parse_nogoods(data.get("nogoods", []))
    )
    if "counterexample" in data:
        recorded_audit(data, structure)
    return structure


def recorded_audit(data: Mapping[str, Any], structure: SupportStructure) -> frozenset[str] | None:
    """The audit a graph document records under ``"counterexample"`` (``jtms fuzz --out``
    writes it: the graph, the audit, the rule and what each side retired), checked against
    ``structure``; None when the document records none. ``jtms revise FILE`` replays it when
    no ``--audit`` is given; every other reader takes the graph as it is, audit not applied.

    >>> doc = {"nodes": [{"id": "e0", "kind": "evidence"}], "justifications": [],
    ...        "counterexample": {"audit": ["e0"], "rule": "m:f"}}
    >>> sorted(recorded_audit(doc, parse_graph(doc)))
    ['e0']
    """
    record = data.get("counterexample")
    if record is None:
        return None
    if not isinstance(record, Mapping):
        raise GraphError("'counterexample' must be an object with an 'audit' list")
    _known_keys(record, COUNTEREXAMPLE_KEYS, "'counterexample'")
    for key in ("audit", "exact_retired", "rule_retired"):
        value = record.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise GraphError(f"'counterexample.{key}' must be a list of ids")
    if "audit" not in record:
        raise GraphError("'counterexample' needs 'audit' (a list of ids)")
    if not isinstance(record.get("rule", ""), str):
        raise GraphError("'counterexample.rule' must be a string")
    for key in ("audit", "exact_retired", "rule_retired"):
        for node in record.get(key, []):
            if node not in structure.nodes:
                raise GraphError(f"'counterexample.{key}' names an unknown id", node=node)
    return frozenset(record["audit"])


def graph_rows(data: Any) -> GraphRows | None:
    """The numbered rows (:class:`theory.model.structure.GraphRows`) of a valid graph document
    without nogoods, read in passes in C over all its nodes and all its justifications and in
    array operations, building no :class:`SupportStructure` (a million-claim import builds two
    million justification objects otherwise).

    ``None`` for anything else: an invalid document, and one with nogoods. The caller then
    reads it with :func:`parse_graph`, which says what is wrong, so this reader only has to
    recognise valid documents; it accepts exactly what :func:`parse_graph` accepts and gives
    the same rows as :meth:`GraphRows.of` the parsed structure (``tests/jtms/memory/test_bulk_import.py``
    checks both on valid and broken documents).

    >>> rows = graph_rows({"nodes": [{"id": "c", "kind": "claim"}, {"id": "e", "kind": "evidence"}],
    ...                    "justifications": [{"claim": "c", "antecedents": ["e", "e"]}]})
    >>> rows.ids, rows.claims, rows.flat
    (['e', 'c'], [1], [0])
    """
    if (
        type(data) is not dict
        or not data.keys() <= TOP_KEYS
        or data.get("nogoods")
        or "counterexample" in data
    ):
        return None
    nodes, justifications = data.get("nodes"), data.get("justifications", [])
    if type(nodes) is not list or type(justifications) is not list:
        return None
    if "nogoods" in data and type(data["nogoods"]) is not list:
        return None
    with paused_gc():
        try:
            return _rows_of(nodes, justifications)
        except TypeError:  # an unhashable kind, say: invalid, and parse_graph says why
            return None


def _rows_of(nodes: list[Any], justifications: list[Any]) -> GraphRows | None:
    """:func:`graph_rows` of the two lists: each check is one pass in C over all items (the
    types of all ids as one set, say), every antecedent is numbered by one map, and the rows
    are sorted and deduplicated in array operations (:func:`_distinct_rows`)."""
    if not set(map(type, nodes)) <= _ONLY_DICT:
        return None
    if not set().union(*map(dict.keys, nodes)) <= NODE_KEYS:
        return None
    node_ids = cast("list[str]", list(map(dict.get, nodes, repeat("id"))))  # checked below
    kinds = list(map(dict.get, nodes, repeat("kind")))
    node_texts = cast("list[str]", list(map(dict.get, nodes, repeat("text"), repeat(""))))
    if not set(map(type, node_ids)) <= _ONLY_STR or not set(map(type, node_texts)) <= _ONLY_STR:
        return None
    if not set(kinds) <= _KINDS or not all_ids(node_ids):
        return None
    evidence_kind = Kind.EVIDENCE.value
    evidence = sorted([n for n, kind in zip(node_ids, kinds) if kind == evidence_kind])
    claims = sorted([n for n, kind in zip(node_ids, kinds) if kind != evidence_kind])
    texts = {n: text for n, text in zip(node_ids, node_texts) if text}
    ids = evidence + claims
    number = dict(zip(ids, range(len(ids))))
    if len(number) != len(ids):  # a repeated id
        return None
    first_claim = len(evidence)
    get = number.get
    if not set(map(type, justifications)) <= _ONLY_DICT:
        return None
    if not set().union(*map(dict.keys, justifications)) <= JUSTIFICATION_KEYS:
        return None
    claim_ids = cast("list[str]", list(map(dict.get, justifications, repeat("claim"))))
    if not set(map(type, claim_ids)) <= _ONLY_STR:
        return None
    claim_numbers = cast("list[int]", list(map(get, claim_ids)))  # None: checked next
    if None in claim_numbers or (claim_numbers and min(claim_numbers) < first_claim):
        return None
    lists = list(map(dict.get, justifications, repeat("antecedents"), repeat(_NO_ANTECEDENTS)))
    if not set(map(type, lists)) <= _ONLY_LIST:
        return None
    antecedent_ids = list(chain.from_iterable(lists))
    if not set(map(type, antecedent_ids)) <= _ONLY_STR:
        return None
    import numpy as np

    # an unknown id is -1, found in the array: ``None in`` a list of 4M numbers reads every
    # int object once more, in random order at a million claims (0.2 s)
    numbers = np.asarray(list(map(get, antecedent_ids, repeat(-1))), dtype=np.int64)
    if len(numbers) and int(numbers.min()) < 0:
        return None
    sizes = list(map(len, lists))
    return GraphRows(
        ids, first_claim, texts, *_distinct_rows(claim_numbers, sizes, numbers), number
    )


_Rows = tuple[list[int], list[int], list[int]]


def _distinct_rows(claims: list[int], sizes: list[int], numbers: Any) -> _Rows:
    """Justification ``k`` of claim ``claims[k]`` has the antecedents ``numbers`` from
    ``sum(sizes[:k])`` on: each row sorted without repeats, and a justification equal to an
    earlier one of its claim dropped (it adds nothing, as in ``SupportStructure.build``).
    Returns the claims, offsets and flat antecedents of the rows kept.

    In array operations: rows are sorted and cleared of repeats by one sort of all
    antecedents, and each row gets a 64-bit fingerprint of its claim and its set of
    antecedents. Only rows that share a fingerprint (a repeated justification, or, rarely,
    two different ones that collide) are compared exactly."""
    import numpy as np

    count = len(claims)
    if count == 0:
        return [], [0], []
    row_of = np.repeat(np.arange(count, dtype=np.int64), np.asarray(sizes, dtype=np.int64))
    # one sort orders each row and the rows stay in place (node numbers are below 2**31)
    keys = np.sort((row_of << 32) | np.asarray(numbers, dtype=np.int64))
    if len(keys):
        keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]  # repeats within a row
    values, row_of = keys & 0xFFFFFFFF, keys >> 32
    lengths = np.bincount(row_of, minlength=count)
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    with np.errstate(over="ignore"):
        summed = np.zeros(len(values) + 1, dtype=np.uint64)
        np.cumsum(_mix(values.astype(np.uint64)), out=summed[1:])
        fingerprint = summed[offsets[1:]] - summed[offsets[:-1]]
        fingerprint += _mix(np.asarray(claims, dtype=np.uint64) ^ np.uint64(0x5BD1E995))
    ordered = np.sort(fingerprint)
    if not bool((ordered[1:] == ordered[:-1]).any()):
        return list(claims), offsets.tolist(), values.tolist()
    by_print = np.argsort(fingerprint, kind="stable")  # equal fingerprints: document order
    ordered = fingerprint[by_print]
    shared = np.flatnonzero(np.append(ordered[1:] == ordered[:-1], False))
    keep = np.ones(count, dtype=bool)
    seen: set[tuple[int, ...]] = set()
    bounds = offsets.tolist()
    for k in sorted(set(shared.tolist()) | set((shared + 1).tolist())):
        row = int(by_print[k])
        key = (claims[row], *values[bounds[row] : bounds[row + 1]].tolist())
        if key in seen:
            keep[row] = False
        seen.add(key)
    values = values[np.repeat(keep, lengths)]
    offsets = np.zeros(int(keep.sum()) + 1, dtype=np.int64)
    np.cumsum(lengths[keep], out=offsets[1:])
    return np.asarray(claims)[keep].tolist(), offsets.tolist(), values.tolist()


def _mix(x: Any) -> Any:
    """splitmix64's finaliser on a uint64 array: a well-spread 64-bit image of each value."""
    import numpy as np

    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _parse_nogoods(nogoods: Any) -> list[Nogood]:
    """The optional ``"nogoods"`` list: objects with ``id``, ``nodes`` and optional ``text``."""
    if not isinstance(nogoods, list):
        raise GraphError("'nogoods' must be a list")
    parsed: list[Nogood] = []
    for position, nogood in enumerate(nogoods):
        if not isinstance(nogood, Mapping):
            raise GraphError(f"nogoods[{position}] must be an object")
        nogood_id = nogood.get("id")
        if not isinstance(nogood_id, str) or not nogood_id:
            raise GraphError(f"nogoods[{position}] needs a non-empty string 'id'")
        problem = id_problem(nogood_id)
        if problem is not None:
            raise GraphError(f"nogoods[{position}]: id {problem}", node=nogood_id)
        unknown = set(nogood) - {"id", "nodes", "text"}
        if unknown:
            raise GraphError(
                f"unknown key(s) in a nogood: {', '.join(sorted(map(str, unknown)))}",
                node=nogood_id,
            )
        nodes = nogood.get("nodes")
        if not isinstance(nodes, list) or not all(type(n) is str for n in nodes):
            raise GraphError("'nodes' must be a list of ids", node=nogood_id)
        text = nogood.get("text", "")
        if not isinstance(text, str):
            raise GraphError("'text' must be a string", node=nogood_id)
        parsed.append(Nogood(nogood_id, frozenset(nodes), text))
    return parsed


def graph_to_dict(structure: SupportStructure) -> dict[str, Any]:
    """The structure as a graph document (sorted, so equal graphs dump identically)."""
    nodes = [
        {"id": n.id, "kind": n.kind.value, "text": n.text}
        for n in sorted(structure.nodes.values(), key=lambda n: (n.kind is Kind.CLAIM, n.id))
    ]
    justifications = [
        {"claim": j.claim, "antecedents": sorted(j.antecedents)}
        for j in sorted(structure.justifications, key=lambda j: (j.claim, sorted(j.antecedents)))
    ]
    document: dict[str, Any] = {"nodes": nodes, "justifications": justifications}
    if structure.nogoods:
        document["nogoods"] = [
            {"id": n.id, "nodes": sorted(n.nodes), "text": n.text}
            for n in sorted(structure.nogoods, key=lambda n: n.id)
        ]
    return document


def dumps_graph(structure: SupportStructure) -> str:
    return json.dumps(graph_to_dict(structure), indent=2) + "\n"


def save_graph(structure: SupportStructure, path: str | Path) -> None:
    Path(path).write_text(dumps_graph(structure), encoding="utf-8")
