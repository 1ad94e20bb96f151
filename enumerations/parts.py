"""The full n = 7 run in row ranges: resumable part files and their verified merge.

A *part* is the compiled kernel (:mod:`enumerations.compiled`) run over a range of rows
``[A, B)`` of the 7,828,354 n = 7 rows (a row is one ``g1`` of the D(6) list). It is saved
as a JSON *part file* that records which rows are done (a list of disjoint intervals) and
the tallies of exactly those rows. The file is rewritten atomically after every chunk, so
a run that is interrupted (killed, machine restarted) loses at most the chunks in flight:
started again with the same ``--rows`` and ``--out``, it checks only the rows still missing.

The merge reads any number of part files and verifies, before adding anything up, that
their done intervals cover every row exactly once (no gap, no overlap) and that the total
number of functions is the Dedekind number D(7) = 2,414,682,040,998.

Chunks are cut at equal work (functions per row, from the kernel's outer loops), so the
progress and ETA are in functions and the chunks of a process pool or Dask cluster take
similar times.
"""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from enumerations.executor import ShardExecutor
from enumerations.flat import MAX_COUNTEREXAMPLES, Counterexample, FlatTally
from enumerations.monotone import DEDEKIND

PART_KIND = "jtms-enumerate-n7-part"
PART_VERSION = 1
N = 7
CHUNK_FUNCTIONS = 400_000_000  # about a second of kernel time per chunk

# progress(done functions, total functions)
Progress = Callable[[int, int], None]
Interval = tuple[int, int]


class PartError(ValueError):
    """A part file that cannot be used (unreadable, malformed, for other rows)."""


def save_json_atomically(path: str | os.PathLike, data: dict) -> None:
    """Write ``data`` as JSON atomically (temporary file + rename): a crash never leaves half
    a file. Shared by the n = 7 parts and the graph parts."""
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(temporary, path)


class Malformed(ValueError):
    """A field of a part file that is not what :meth:`to_dict` writes (becomes a
    :class:`PartError` naming the file)."""


def malformed(path: Path, error: Exception) -> PartError:
    """The one line for a part file whose content is unusable."""
    detail = str(error) if isinstance(error, Malformed) else f"{type(error).__name__}: {error}"
    return PartError(f"{path}: malformed part file ({detail[:200]})")


def strict_int(value: object, name: str, low: int = 0, high: int | None = None) -> int:
    """``value`` if it is a JSON integer (not a bool, not a float) in ``[low, high]``."""
    if type(value) is not int:
        raise Malformed(f"{name} must be an integer, got {str(value)[:40]!r}")
    if value < low or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise Malformed(f"{name} must be {bound}, got {value}")
    return value


def strict_seconds(value: object, name: str) -> float:
    """A non-negative finite number of seconds (an integer or a float, not a bool)."""
    if type(value) not in (int, float) or not 0 <= value < float("inf"):  # type: ignore[operator]
        raise Malformed(f"{name} must be a non-negative number, got {str(value)[:40]!r}")
    return float(value)  # type: ignore[arg-type]


def strict_intervals(value: object, name: str, low: int, high: int) -> list[Interval]:
    """A list of ``[a, b]`` integer pairs with ``low <= a < b <= high`` that do not overlap,
    normalised (sorted, adjacent ones joined)."""
    if not isinstance(value, list):
        raise Malformed(f"{name} must be a list of [start, stop] pairs")
    pairs = []
    for item in value:
        if not isinstance(item, list) or len(item) != 2:
            raise Malformed(f"{name} must be a list of [start, stop] pairs, got {str(item)[:40]}")
        a = strict_int(item[0], f"{name} start", low, high)
        b = strict_int(item[1], f"{name} stop", low, high)
        if a >= b:
            raise Malformed(f"{name} has an empty interval [{a}, {b}]")
        pairs.append((a, b))
    pairs.sort()
    for (_, b), (c, _) in zip(pairs, pairs[1:]):
        if c < b:
            raise Malformed(f"{name} intervals overlap")
    return normalise(pairs)


def read_part_file(path: Path, kind: str, what: str) -> dict:
    """The JSON object of a part file of ``kind`` (:class:`PartError` on anything unusable).

    Only a regular file (or a symbolic link to one) is a part file: it is read back to
    resume, so a FIFO or a device (``/dev/null``) is refused, never read."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise PartError(f"{path}: no such part file") from None
    except OSError as error:
        raise PartError(f"{path}: not a readable part file ({error})") from None
    if not stat.S_ISREG(info.st_mode):
        raise PartError(f"{path}: not a regular file (a part file is read back to resume)")
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise PartError(f"{path}: no such part file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise PartError(f"{path}: not a readable part file ({error})") from None
    except (ValueError, RecursionError, MemoryError) as error:
        # JSONDecodeError, too deep a nesting, an integer of thousands of digits
        raise malformed(path, error) from None
    if not isinstance(data, dict) or data.get("kind") != kind:
        raise PartError(f"{path}: not {what} (kind {kind!r} expected)")
    return data


def rows_total() -> int:
    from enumerations.compiled import quarter_tables

    return quarter_tables(N).rows


def parse_rows(text: str, total: int) -> Interval:
    """``"A:B"`` (either side may be empty) as a checked row interval ``[A, B)``."""
    if text.count(":") != 1:
        raise ValueError(f"--rows must be A:B, got {text!r}")
    left, right = (side.strip() for side in text.split(":"))
    # ASCII digits only, as every other number option: int() also reads "١٠" and "1_0"
    if any(
        side and not (side.isascii() and side.isdigit() and len(side) <= 18)
        for side in (left, right)
    ):
        raise ValueError(f"--rows must be A:B with whole numbers, got {text[:80]!r}")
    start = int(left) if left else 0
    stop = int(right) if right else total
    if not 0 <= start < stop <= total:
        raise ValueError(f"--rows must satisfy 0 <= A < B <= {total:,}, got {text!r}")
    return start, stop


def normalise(intervals: Sequence[Sequence[int]]) -> list[Interval]:
    """Sorted, with adjacent intervals joined (overlaps are an error, see :func:`coverage`)."""
    out: list[list[int]] = []
    for a, b in sorted((int(a), int(b)) for a, b in intervals):
        if out and out[-1][1] == a:
            out[-1][1] = b
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def subtract(span: Interval, done: Sequence[Interval]) -> list[Interval]:
    """The parts of ``span`` not in ``done``."""
    missing, cursor = [], span[0]
    for a, b in sorted(done):
        if b <= cursor or a >= span[1]:
            continue
        if a > cursor:
            missing.append((cursor, a))
        cursor = max(cursor, b)
    if cursor < span[1]:
        missing.append((cursor, span[1]))
    return missing


@dataclass
class Coverage:
    """How a set of intervals covers ``[0, total)``."""

    total: int
    gaps: list[Interval] = field(default_factory=list)
    overlaps: list[Interval] = field(default_factory=list)

    @property
    def exact(self) -> bool:
        return not self.gaps and not self.overlaps

    @property
    def rows_covered(self) -> int:
        return self.total - sum(b - a for a, b in self.gaps)


def coverage(intervals: Sequence[Interval], total: int) -> Coverage:
    """Gaps and overlaps of ``intervals`` (from any number of parts) over ``[0, total)``."""
    result = Coverage(total)
    cursor = 0
    for a, b in sorted(intervals):
        if a < 0 or b > total or a >= b:
            result.overlaps.append((a, b))  # out of range or empty: never a valid cover
            continue
        if a > cursor:
            result.gaps.append((cursor, a))
        elif a < cursor:
            result.overlaps.append((a, min(b, cursor)))
        cursor = max(cursor, b)
    if cursor < total:
        result.gaps.append((cursor, total))
    return result


# --- part files ---------------------------------------------------------------------------
@dataclass
class Part:
    """The state of one row range: what is done and the tallies of exactly those rows."""

    rows: Interval
    done: list[Interval] = field(default_factory=list)
    tally: FlatTally = field(default_factory=lambda: FlatTally(n=N))
    cpu_seconds: float = 0.0  # kernel CPU time of the done chunks (all sessions)
    wall_seconds: float = 0.0  # wall-clock of the sessions that worked on it
    sessions: int = 0
    path: Path | None = None

    @property
    def missing(self) -> list[Interval]:
        return subtract(self.rows, self.done)

    @property
    def complete(self) -> bool:
        return not self.missing

    def to_dict(self) -> dict:
        t = self.tally
        return {
            "kind": PART_KIND,
            "version": PART_VERSION,
            "n": N,
            "rows": list(self.rows),
            "rows_total": rows_total(),
            "done": [list(i) for i in self.done],
            "complete": self.complete,
            "rows_done": sum(b - a for a, b in self.done),
            "functions_checked": t.monotone_functions,
            "active": t.active,
            "unique_minimal": t.unique_minimal,
            "influence_exact": t.influence_exact,
            "mismatches": t.mismatches,
            "theorem_holds": t.theorem_holds,
            "counterexamples": [c.to_dict() for c in t.counterexamples],
            "cpu_seconds": round(self.cpu_seconds, 3),
            "core_hours": round(self.cpu_seconds / 3600, 4),
            "wall_seconds": round(self.wall_seconds, 3),
            "sessions": self.sessions,
            "kernel": _kernel_name(),
        }

    def save(self, path: Path) -> None:
        """Write atomically (temporary file + rename): a crash never leaves half a file."""
        save_json_atomically(path, self.to_dict())


def _kernel_name() -> str:
    """The kernel that checks a part: the C kernel and the instructions it runs with here
    (``c-avx512``, ``c-avx2``, ``c-baseline``)."""
    from enumerations._monotone import INSTRUCTIONS

    return f"c-{INSTRUCTIONS}"


def load_part(path: str | os.PathLike) -> Part:
    """Read and validate a part file (:class:`PartError` on anything unusable).

    Every count and row bound must be a JSON integer (a float or a bool is refused, never
    truncated), the done intervals must lie within the part's rows and not overlap, and the
    tallies must be able to add up: no count is negative or above the functions checked,
    and the functions checked are exactly those of the done rows."""
    path = Path(path)
    data = read_part_file(path, PART_KIND, "an n = 7 part file")
    if type(data.get("version")) is not int or data.get("version") != PART_VERSION:
        raise PartError(f"{path}: unsupported part file version {data.get('version')!r}")
    if type(data.get("n")) is not int or data.get("n") != N:
        raise PartError(f"{path}: not an n = 7 part file (n {data.get('n')!r})")
    total = rows_total()
    try:
        bounds = data["rows"]
        if not isinstance(bounds, list) or len(bounds) != 2:
            raise Malformed("rows must be a [start, stop] pair")
        rows = (
            strict_int(bounds[0], "rows start", 0, total),
            strict_int(bounds[1], "rows stop", 0, total),
        )
        if rows[0] >= rows[1]:
            raise Malformed(f"rows {rows[0]}:{rows[1]} is empty")
        done = strict_intervals(data["done"], "done", rows[0], rows[1])
        functions = strict_int(data["functions_checked"], "functions_checked")
        counts = {
            name: strict_int(data[name], name, 0, functions)
            for name in ("active", "unique_minimal", "influence_exact", "mismatches")
        }
        examples = data["counterexamples"]
        if not isinstance(examples, list) or not all(isinstance(c, dict) for c in examples):
            raise Malformed("counterexamples must be a list of objects")
        tally = FlatTally(
            n=N,
            monotone_functions=functions,
            counterexamples=[Counterexample(**c) for c in examples],
            **counts,
        )
        part = Part(
            rows,
            done,
            tally,
            strict_seconds(data["cpu_seconds"], "cpu_seconds"),
            strict_seconds(data["wall_seconds"], "wall_seconds"),
            strict_int(data["sessions"], "sessions"),
            path,
        )
        expected = done_functions(done)
        if functions != expected:
            raise Malformed(
                f"functions_checked {functions} is not the {expected} functions of the done rows"
            )
    except KeyError as error:
        raise PartError(f"{path}: malformed part file (no {error} field)") from None
    except (TypeError, ValueError, IndexError, AttributeError, OverflowError) as error:
        raise malformed(path, error) from None
    return part


def done_functions(done: Sequence[Interval]) -> int:
    """The number of monotone functions of the rows in ``done``."""
    from enumerations.compiled import row_function_counts

    return sum(int(row_function_counts(N, a, b).sum()) for a, b in done)


# --- running ------------------------------------------------------------------------------
def chunk_rows(
    intervals: Sequence[Interval],
    sizes_of: Callable[[int, int], np.ndarray],
    target: int = CHUNK_FUNCTIONS,
) -> list[tuple[int, int, int]]:
    """Cut each interval into chunks ``(start, stop, functions)`` of about ``target``
    functions (at least one row each)."""
    chunks = []
    for a, b in intervals:
        sizes = sizes_of(a, b)
        cumulative = np.cumsum(sizes)
        start = a
        while start < b:
            base = int(cumulative[start - a - 1]) if start > a else 0
            stop = int(np.searchsorted(cumulative, base + target, side="left")) + a + 1
            stop = min(b, max(start + 1, stop))
            chunks.append((start, stop, int(cumulative[stop - a - 1]) - base))
            start = stop
    return chunks


def n7_chunk(start: int, stop: int, limit: int = MAX_COUNTEREXAMPLES) -> tuple[int, int, FlatTally]:
    """One chunk on a worker (module-level, picklable): ``(start, stop, tally)``."""
    from enumerations.compiled import compiled_shard

    return start, stop, compiled_shard(N, start, stop, limit)


def run_part(
    rows: Interval,
    out: str | os.PathLike,
    executor: ShardExecutor,
    *,
    progress: Progress | None = None,
    target: int = CHUNK_FUNCTIONS,
    limit: int = MAX_COUNTEREXAMPLES,
    checkpoint_seconds: float = 5.0,
) -> Part:
    """Check rows ``[A, B)`` into the part file ``out``, resuming it when it exists.

    An existing file must be for the same rows (:class:`PartError` otherwise); its done rows
    are skipped. The file is saved after the first chunk, then at most every
    ``checkpoint_seconds`` and at the end (and when interrupted, with what is done).
    """
    from enumerations.compiled import row_function_counts

    out = Path(out)
    if out.exists():
        part = load_part(out)
        if part.rows != tuple(rows):
            raise PartError(
                f"{out} holds rows {part.rows[0]}:{part.rows[1]}, not "
                f"{rows[0]}:{rows[1]}: use another --out or the same --rows"
            )
    else:
        part = Part(tuple(rows))  # type: ignore[arg-type]
    part.path = out
    part.sessions += 1
    missing = part.missing
    began = time.perf_counter()
    wall_before = part.wall_seconds
    if not missing:
        return part
    chunks = chunk_rows(missing, lambda a, b: row_function_counts(N, a, b), target)
    todo = sum(c[2] for c in chunks)
    finished = 0
    last_save = 0.0
    try:
        for start, stop, tally in executor.map(n7_chunk, [(a, b, limit) for a, b, _ in chunks]):
            part.tally.merge(tally, limit)
            part.cpu_seconds += tally.cpu_seconds
            part.done = normalise([*part.done, (start, stop)])
            finished += tally.monotone_functions
            now = time.perf_counter()
            part.wall_seconds = wall_before + now - began
            if now - last_save >= checkpoint_seconds or finished >= todo:
                part.save(out)
                last_save = now
            if progress:
                progress(finished, todo)
    finally:
        part.wall_seconds = wall_before + time.perf_counter() - began
        part.save(out)
    return part


# --- merging ------------------------------------------------------------------------------
@dataclass
class MergeReport:
    parts: list[Part]
    coverage: Coverage
    tally: FlatTally

    @property
    def functions_match(self) -> bool:
        return self.tally.monotone_functions == DEDEKIND[N]

    @property
    def verified(self) -> bool:
        """Every row exactly once and D(7) functions in all."""
        return self.coverage.exact and self.functions_match

    @property
    def cpu_seconds(self) -> float:
        return sum(p.cpu_seconds for p in self.parts)

    def to_dict(self) -> dict:
        c = self.coverage
        return {
            "n": N,
            "parts": [str(p.path) for p in self.parts],
            "rows_total": c.total,
            "rows_covered": c.rows_covered,
            "coverage_exact": c.exact,
            "gaps": [list(g) for g in c.gaps],
            "overlaps": [list(o) for o in c.overlaps],
            "functions_checked": self.tally.monotone_functions,
            "dedekind_7": DEDEKIND[N],
            "functions_match_dedekind": self.functions_match,
            "unique_minimal": self.tally.unique_minimal,
            "influence_exact": self.tally.influence_exact,
            "theorem_holds": self.tally.theorem_holds,
            "mismatches": self.tally.mismatches,
            "counterexamples": [x.to_dict() for x in self.tally.counterexamples],
            "verified": self.verified,
            "core_hours": round(self.cpu_seconds / 3600, 4),
            "wall_seconds_sum": round(sum(p.wall_seconds for p in self.parts), 3),
            "wall_seconds_max": round(max((p.wall_seconds for p in self.parts), default=0.0), 3),
        }


def merge_parts(
    paths: Sequence[str | os.PathLike], limit: int = MAX_COUNTEREXAMPLES
) -> MergeReport:
    """Load the parts, verify the coverage of their done rows, add up their tallies."""
    parts = [load_part(p) for p in paths]
    intervals = [i for p in parts for i in p.done]
    total = FlatTally(n=N)
    for p in parts:
        total.merge(p.tally, limit)
    return MergeReport(parts, coverage(intervals, rows_total()), total)


def plan_parts(count: int, start: int = 0, stop: int | None = None) -> list[Interval]:
    """``count`` row ranges of ``[start, stop)`` with about equal work (for separate runs)."""
    from enumerations.compiled import row_function_counts

    stop = rows_total() if stop is None else stop
    cumulative = np.cumsum(row_function_counts(N, start, stop))
    cuts = (
        [start]
        + [
            int(np.searchsorted(cumulative, cumulative[-1] * k / count)) + start + 1
            for k in range(1, count)
        ]
        + [stop]
    )
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if a < b]


__all__ = [
    "Coverage",
    "MergeReport",
    "Part",
    "PartError",
    "chunk_rows",
    "coverage",
    "read_part_file",
    "save_json_atomically",
    "load_part",
    "merge_parts",
    "n7_chunk",
    "parse_rows",
    "plan_parts",
    "run_part",
]
