"""Types of the compiled safety kernel (theory/safety/kernel.pyx)."""

from typing import Any, NamedTuple

import numpy as np

Array = np.ndarray[Any, Any]

class Order(NamedTuple):
    comp_nodes: Array
    comp_start: Array
    comp_of: Array
    part_nodes: Array
    part_start: Array
    part_of: Array
    succ_start: Array
    succ: Array

def order(
    is_evidence: Array,
    just_start: Array,
    justs: Array,
    ante_start: Array,
    antes: Array,
    kept: Array,
    active: Array,
) -> Order: ...
def component_inputs(
    bit_of: Array,
    row_of: Array,
    just_start: Array,
    justs: Array,
    ante_start: Array,
    antes: Array,
    kept: Array,
    comp_nodes: Array,
    comp_start: Array,
    comp_of: Array,
) -> tuple[Array, Array, Array, Array]: ...
def critical(
    lo_bit: int,
    hi_bit: int,
    bit_of: Array,
    row_of: Array,
    just_start: Array,
    justs: Array,
    ante_start: Array,
    antes: Array,
    kept: Array,
    active: Array,
    part_nodes: Array,
    part_start: Array,
    part_of: Array,
    succ_start: Array,
    succ: Array,
    crit_items: Array,
    crit_start: Array,
    crit_len: Array,
    top: Array,
) -> bool: ...
def bitset(items: Array) -> int: ...
def ancestors(
    lo_bit: int,
    hi_bit: int,
    ev_start: Array,
    ev_bits: Array,
    pc_start: Array,
    pcomps: Array,
    pool_items: Array,
    pool_words: Array,
    dense: Array,
    anc_start: Array,
    anc_len: Array,
) -> tuple[int, int]: ...
def tally(
    lo_bit: int,
    hi_bit: int,
    crit_lo: int,
    row_of: Array,
    active: Array,
    comp_of: Array,
    crit_items: Array,
    crit_start: Array,
    crit_len: Array,
    top: Array,
    pool_items: Array,
    pool_words: Array,
    dense: Array,
    anc_start: Array,
    anc_len: Array,
    count: Array,
    examples: Array,
    listed: Array,
) -> None: ...
def critical_pairs(
    crit_lo: int,
    row_of: Array,
    active: Array,
    top: Array,
    crit_items: Array,
    crit_start: Array,
    crit_len: Array,
    count: Array,
) -> tuple[Array, Array]: ...
