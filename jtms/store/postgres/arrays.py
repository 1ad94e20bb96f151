"""Integer arrays sent to PostgreSQL in its binary array format.

An audit stores hundreds of node numbers, justification numbers and ranks as ``integer[]``
and ``bigint[]`` parameters. Written as text (``{1,2,3}``), each number is formatted in
Python and parsed again by the server's ``array_in``. In the binary format the array is one
header and, per element, its length (4) and its value in network byte order: numpy writes
all of it in one operation and the server copies it.

Usage: wrap the numbers (``IntArray(numbers)`` for ``integer[]``, ``BigIntArray(numbers)``
for ``bigint[]``) and pass them as a query parameter of a connection that :func:`register`
has prepared; the statement needs no cast.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import Any

import psycopg
from psycopg.adapt import Dumper
from psycopg.pq import Format

# type oids (pg_type): int4 and its array, int8 and its array
_INT4, _INT4_ARRAY, _INT8, _INT8_ARRAY = 23, 1007, 20, 1016
_HEADER = struct.Struct(">iiiii")  # dimensions, has nulls, element oid, length, lower bound


class IntArray:
    """``numbers`` as a one-dimensional ``integer[]``, encoded at once. A number out of the
    type's range raises :class:`OverflowError`.

    >>> IntArray([1, 2, 3]).data[-8:]
    b'\\x00\\x00\\x00\\x04\\x00\\x00\\x00\\x03'
    """

    __slots__ = ("data",)
    _SIZE, _ELEMENT = 4, _INT4

    def __init__(self, numbers: Iterable[int]) -> None:
        import numpy as np

        values = np.fromiter(numbers, dtype=np.int64)
        size = self._SIZE
        if size == 4 and len(values) and (values.min() < -(1 << 31) or values.max() >= 1 << 31):
            raise OverflowError("a number out of the range of integer")
        body = np.empty(len(values), dtype=[("size", ">i4"), ("value", f">i{size}")])
        body["size"] = size
        body["value"] = values
        # an empty array has no dimensions in PostgreSQL's binary format
        header = (
            _HEADER.pack(1, 0, self._ELEMENT, len(values), 1)
            if len(values)
            else struct.pack(">iii", 0, 0, self._ELEMENT)
        )
        self.data = header + body.tobytes()


class BigIntArray(IntArray):
    """``numbers`` as a one-dimensional ``bigint[]``."""

    __slots__ = ()
    _SIZE, _ELEMENT = 8, _INT8


class _IntArrayDumper(Dumper):
    format = Format.BINARY
    oid = _INT4_ARRAY

    def dump(self, obj: Any) -> bytes:
        return obj.data  # type: ignore[no-any-return]


class _BigIntArrayDumper(_IntArrayDumper):
    oid = _INT8_ARRAY


def register(connection: psycopg.Connection[Any]) -> None:
    """Let ``connection`` send :class:`IntArray` and :class:`BigIntArray` parameters."""
    connection.adapters.register_dumper(IntArray, _IntArrayDumper)
    connection.adapters.register_dumper(BigIntArray, _BigIntArrayDumper)


__all__ = ["BigIntArray", "IntArray", "register"]
