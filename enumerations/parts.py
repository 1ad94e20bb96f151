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


def read_part_file(path: Path, kind: str, what: str) -> dict:
    """The JSON object of a part file of ``kind`` (:class:`PartError` on anything unusable)."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise PartError(f"{path}: no such part file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise PartError(f"{path}: not a readable part file ({error})") from None
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
    left, right = text.split(":")
    try:
        start = int(left) if left.strip() else 0
        stop = int(right) if right.strip() else total
    except ValueError:
        raise ValueError(f"--rows must be A:B with integers, got {text!r}") from None
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
            "kernel": "numba",
        }

    def save(self, path: Path) -> None:
        """Write atomically (temporary file + rename): a crash never leaves half a file."""
        save_json_atomically(path, self.to_dict())


def load_part(path: str | os.PathLike) -> Part:
    """Read and validate a part file (:class:`PartError` on anything unusable)."""
    path = Path(path)
    data = read_part_file(path, PART_KIND, "an n = 7 part file")
    if data.get("version") != PART_VERSION or data.get("n") != N:
        raise PartError(f"{path}: unsupported part file version {data.get('version')!r}")
    try:
        rows = (int(data["rows"][0]), int(data["rows"][1]))
        done = normalise(data["done"])
        tally = FlatTally(
            n=N,
            monotone_functions=int(data["functions_checked"]),
            active=int(data["active"]),
            unique_minimal=int(data["unique_minimal"]),
            influence_exact=int(data["influence_exact"]),
            mismatches=int(data["mismatches"]),
            counterexamples=[Counterexample(**c) for c in data["counterexamples"]],
        )
        part = Part(
            rows,
            done,
            tally,
            float(data["cpu_seconds"]),
            float(data["wall_seconds"]),
            int(data["sessions"]),
            path,
        )
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise PartError(f"{path}: malformed part file ({error!r})") from None
    if not 0 <= rows[0] < rows[1] <= rows_total():
        raise PartError(f"{path}: rows {rows} out of range")
    if any(a < rows[0] or b > rows[1] or a >= b for a, b in done):
        raise PartError(f"{path}: done rows outside the part's rows {rows}")
    if not coverage(done, rows_total()).overlaps == []:
        raise PartError(f"{path}: done intervals overlap")
    return part


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
