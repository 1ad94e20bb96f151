"""Bit operations for the compiled kernels (numba): LLVM's population count.

Shared by the label kernel (:mod:`theory.solver.label_kernel`) and the n = 7 enumeration kernel
(:mod:`enumerations.compiled`); numba has no popcount of its own.
"""

from __future__ import annotations

from typing import Any

from numba import types
from numba.extending import intrinsic


def _ctpop(typingctx: Any, x: Any) -> Any:
    """LLVM's ctpop (one instruction with POPCNT / AVX-512 VPOPCNTQ), same width as ``x``."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return x(x), codegen


popcount: Any = intrinsic(_ctpop)
"""``popcount(x)`` inside a compiled function: the number of set bits of an integer."""


__all__ = ["popcount"]
