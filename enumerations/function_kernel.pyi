"""Types of the compiled n <= 7 kernel (enumerations/function_kernel.pyx)."""

from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]

INSTRUCTIONS: str

def rows_kernel(
    k: int,
    start: int,
    stop: int,
    tables: Array,
    minimal: Array,
    down_off: Array,
    down_idx: Array,
    down_tab: Array,
    down_min: Array,
    meet: Array,
    row_b0: Array,
    row_b1: Array,
    counts: Array,
    bad: Array,
) -> int: ...
def row_sizes(
    start: int,
    stop: int,
    down_off: Array,
    down_idx: Array,
    meet: Array,
    row_b0: Array,
    row_b1: Array,
    out: Array,
) -> None: ...
