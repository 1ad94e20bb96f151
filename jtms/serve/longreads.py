"""The server's long reads (``check``, ``diagnose``, ``context``, the review's plan) as plain
functions of a memory, and the worker process that runs them beside the server.

A long read is pure Python for seconds (a ``check`` page of 20,000 claims: about 2.5 s). Run
on a thread of the serving process it holds the interpreter lock for all that time but the
lock's switch interval, and every short call (``state`` of one id: a few milliseconds of
work, a dozen hand-overs between the event loop and a worker thread) waits up to a switch
interval at each hand-over: 116 ms p99 instead of 3.4 ms. So the serving process runs them in
a :class:`Worker`, a process with its own connection to the same memory (its own state,
caught up before each read like any reader): the serving thread only waits on a pipe and
then decodes one page. The results are the same functions' results: pages and cursors are
identical wherever they run (a cursor names the event its first page read; the worker reads
its next pages as of that event).

>>> worker = Worker("agent.db")                                      # doctest: +SKIP
>>> status, page = await worker.call("check", {"limit": 50, "cursor": None})  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import sqlite3
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol, cast

from jtms.memory.memory import Memory
from jtms.views import pages, payloads
from theory.errors import InputError

READ_BUDGET_S = 20.0  # seconds a long read (check, diagnose) may compute one page
VIEWS = 8  # views of past events kept open for the pages read as of them
PAGE_BYTES = 200_000  # JSON of one `check` page's claims: it stops there
DIAGNOSES = 10  # diagnoses listed, as `jtms diagnose --max-diagnoses` by default
REVIEWER = "jtms-review"  # the reviewer name `jtms review` uses


class Views(Protocol):
    """Where a page finds the memory as of its first page's event."""

    def view(self, memory: Memory, event: int) -> Memory: ...


class ViewCache:
    """The last ``VIEWS`` views of past events (:meth:`Memory.as_of`), so the next pages of
    a result do not rebuild the state as of its event (a view of the past never changes)."""

    def __init__(self) -> None:
        self._views: OrderedDict[tuple[int, int], Memory] = OrderedDict()

    def view(self, memory: Memory, event: int) -> Memory:
        """``memory`` as of ``event`` (the caller holds ``memory``'s lock)."""
        key = (id(memory), event)
        found = self._views.get(key)
        if found is None:
            found = self._views[key] = memory.as_of(event)
            while len(self._views) > VIEWS:
                self._views.popitem(last=False)
        self._views.move_to_end(key)
        return found


def paged(
    views: Views, memory: Memory, tool: str, arguments: Mapping[str, Any], cursor: str | None
) -> tuple[Memory, int, str]:
    """The memory a page reads (the live one for a first page, else the view as of the
    first page's event), its offset and the call's digest."""
    call_digest = pages.digest(dict(arguments))
    if cursor is None:
        return memory, 0, call_digest
    found = pages.decode(cursor, tool, call_digest)
    return views.view(memory, found.event), found.offset, call_digest


# --- the long reads ---------------------------------------------------------------------------
def check(memory: Memory, views: Views, limit: int, cursor: str | None) -> payloads.CheckPayload:
    """One page of ``check`` (the tool's result)."""
    view, offset, call_digest = paged(views, memory, "check", {}, cursor)
    return payloads.check_payload(
        view,
        limit,
        offset,
        call_digest,
        deadline=time.monotonic() + READ_BUDGET_S,
        max_bytes=PAGE_BYTES,
    )


def diagnose(
    memory: Memory, views: Views, limit: int, cursor: str | None
) -> payloads.DiagnosePayload:
    """One page of ``diagnose`` (the tool's result); past ``READ_BUDGET_S`` a one-line error."""
    from theory.diagnosis import diagnose as run_diagnose

    view, offset, call_digest = paged(views, memory, "diagnose", {}, cursor)
    deadline = time.monotonic() + READ_BUDGET_S
    nogoods = [0]

    def budget(done: int) -> None:
        nogoods[0] += done
        if time.monotonic() > deadline:
            raise InputError(
                f"diagnose: past its time budget of {READ_BUDGET_S:g} s "
                f"after {nogoods[0]} nogood(s); nothing was written"
            )

    with view.snapshot():
        event = view.as_of_event or view.last_event
        report = run_diagnose(view.structure(), view.blocked_ids(), DIAGNOSES, budget)
    return payloads.diagnose_payload(
        {**report.to_dict(), "applied": None}, event, limit, offset, call_digest
    )


def context(
    memory: Memory, views: Views, budget: int, query: str | None
) -> payloads.ContextPayload:
    """The ``context`` tool's result."""
    return cast(payloads.ContextPayload, memory.context(budget, query).as_dict())


def context_text(memory: Memory, views: Views, budget: int) -> str:
    """The ``memory://context`` resource: the context at ``budget`` tokens as text."""
    from jtms.memory.context import render_text

    return render_text(memory.context(budget))


def review_plan(memory: Memory, views: Views) -> Any:
    """The review's re-execution of every calculation, writing nothing (a ``ReviewReport``:
    the writing process audits its discrepancies under the writers' lock)."""
    from jtms.calc.reviewer import review

    return review(memory, reviewer=REVIEWER, dry_run=True)


def review_contradictions(memory: Memory, views: Views) -> Any:
    """The active contradictions and the cheapest diagnosis, for ``review``."""
    from jtms.memory.contradictions import review_contradictions as found

    return found(memory, reviewer=REVIEWER)


READS: dict[str, Callable[..., Any]] = {
    "check": check,
    "diagnose": diagnose,
    "context": context,
    "context_text": context_text,
    "review_plan": review_plan,
    "review_contradictions": review_contradictions,
}


def one_line(problem: InputError) -> str:
    """An :class:`InputError` as a client sees it: the node and the problem, never the
    server's database location."""
    return str(InputError(problem.problem, node=problem.node))


def guarded(work: Callable[[], Any]) -> tuple[bool, Any]:
    """``(True, work())``, or ``(False, the one-line message)`` for bad input and database
    faults (a message crosses the process boundary where an exception might not pickle)."""
    try:
        return True, work()
    except InputError as problem:
        return False, one_line(problem)
    except sqlite3.Error as problem:
        return False, f"database error: {problem}"


# --- the worker process ---------------------------------------------------------------------------
_memory: Memory | None = None  # in the worker process: its own connection to the memory
_views = ViewCache()


def _started() -> None:
    """In the worker, first: Ctrl-C is the serving process's to handle, and nothing the
    worker prints may reach the serving process's stdout (the stdio transport's stream)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.dup2(2, 1)
    sys.stdout = sys.stderr


def _run(location: str, name: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    """In the worker: the long read ``name`` on the worker's memory (opened on first use)."""
    global _memory

    def work() -> Any:
        global _memory
        if _memory is None:
            _memory = Memory.open(location)
        return READS[name](_memory, _views, **arguments)

    try:
        found = guarded(work)
    except Exception as error:  # anything else: its first line, as the SDK would say it
        found = (
            False,
            f"{name}: {str(error).splitlines()[0] if str(error) else type(error).__name__}",
        )
    if not found[0] and _memory is not None and "database error" in str(found[1]):
        _memory.close()  # a fault of the connection: the next read opens a new one
        _memory = None
    return found


class Worker:
    """One worker process (started on first use, ``spawn``: a fresh interpreter, no copy of
    the serving process's threads or locks) that runs the long reads on its own connection
    to the memory at ``location`` (a file or a URL, with its password). The reads run one
    at a time, in the order asked; a worker that dies is replaced and the read asked again
    once."""

    def __init__(self, location: str) -> None:
        self.location = location
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    max_workers=1,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_started,
                )
            return self._pool

    def _drop(self, pool: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is pool:
                self._pool = None
        pool.shutdown(wait=False, cancel_futures=True)

    async def call(self, name: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
        """``(True, result)`` of the long read ``name`` or ``(False, a one-line message)``;
        the serving thread only awaits the worker's answer."""
        for attempt in (1, 2):
            pool = self._executor()
            try:
                future = pool.submit(_run, self.location, name, arguments)
                return await asyncio.wrap_future(future)
            except BrokenProcessPool:
                self._drop(pool)
                if attempt == 2:
                    return False, f"{name}: the reading process stopped; nothing was written"
        raise AssertionError("unreachable")  # pragma: no cover

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
