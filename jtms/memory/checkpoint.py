"""Checkpoints: the index and the incremental state of a memory at one event, as bytes.

A checkpoint lets a process open a memory in O(read): it reads this blob (the node ids and
kinds, the justifications and the adjacency in compressed-row form, then the active flags,
support pointers and ranks, the block counts and the open audits) and the log tail after
``event``; no fixpoint is recomputed and no per-node Python structure is built up front
(:class:`jtms.engine.incremental.Adjacency`). The blob is derived data: a stored memory without
one (or with one this code cannot read) is replayed from its log instead, with the same
result (``Memory.integrity_problems`` compares the two).

Format: a magic line, one line of JSON (event, counts, byte order, blocks, audits, section
lengths), then the sections: ids (UTF-8, NUL-separated), evidence flags (one byte per node),
nine int32 arrays (justification claims; antecedents, justifications-of, watchers and
consumers as offsets + items), the active flags, the pointers and ranks (int64), and the
pointer flags (one byte per justification: it is its claim's support pointer). Since version 6
the pointers and ranks are int32 (an inactive node's rank as -1) when they fit, as they do
below 2**31 justifications, and the pointer flags are not stored: opening computes them from
the pointers in one array assignment. That makes a state blob 1.1 MB rather than 2.3 MB at
100,000 claims, which an audit that refreshes the checkpoint writes and commits. Version 7
adds two int32 sections after the nine, ``id_offsets`` and ``id_slots``: the ids' numbers by
bucket of a hash of each id (:func:`jtms.engine.id_table.table_arrays`), so that opening numbers
the ids an audit names without a dict of all of them (:class:`jtms.engine.id_table.IdTable`; a
table that does not fit its ids is ignored and the dict built). Blobs of versions 4 to 6
(version 6 without the table; 64-bit pointers and ranks in 4 and 5, version 5 with the
flags, version 4 with pointer dependents instead) are still read.

The index only grows, and only an import or an addition grows it; audits and reinstatements
change the state alone. So a checkpoint taken while the index is the one a stored full blob
holds, or that one grown by a few nodes and justifications (an agent's additions between
audits: ``jtms.memory.memory.GROWN_STATE_BLOB``), is a *state blob* (:func:`encode_state`): a
magic line, a header naming that blob's event as its ``base``, and only the active flags,
pointers and ranks, about a tenth of the bytes at 100,000 claims. Opening reads both
(:func:`base_of` says which), appends the nodes and justifications added since the full blob
from the store (:data:`Extend`), then restores the state. A state blob whose base is gone or
does not match is not used (the log serves).
"""

from __future__ import annotations

import json
import sys
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from jtms.engine.id_table import table_arrays
from jtms.engine.incremental import NO_RANK, GrowingIndex, SupportState
from theory.model.index import array_view

MAGIC = b"jtms-checkpoint 7\n"
READABLE = (MAGIC, b"jtms-checkpoint 6\n", b"jtms-checkpoint 5\n", b"jtms-checkpoint 4\n")
STATE_MAGIC = b"jtms-checkpoint-state 2\n"
STATE_READABLE = (STATE_MAGIC, b"jtms-checkpoint-state 1\n")
NARROW = 1 << 31  # pointers and ranks below this are stored as int32
_INT_SECTIONS = (
    "just_claim",
    "ant_offsets",
    "ant_flat",
    "jo_offsets",
    "jo_flat",
    "w_offsets",
    "w_flat",
    "c_offsets",
    "c_flat",
)


@dataclass
class Restored:
    index: GrowingIndex
    state: SupportState
    audits: dict[int, list[int]]
    nodes: int  # nodes covered by the checkpoint (numbers below this)
    justifications: int  # justifications covered by it
    base_nodes: int  # nodes the full blob holds (a state blob may cover more)
    base_justifications: int  # justifications the full blob holds


Extend = Callable[[GrowingIndex, int, int], None]
"""``extend(index, nodes, justifications)``: append to ``index`` (the full blob's) the nodes
and justifications numbered below ``nodes`` and ``justifications`` that it lacks, from the
store (a state blob taken after the memory gained some)."""


def encode(state: SupportState, audits: dict[int, list[int]], event: int) -> bytes:
    """The index and the state at ``event`` as a checkpoint blob."""
    index = state.index
    size = index.size
    ids = "\x00".join(index.ids)
    if ids.count("\x00") != max(size - 1, 0):  # a NUL inside an id
        raise ValueError("an id contains NUL: no checkpoint")  # the log still serves
    ant_offsets, ant_flat = index.just_antecedents.compressed()
    jo_offsets, jo_flat = index.justs_of.compressed()
    w_offsets, w_flat = index.watchers.compressed()
    c_offsets, c_flat = index.consumers.compressed()
    ints = {
        "just_claim": index.just_claim,
        "ant_offsets": ant_offsets,
        "ant_flat": ant_flat,
        "jo_offsets": jo_offsets,
        "jo_flat": jo_flat,
        "w_offsets": w_offsets,
        "w_flat": w_flat,
        "c_offsets": c_offsets,
        "c_flat": c_flat,
    }
    sections = [("ids", ids.encode()), ("evidence", bytes(index.is_evidence))]
    sections += [(name, _int32_bytes(ints[name])) for name in _INT_SECTIONS]
    if size < 1 << 31:  # int32 numbers
        offsets, slots = table_arrays(index.ids)
        sections += [("id_offsets", offsets.tobytes()), ("id_slots", slots.tobytes())]
    return _blob(MAGIC, state, audits, {"event": event}, sections + _state_sections(state))


def encode_state(state: SupportState, audits: dict[int, list[int]], event: int, base: int) -> bytes:
    """The state at ``event`` alone, over the index that the full blob of event ``base`` holds
    or one grown from it since (nodes and justifications appended: an open memory that
    gained claims, which opening reads from the store: :data:`Extend`)."""
    return _blob(STATE_MAGIC, state, audits, {"event": event, "base": base}, _state_sections(state))


def _state_sections(state: SupportState) -> list[tuple[str, bytes]]:
    """The active flags, then the pointers and ranks as int32 when they fit (``support32``,
    ``rank32``: an inactive node's rank is -1), else as int64 with the pointer flags."""
    import numpy as np

    size, count = state.index.size, len(state.index.just_claim)
    support = array_view(state.support)[:size]  # views, released on return
    rank = array_view(state.rank)[:size]
    ranked = rank[rank != NO_RANK]
    if count < NARROW and (not len(ranked) or int(ranked.max()) < NARROW):
        return [
            ("active", bytes(state.active[:size])),
            ("support32", support.astype(np.int32).tobytes()),
            ("rank32", np.where(rank == NO_RANK, -1, rank).astype(np.int32).tobytes()),
        ]
    return [
        ("active", bytes(state.active[:size])),
        ("support", support.tobytes()),
        ("rank", rank.tobytes()),
        ("pointer", bytes(state.pointer[:count])),
    ]


def _pointers_and_ranks(parts: dict[str, bytes], swap: bool) -> tuple[Any, Any]:
    """The pointers and ranks of a blob's state sections, as ``array("q")``."""
    import numpy as np

    if "support32" not in parts:
        return _ints(parts["support"], "q", swap), _ints(parts["rank"], "q", swap)
    support = array_view(_ints(parts["support32"], "i", swap)).astype(np.int64)
    rank = array_view(_ints(parts["rank32"], "i", swap)).astype(np.int64)
    rank[rank == -1] = NO_RANK
    pointers, ranks = array("q"), array("q")
    pointers.frombytes(support.tobytes())
    ranks.frombytes(rank.tobytes())
    return pointers, ranks


def _blob(
    magic: bytes,
    state: SupportState,
    audits: dict[int, list[int]],
    head: dict[str, int],
    sections: list[tuple[str, bytes]],
) -> bytes:
    header = {
        **head,
        "nodes": state.index.size,
        "justifications": len(state.index.just_claim),
        "byteorder": sys.byteorder,
        "blocks": sorted(state.blocks.items()),
        "audits": sorted([a, roots] for a, roots in audits.items()),
        "sections": [[name, len(data)] for name, data in sections],
    }
    return b"".join(
        [magic, json.dumps(header, separators=(",", ":")).encode(), b"\n"]
        + [data for _, data in sections]
    )


def _int32_bytes(values: Sequence[int]) -> bytes:
    """The values as 32-bit ints in native byte order (an ``array("i")`` as it is)."""
    if isinstance(values, array) and values.typecode == "i":
        return values.tobytes()
    return array("i", values).tobytes()


def _ints(data: bytes, code: str, swap: bool) -> "array[int]":
    """The section as a flat array (no Python int object per item: opening a memory of a
    million claims copies bytes, and the hot loops read compact memory)."""
    values = array(code)
    values.frombytes(data)
    if swap:
        values.byteswap()
    return values


def _read(data: bytes, magics: tuple[bytes, ...]) -> tuple[dict, dict[str, bytes]] | None:
    """The header and the sections of a blob of one of ``magics``, or None."""
    magic = next((m for m in magics if data.startswith(m)), None)
    if magic is None:
        return None
    try:
        end = data.index(b"\n", len(magic))
        header = json.loads(data[len(magic) : end])
        parts: dict[str, bytes] = {}
        position = end + 1
        for name, length in header["sections"]:
            parts[name] = data[position : position + length]
            position += length
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    if position != len(data) or not isinstance(header, dict):
        return None
    return header, parts


def base_of(data: bytes) -> int | None:
    """The event of the full blob a state blob builds on; None for a full blob (or bytes that
    are no checkpoint)."""
    read = _read(data, STATE_READABLE)
    if read is None:
        return None
    try:
        return int(read[0]["base"])
    except (KeyError, TypeError, ValueError):
        return None


def decode(
    data: bytes, event: int, base: bytes | None = None, extend: Extend | None = None
) -> Restored | None:
    """The index and state a blob saved, or None if it is not a usable checkpoint at ``event``.

    A state blob needs ``base``, the full blob of the event :func:`base_of` names: the index
    comes from that one, the state from this one. A state blob over more nodes or
    justifications than its base holds also needs ``extend``, which appends those to the
    base's index before the state is restored over it."""
    read = _read(data, READABLE + STATE_READABLE)
    if read is None:
        return None
    header, parts = read
    if data.startswith(STATE_READABLE):
        below = _read(base, READABLE) if base is not None else None
        if below is None:
            return None
        index_header, index_parts = below
    else:
        index_header, index_parts = header, parts
    try:
        if header["event"] != event:
            return None
        size, count = int(header["nodes"]), int(header["justifications"])
        held, held_count = int(index_header["nodes"]), int(index_header["justifications"])
        if (held, held_count) != (size, count) and (
            extend is None or held > size or held_count > count or parts is index_parts
        ):
            return None
        if header.get("base", index_header["event"]) != index_header["event"]:
            return None
        swap = header["byteorder"] != sys.byteorder
        index_swap = index_header["byteorder"] != sys.byteorder
        ids = index_parts["ids"].decode().split("\x00") if held else []
        ints = {name: _ints(index_parts[name], "i", index_swap) for name in _INT_SECTIONS}
        table = (
            (
                _ints(index_parts["id_offsets"], "i", index_swap),
                _ints(index_parts["id_slots"], "i", index_swap),
            )
            if "id_slots" in index_parts and "id_offsets" in index_parts
            else None
        )
        support, rank = _pointers_and_ranks(parts, swap)
        active = bytearray(parts["active"])
        evidence = bytearray(index_parts["evidence"])
        if (
            len(ids) != held
            or len(evidence) != held
            or len(active) != size
            or len(support) != size
            or len(rank) != size
            or len(ints["just_claim"]) != held_count
            or len(ints["ant_offsets"]) != held_count + 1
            or len(ints["jo_offsets"]) != held + 1
            or len(ints["w_offsets"]) != held + 1
            or len(ints["c_offsets"]) != held + 1
            or ("pointer" in parts and len(parts["pointer"]) != count)
        ):
            return None
        blocks = {int(n): int(k) for n, k in header["blocks"]}
        audits = {int(a): [int(n) for n in roots] for a, roots in header["audits"]}
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    rows = (
        ids,
        evidence,
        ints["just_claim"],
        (ints["ant_offsets"], ints["ant_flat"]),
        (ints["jo_offsets"], ints["jo_flat"]),
        (ints["w_offsets"], ints["w_flat"]),
        (ints["c_offsets"], ints["c_flat"]),
    )
    try:
        index = GrowingIndex.from_compressed(*rows, id_table=table)
    except ValueError:  # a damaged id table: the ids are numbered by a dict instead
        index = GrowingIndex.from_compressed(*rows)
    if (held, held_count) != (size, count):
        assert extend is not None
        extend(index, size, count)
        if (index.size, len(index.just_claim)) != (size, count):
            return None
    state = SupportState.restore(index, blocks, active, support, rank, parts.get("pointer"))
    return Restored(index, state, audits, size, count, held, held_count)


__all__ = ["Extend", "Restored", "base_of", "decode", "encode", "encode_state"]
