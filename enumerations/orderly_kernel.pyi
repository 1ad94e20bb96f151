"""Types of the compiled orderly extension loop (enumerations/orderly_kernel.pyx)."""

from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]

def extend_rows(parents: Array, maps: Array, out_rows: Array, out_aut: Array) -> int: ...
