"""Flat universes: one claim over n evidence items, every monotone support function.

A monotone ``f`` (not constantly false) is the support function of the flat structure
``c <- S`` for each minimal true set ``S`` of ``f`` (its minimal justifications). For an
audit ``R ⊆ E`` of evidence:

- exact revision keeps ``c`` iff ``f(E \\ R)`` (some justification avoids ``R``);
- influence revision keeps ``c`` iff ``R`` misses every antecedent of ``c``, i.e. the union
  ``U`` of the minimal justifications (the essential variables of ``f``).

Indexing audits by what they leave, ``X = E \\ R``, each rule is one *survival word*: bit
``X`` set iff ``c`` is still active after auditing ``E \\ X``. For all 2**n audits at once:
exact survival is the table ``T`` itself, influence survival is ``AND_{i in U} x_i``. The
rules agree on every audit iff the two words are equal. Minimal points, ``U`` and the
comparison are a few word operations, vectorised with numpy over all functions of a shard.

Tallies per n (docs/design.md section 4): ``monotone_functions`` (all, = Dedekind number),
``unique_minimal`` and ``influence_exact`` (among the claims active on full evidence),
``theorem_holds`` (for every function: agreement on every audit <=> exactly one minimal
justification). A function that breaks the theorem is reported as a counterexample with its
minimal justifications and a witness audit; it is never silently counted.

Rules are injectable (``exact=``, ``influence=``) so a deliberately wrong rule can be shown to
produce counterexamples (see :mod:`enumerations.mutants`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

from enumerations.monotone import (
    U64,
    WORD_VARIABLES,
    block_bounds,
    default_block,
    monotone_tables,
    pair_block,
    seven_rows,
    valid_mask,
    variable_word,
)
from theory.testing.truthtable import item_name as evidence_name  # noqa: F401  (one naming)
from theory.testing.truthtable import point_names

# survival rule: (tables, minimal points, n, workspace or None) -> survival words
SurvivalRule = Callable[..., tuple]

MAX_COUNTEREXAMPLES = 10
CHUNK = 1 << 16  # tables per kernel call (cache-sized temporaries; measured 2^12..2^16)


# --- word kernels -------------------------------------------------------------------------
# A batch of tables is a tuple of ``words(n)`` contiguous uint64 arrays (word w of every
# table), so the two-word tables of n = 7 stay as fast as the one-word ones.
#
# The kernels write into a preallocated :class:`Workspace` (``out=`` everywhere): no array
# is allocated per batch. That matters beyond speed in this process: Dask workers run with
# ``MALLOC_TRIM_THRESHOLD_`` set, where every fresh temporary of a few hundred KiB is a new
# mmap and page faults, and an allocating kernel is several times slower there.
Words = tuple  # tuple[np.ndarray, ...]


class Workspace:
    """Scratch arrays for batches of up to ``size`` tables of ``W`` words."""

    def __init__(self, size: int, W: int):
        self.size, self.W = size, W
        self.tmp = np.empty(size, dtype=U64)
        self.tmp2 = np.empty(size, dtype=U64)
        self.any = np.empty(size, dtype=U64)
        self.covered = np.empty(size, dtype=U64)
        self.minimal = [np.empty(size, dtype=U64) for _ in range(W)]
        self.survive = [np.empty(size, dtype=U64) for _ in range(W)]
        self.ess = [np.empty(size, dtype=bool) for _ in range(WORD_VARIABLES + W.bit_length() - 1)]
        self.flags = [np.empty(size, dtype=bool) for _ in range(5)]
        self.count = np.empty(size, dtype=np.uint8)
        self.count2 = np.empty(size, dtype=np.uint8)


_LOCAL = threading.local()  # workspaces are per thread: Dask runs shards in threads


def workspace(size: int, W: int) -> Workspace:
    """A workspace for ``size`` tables: cached per process for the usual batches (at most
    ``CHUNK`` tables), fresh for a larger one-off batch."""
    if size > CHUNK:
        return Workspace(size, W)
    cache = getattr(_LOCAL, "workspaces", None)
    if cache is None:
        cache = _LOCAL.workspaces = {}
    found = cache.get(W)
    if found is None or found.size != CHUNK:
        found = cache[W] = Workspace(CHUNK, W)
    return found


def _ws(tables: Words, ws: Workspace | None) -> Workspace:
    return ws if ws is not None else Workspace(len(tables[0]), len(tables))


def minimal_points(tables: Words, n: int, ws: Workspace | None = None) -> Words:
    """Per table, the word(s) of its minimal true points: ``T[R]`` and ``not T[R - i]``
    for every ``i in R``."""
    ws = _ws(tables, ws)
    N, W = len(tables[0]), len(tables)
    tmp, covered = ws.tmp[:N], ws.covered[:N]
    out = []
    for w, column in enumerate(tables):
        covered.fill(0)
        for i in range(min(n, WORD_VARIABLES)):
            np.left_shift(column, U64(1 << i), out=tmp)
            np.bitwise_and(tmp, variable_word(i), out=tmp)
            np.bitwise_or(covered, tmp, out=covered)
        for j in range(W.bit_length() - 1):  # variable 6 + j selects the word
            if w >> j & 1:
                np.bitwise_or(covered, tables[w ^ (1 << j)], out=covered)
        result = ws.minimal[w][:N]
        np.invert(covered, out=covered)
        np.bitwise_and(column, covered, out=result)
        out.append(result)
    return tuple(out)


def essential(minimal: Words, n: int, ws: Workspace | None = None) -> list[np.ndarray]:
    """Per variable, whether it lies in some minimal point (is an antecedent of ``c``)."""
    ws = _ws(minimal, ws)
    N, W = len(minimal[0]), len(minimal)
    if W == 1:
        any_minimal = minimal[0]
    else:
        any_minimal = ws.any[:N]
        np.bitwise_or(minimal[0], minimal[1], out=any_minimal)
        for w in range(2, W):
            np.bitwise_or(any_minimal, minimal[w], out=any_minimal)
    tmp = ws.tmp[:N]
    result = []
    for i in range(min(n, WORD_VARIABLES)):
        np.bitwise_and(any_minimal, variable_word(i), out=tmp)
        result.append(np.not_equal(tmp, U64(0), out=ws.ess[i][:N]))
    for j in range(W.bit_length() - 1):
        upper = [minimal[w] for w in range(W) if w >> j & 1]
        np.copyto(tmp, upper[0])
        for word in upper[1:]:
            np.bitwise_or(tmp, word, out=tmp)
        result.append(np.not_equal(tmp, U64(0), out=ws.ess[WORD_VARIABLES + j][:N]))
    return result


def exact_survival(tables: Words, minimal: Words, n: int, ws: Workspace | None = None) -> Words:
    """Exact revision: after auditing ``E \\ X`` the claim survives iff ``f(X)``."""
    return tables


def influence_survival(tables: Words, minimal: Words, n: int, ws: Workspace | None = None) -> Words:
    """Influence revision: the claim survives iff the audit misses all its antecedents,
    i.e. ``X`` contains every variable of every minimal justification."""
    ws = _ws(tables, ws)
    N, W = len(tables[0]), len(tables)
    ess = essential(minimal, n, ws)
    inside = ws.survive[W - 1][:N]  # the top word needs no word-variable mask
    inside.fill(valid_mask(n))
    tmp = ws.tmp[:N]
    for i in range(min(n, WORD_VARIABLES)):
        # where variable i is an antecedent, X must contain i: AND with P_i, else with all
        np.copyto(tmp, ess[i], casting="unsafe")  # 1 / 0
        np.subtract(tmp, U64(1), out=tmp)  # 0 / all ones
        np.bitwise_or(tmp, variable_word(i), out=tmp)  # P_i / all ones
        np.bitwise_and(inside, tmp, out=inside)
    word_vars = ess[WORD_VARIABLES:]
    out = []
    for w in range(W):
        missing = [e for j, e in enumerate(word_vars) if not w >> j & 1]
        if not missing:
            out.append(inside)
            continue
        blocked = ws.flags[0][:N]
        np.copyto(blocked, missing[0])
        for e in missing[1:]:
            np.logical_or(blocked, e, out=blocked)
        target = ws.survive[w][:N]
        np.copyto(tmp, blocked, casting="unsafe")
        np.subtract(tmp, U64(1), out=tmp)  # blocked word: 0, else all ones
        np.bitwise_and(inside, tmp, out=target)
        out.append(target)
    return tuple(out)


def active_flags(tables: Words, n: int, ws: Workspace | None = None) -> np.ndarray:
    """``f(E)``: the claim is active on full evidence."""
    ws = _ws(tables, ws)
    N = len(tables[0])
    top = (1 << n) - 1
    tmp = ws.tmp2[:N]
    np.right_shift(tables[top // 64], U64(top % 64), out=tmp)
    np.bitwise_and(tmp, U64(1), out=tmp)
    return np.not_equal(tmp, U64(0), out=ws.flags[1][:N])


# --- tallies ------------------------------------------------------------------------------
@dataclass
class Counterexample:
    n: int
    minimal_justifications: list[list[str]]
    audit: list[str] | None
    exact_retires: bool | None
    influence_retires: bool | None
    problem: str

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class FlatTally:
    n: int
    monotone_functions: int = 0
    active: int = 0
    unique_minimal: int = 0
    influence_exact: int = 0
    mismatches: int = 0
    counterexamples: list[Counterexample] = field(default_factory=list)
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # CPU time of the shard threads (robust to a shared machine)
    # n = 7: CPU time with the per-b1 candidate build charged pro rata to the rows sharing
    # it (what the rows cost in a full run, where shards are contiguous row ranges)
    amortized_cpu_seconds: float = 0.0
    shards: int = 0

    @property
    def theorem_holds(self) -> bool:
        return self.mismatches == 0

    def merge(self, other: "FlatTally", limit: int = MAX_COUNTEREXAMPLES) -> "FlatTally":
        if other.n != self.n:
            raise ValueError("cannot merge tallies of different n")
        self.monotone_functions += other.monotone_functions
        self.active += other.active
        self.unique_minimal += other.unique_minimal
        self.influence_exact += other.influence_exact
        self.mismatches += other.mismatches
        room = limit - len(self.counterexamples)
        self.counterexamples.extend(other.counterexamples[: max(0, room)])
        self.shards += other.shards
        self.cpu_seconds += other.cpu_seconds
        self.amortized_cpu_seconds += other.amortized_cpu_seconds
        return self

    def to_dict(self) -> dict:
        return {
            "n": self.n,
            "monotone_functions": self.monotone_functions,
            "unique_minimal": self.unique_minimal,
            "influence_exact": self.influence_exact,
            "theorem_holds": self.theorem_holds,
            "seconds": round(self.seconds, 6),
            "cpu_seconds": round(self.cpu_seconds, 6),
            "active": self.active,
            "mismatches": self.mismatches,
            "counterexamples": [c.to_dict() for c in self.counterexamples],
        }


def table_int(tables: Words, k: int) -> int:
    return sum(int(column[k]) << (64 * w) for w, column in enumerate(tables))


def describe_counterexample(
    n: int, k: int, minimal: Words, exact: Words, influence: Words
) -> Counterexample:
    """The counterexample of table ``k`` of a batch: its minimal justifications and the
    smallest audit on which exact and influence revision disagree, or, when they agree
    everywhere, the theorem's witness audit {e} for e in one justification and not another."""
    full = (1 << n) - 1
    m = table_int(minimal, k)
    points = [p for p in range(1 << n) if m >> p & 1]
    justifications = sorted((point_names(p) for p in points), key=lambda s: (len(s), s))
    ex, inf = table_int(exact, k), table_int(influence, k)
    differ = ex ^ inf
    if differ:
        # the smallest disagreeing audit: the X with the most evidence left
        x = max((p for p in range(1 << n) if differ >> p & 1), key=lambda p: (p.bit_count(), p))
        audit = full & ~x
        # (a mismatch with differing words has agree = False, hence exactly one justification)
        problem = "unique minimal justification, yet the rules disagree on this audit"
    else:
        # the theorem's witness: e in S1 \ S2 for two distinct minimal justifications
        first, second = points[0], points[1]
        e = ((first & ~second) & -(first & ~second)).bit_length() - 1
        audit = 1 << e
        x = full & ~audit
        problem = (
            f"{len(points)} minimal justifications, yet the rules agree on every audit "
            f"(including the witness)"
        )
    return Counterexample(
        n=n,
        minimal_justifications=justifications,
        audit=point_names(audit),
        exact_retires=not (ex >> x & 1),
        influence_retires=not (inf >> x & 1),
        problem=problem,
    )


def tally_tables(
    tables: Words,
    n: int,
    exact: SurvivalRule = exact_survival,
    influence: SurvivalRule = influence_survival,
    limit: int = MAX_COUNTEREXAMPLES,
) -> FlatTally:
    """Vectorised check of every function in ``tables`` (a tuple of ``words(n)`` arrays)."""
    N, W = len(tables[0]), len(tables)
    ws = workspace(N, W)
    minimal = minimal_points(tables, n, ws)
    active = active_flags(tables, n, ws)
    # the default rules share the workspace; an injected rule gets none (so it cannot
    # overwrite the other rule's words) and allocates its own
    ex = exact(tables, minimal, n, ws if exact is exact_survival else None)
    inf = influence(tables, minimal, n, ws if influence is influence_survival else None)
    agree, unique, bad = ws.flags[2][:N], ws.flags[3][:N], ws.flags[4][:N]
    np.equal(ex[0], inf[0], out=agree)
    count = np.bitwise_count(minimal[0], out=ws.count[:N])
    for w in range(1, W):
        np.equal(ex[w], inf[w], out=bad)
        np.logical_and(agree, bad, out=agree)
        np.add(count, np.bitwise_count(minimal[w], out=ws.count2[:N]), out=count)
    np.equal(count, 1, out=unique)
    np.not_equal(agree, unique, out=bad)
    np.logical_and(bad, active, out=bad)
    mismatches = int(np.count_nonzero(bad))
    if mismatches:  # before the flags are reused below
        witnesses = [
            describe_counterexample(n, int(k), minimal, ex, inf)
            for k in np.flatnonzero(bad)[:limit]
        ]
    np.logical_and(unique, active, out=unique)
    np.logical_and(agree, active, out=agree)
    result = FlatTally(
        n=n,
        monotone_functions=int(len(tables[0])),
        active=int(np.count_nonzero(active)),
        unique_minimal=int(np.count_nonzero(unique)),
        influence_exact=int(np.count_nonzero(agree)),
        mismatches=mismatches,
        shards=1,
    )
    if mismatches:
        result.counterexamples.extend(witnesses)
    return result


# --- shards -------------------------------------------------------------------------------
def lower_tables(n: int) -> np.ndarray:
    """The (n-1)-variable functions whose pairs make up the n-variable ones."""
    return monotone_tables(n - 1)


def shard_count_rows(n: int) -> int:
    """Number of ``f1`` rows (shard units) for n (1 for n = 0)."""
    return 1 if n == 0 else len(lower_tables(n))


def flat_shard(
    n: int,
    start: int,
    stop: int,
    exact: SurvivalRule = exact_survival,
    influence: SurvivalRule = influence_survival,
    limit: int = MAX_COUNTEREXAMPLES,
) -> FlatTally:
    """Check every n-variable function whose ``f1`` index lies in ``[start, stop)``.

    A pure function of its arguments (rules are module-level callables), so it runs the
    same in-process, in a process pool or on a Dask worker.
    """
    lower = lower_tables(n) if n else None  # built once per process, not timed here
    if n == 7:
        seven_rows()
    began, began_cpu = time.perf_counter(), time.thread_time()
    result = FlatTally(n=n)
    if n == 0:
        if start <= 0 < stop:
            result.merge(tally_tables((monotone_tables(0),), 0, exact, influence, limit), limit)
    else:
        assert lower is not None  # n >= 1 here
        block = default_block(len(lower))
        builds: dict[int, tuple[float, int]] = {}  # n = 7: b1 -> (build CPU s, rows here)
        if n == 7:
            seven_rows().forget()  # every shard pays for its own candidate builds
        for a in range(start, stop, block):
            if n == 7:  # block is one row here
                rows = seven_rows()
                b1 = rows.high_of(a)
                cost, count = builds.get(b1, (0.0, 0))
                if rows.cached_b1 != b1:
                    before = time.thread_time()
                    rows.candidates(b1)
                    cost += time.thread_time() - before
                builds[b1] = (cost, count + 1)
                tables: Words = rows.row(a)
            else:
                tables = pair_block(lower, n, a, min(a + block, stop))
            size = len(tables[0])
            for c in range(0, size, CHUNK):  # cache-sized pieces: the kernel is many passes
                piece = tuple(column[c : c + CHUNK] for column in tables)
                result.merge(tally_tables(piece, n, exact, influence, limit), limit)
    result.shards = 1
    result.seconds = time.perf_counter() - began
    result.cpu_seconds = time.thread_time() - began_cpu
    result.amortized_cpu_seconds = result.cpu_seconds
    if n == 7:
        sizes = seven_rows().sizes
        for b1, (cost, count) in builds.items():
            result.amortized_cpu_seconds += cost * (min(1.0, count / int(sizes[b1])) - 1.0)
    return result


def plan_shards(n: int, pieces: int) -> list[tuple[int, int]]:
    """Split the ``f1`` rows of n into about ``pieces`` contiguous shards of similar work.

    Work per row is the number of ``f0 <= f1``, which grows with ``f1``; shards are cut at
    equal cumulative work, not equal row counts.
    """
    rows = shard_count_rows(n)
    pieces = max(1, min(pieces, rows))
    if n == 0 or pieces == 1:
        return [(0, rows)]
    if n == 7:  # per-row work is unknown without doing it: equal row counts
        return block_bounds(rows, -(-rows // pieces))
    work = _row_work(lower_tables(n)).cumsum()
    total = int(work[-1])
    cuts = np.searchsorted(work, [total * k / pieces for k in range(1, pieces)])
    edges = sorted({0, *(int(c) + 1 for c in cuts), rows})
    return [(a, b) for a, b in zip(edges, edges[1:]) if a < b]


def _row_work(lower: np.ndarray) -> np.ndarray:
    narrow = lower.astype(np.uint32)
    out = np.empty(len(lower), dtype=np.int64)
    for a, b in block_bounds(len(lower), 256):
        out[a:b] = np.count_nonzero((narrow[None, :] & ~narrow[a:b, None]) == 0, axis=1)
    return out


def tally_n(
    n: int,
    exact: SurvivalRule = exact_survival,
    influence: SurvivalRule = influence_survival,
    limit: int = MAX_COUNTEREXAMPLES,
) -> FlatTally:
    """Every n-variable function (``n <= 6``), in this process."""
    began = time.perf_counter()
    result = flat_shard(n, 0, shard_count_rows(n), exact, influence, limit)
    result.seconds = time.perf_counter() - began
    return result
