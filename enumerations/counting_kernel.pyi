"""Types of the compiled counting-boundary brute force (enumerations/counting_kernel.pyx)."""

from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]

def counting_boundary(
    rows: Array,
    heads: Array,
    masks: Array,
    evidence: int,
    claims: int,
    out_active: Array,
    out_definition: Array,
    out_criterion: Array,
    out_loopless: Array,
) -> None: ...
