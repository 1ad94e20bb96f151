"""Node ids to numbers without a dict of every id: a bucketed table of the ids' CRC-32s.

A memory opened from a checkpoint needs the numbers of the few ids an audit or a query names,
and the names of the numbers it reports. Building ``dict(zip(ids, range(n)))`` for that costs
time in the number of ids (and memory past the CPU's cache at a million ids), so opening would grow with the memory rather than with what it reads.
The checkpoint therefore stores, beside the ids, the table this module computes
(:func:`table_arrays`): the id numbers grouped by a hash of the id's UTF-8 bytes (CRC-32,
spread by a multiplicative step), as compressed rows. :class:`IdTable` answers a lookup from
it by hashing the one id and comparing the ids of its bucket (under two on average).

A lookup in Python costs about ten times a dict's, so once the lookups reach a sixteenth of
the ids (:data:`BUILD_AFTER`), or one id is not found, the table builds the dict and answers
from it after: in all, at most about 1.6 times what building the dict up front would have
cost, and nothing like it for an audit of 200 roots that all exist.

>>> ids = ["e1", "e2", "c1"]
>>> table = IdTable(ids, *table_arrays(ids))
>>> table["c1"], table.get("nope"), "e2" in table, len(table)
(2, None, True, 3)
>>> table["c2"] = 3; ids.append("c2")   # a node added after the checkpoint
>>> table["c2"], sorted(table.items())
(3, [('c1', 2), ('c2', 3), ('e1', 0), ('e2', 1)])
"""

from __future__ import annotations

import zlib
from array import array
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from typing import Any

BUILD_AFTER = 16
"""The table builds the dict once its lookups exceed (ids) // BUILD_AFTER (and 64)."""
_SPREAD = 0x9E3779B1  # Fibonacci hashing: the CRC's bits mixed into the bucket's


def table_bits(count: int) -> int:
    """log2 of the number of buckets for ``count`` ids: about two ids a bucket."""
    return max(0, (count // 2).bit_length())


def table_arrays(ids: Sequence[str]) -> tuple[Any, Any]:
    """(offsets, slots) as int32 arrays: the numbers of the ids in bucket ``b`` are
    ``slots[offsets[b]:offsets[b + 1]]``, ascending. UnicodeEncodeError if an id cannot be
    written as UTF-8 (a checkpoint is then not written)."""
    import numpy as np

    from theory.model.index import stable_order

    count = len(ids)
    bits = table_bits(count)
    hashes = np.fromiter(map(zlib.crc32, map(str.encode, ids)), dtype=np.uint64, count=count)
    buckets = ((hashes * np.uint64(_SPREAD)) & np.uint64(0xFFFFFFFF)) >> np.uint64(32 - bits)
    slots = stable_order(buckets.astype(np.int64), 1 << bits).astype(np.int32)
    offsets = np.zeros((1 << bits) + 1, dtype=np.int64)
    np.cumsum(np.bincount(buckets.astype(np.int64), minlength=1 << bits), out=offsets[1:])
    return offsets.astype(np.int32), slots


def _int_array(values: Sequence[int]) -> "array[int]":
    """The values as an ``array("i")`` (itself if it is one): indexed from Python, it gives
    ints, not numpy scalars."""
    if isinstance(values, array) and values.typecode == "i":
        return values
    import numpy as np

    result = array("i")
    result.frombytes(np.ascontiguousarray(values, dtype=np.int32).tobytes())
    return result


class IdTable(MutableMapping[str, int]):
    """The numbers of ``ids`` (a list the caller keeps appending to: the index's) as a
    mapping, answered from :func:`table_arrays`'s ``offsets`` and ``slots`` for the ids they
    cover and from a small dict for ids set since; after many lookups, from one dict of all
    (``on_built`` receives it, so its owner can hold the dict itself from then on).

    The table covers every id of ``ids`` when it is made. Its answers never depend on the
    table being right: a bucket's candidate is returned only when its id equals the key, and
    a key its bucket lacks is looked up in the dict (:meth:`agrees` tells whether the table
    is the one the ids give)."""

    __slots__ = (
        "_ids",
        "_count",
        "_offsets",
        "_slots",
        "_shift",
        "_added",
        "_built",
        "_lookups",
        "_budget",
        "_on_built",
    )

    def __init__(
        self,
        ids: list[str],
        offsets: Sequence[int],
        slots: Sequence[int],
        on_built: Callable[[dict[str, int]], None] | None = None,
    ) -> None:
        import numpy as np

        count = len(slots)
        bits = table_bits(count)
        starts, numbers = np.asarray(offsets), np.asarray(slots)
        if (
            len(starts) != (1 << bits) + 1
            or len(ids) != count
            or starts[0] != 0
            or starts[-1] != count
            or bool((starts[1:] < starts[:-1]).any())
            or (count and (int(numbers.min()) < 0 or int(numbers.max()) >= count))
        ):
            raise ValueError("an id table does not match its ids")
        self._ids, self._count = ids, count
        self._offsets, self._slots = _int_array(offsets), _int_array(slots)
        self._shift = 32 - bits
        self._added: dict[str, int] = {}
        self._built: dict[str, int] | None = None
        self._lookups = 0
        self._budget = max(64, count // BUILD_AFTER)
        self._on_built = on_built

    def built(self) -> dict[str, int]:
        """The dict of every id (built on the first call)."""
        if self._built is None:
            numbers = dict(zip(self._ids[: self._count], range(self._count)))
            numbers.update(self._added)
            self._built, self._added = numbers, {}
            if self._on_built is not None:
                self._on_built(numbers)
        return self._built

    def _find(self, key: Any) -> int:
        """The number of ``key``, or -1."""
        if self._built is not None:
            return self._built.get(key, -1)
        found = self._added.get(key)  # TypeError for an unhashable key, as a dict
        if found is not None:
            return found
        if not isinstance(key, str):
            return -1
        self._lookups += 1
        if self._lookups > self._budget:
            return self.built().get(key, -1)
        try:
            data = key.encode()
        except UnicodeEncodeError:  # every id here was written as UTF-8
            return -1
        bucket = ((zlib.crc32(data) * _SPREAD) & 0xFFFFFFFF) >> self._shift
        ids, slots = self._ids, self._slots
        for position in range(self._offsets[bucket], self._offsets[bucket + 1]):
            n = slots[position]
            if ids[n] == key:
                return n
        # not in its bucket: the dict says whether it is an id at all, so a damaged table
        # costs time, never an answer (an id about to be added is a miss: the first one of a
        # process builds the dict, as opening did before the table)
        return self.built().get(key, -1)

    def __getitem__(self, key: str) -> int:
        n = self._find(key)
        if n < 0:
            raise KeyError(key)
        return n

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        n = self._find(key)
        return default if n < 0 else n

    def __contains__(self, key: object) -> bool:
        return self._find(key) >= 0

    def __setitem__(self, key: str, value: int) -> None:
        if self._built is not None:
            self._built[key] = value
        else:
            self._added[key] = value

    def __delitem__(self, key: str) -> None:
        del self.built()[key]

    def update(self, *args: Any, **kwargs: int) -> None:  # type: ignore[override]
        """As ``dict.update``, in C: an import of many nodes into an opened memory."""
        (self._built if self._built is not None else self._added).update(*args, **kwargs)

    def __len__(self) -> int:
        if self._built is not None:
            return len(self._built)
        return self._count + len(self._added)

    def __iter__(self) -> Iterator[str]:
        return iter(self.built())

    def agrees(self) -> bool:
        """Whether the stored table is the one :func:`table_arrays` computes from the ids it
        covers (an integrity check: a damaged table would make ids look unknown)."""
        import numpy as np

        offsets, slots = table_arrays(self._ids[: self._count])
        return bool(
            np.array_equal(np.asarray(self._offsets), offsets)
            and np.array_equal(np.asarray(self._slots), slots)
        )


__all__ = ["BUILD_AFTER", "IdTable", "table_arrays", "table_bits"]
