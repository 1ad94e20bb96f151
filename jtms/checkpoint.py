"""Checkpoints: the incremental state of a memory at one event, as bytes.

A checkpoint lets a process open a memory in O(read): it reads the nodes and justifications,
this blob (active flags, support pointers and ranks of the first ``nodes`` nodes, block
counts, open audits) and the log tail after ``event``; no fixpoint is recomputed. The blob
is derived data: a stored memory without one (or with one this code cannot read) is
replayed from its log instead, with the same result.

Format: a magic line, one line of JSON (event, node count, byte order, blocks, audits), then
the active flags (one byte per node), the pointers and the ranks (signed 64-bit each).
"""

from __future__ import annotations

import json
import sys
from array import array
from dataclasses import dataclass

from theory.incremental import GrowingIndex, SupportState

MAGIC = b"jtms-checkpoint 1\n"


@dataclass
class Restored:
    state: SupportState
    audits: dict[int, list[int]]
    nodes: int                 # nodes covered by the checkpoint (numbers below this)


def encode(state: SupportState, audits: dict[int, list[int]], event: int) -> bytes:
    """The state at ``event`` (every node of ``state.index``) as a checkpoint blob."""
    size = state.index.size
    header = {"event": event, "nodes": size, "justifications": len(state.index.just_claim),
              "byteorder": sys.byteorder, "blocks": sorted(state.blocks.items()),
              "audits": sorted([a, roots] for a, roots in audits.items())}
    support = array("q", state.support[:size])
    rank = array("q", state.rank[:size])
    return b"".join([MAGIC, json.dumps(header, separators=(",", ":")).encode(), b"\n",
                     bytes(state.active[:size]), support.tobytes(), rank.tobytes()])


def decode(data: bytes, index: GrowingIndex, event: int) -> Restored | None:
    """The state a blob saved, on ``index`` (which may have grown since); None if unusable."""
    if not data.startswith(MAGIC):
        return None
    try:
        end = data.index(b"\n", len(MAGIC))
        header = json.loads(data[len(MAGIC):end])
        size = int(header["nodes"])
        if (header["event"] != event or size > index.size
                or int(header["justifications"]) > len(index.just_claim)):
            return None
        start = end + 1
        active = bytearray(data[start:start + size])
        support, rank = array("q"), array("q")
        support.frombytes(data[start + size:start + size + 8 * size])
        rank.frombytes(data[start + 9 * size:start + 17 * size])
        if header["byteorder"] != sys.byteorder:
            support.byteswap()
            rank.byteswap()
        if len(active) != size or len(support) != size or len(rank) != size:
            return None
        blocks = {int(n): int(k) for n, k in header["blocks"]}
        audits = {int(a): [int(n) for n in roots] for a, roots in header["audits"]}
    except (ValueError, KeyError, TypeError):
        return None
    state = SupportState.restore(index, blocks, active, support.tolist(), rank.tolist())
    return Restored(state, audits, size)


__all__ = ["Restored", "decode", "encode"]
