"""Types of the compiled audit planner (jtms/engine/retract_kernel.pyx)."""

from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]

IN_Z: int
QUEUED: int
ROOT: int
TURNED: int
OUT: int
DERIVED: int
NO_RANK: int

def plan_arrays(
    roots: Array,
    active: Array,
    support: Array,
    rank: Array,
    pointer: Array,
    is_evidence: Array,
    j_offs: Array,
    j_items: Array,
    w_offs: Array,
    w_items: Array,
    a_offs: Array,
    a_items: Array,
    just_claim: Array,
) -> tuple[Array, Array, Array, Array, Array, Array, Array, int, int]: ...
def plan_retract(
    roots: tuple[int, ...],
    active: bytearray,
    support: Any,
    rank: Any,
    pointer: bytearray,
    is_evidence: bytearray,
    justs: tuple[Any, Any],
    watchers: tuple[Any, Any],
    antecedents: tuple[Any, Any],
    just_claim: Any,
) -> tuple[tuple[int, ...], Array, Array, Array, int, int]: ...
