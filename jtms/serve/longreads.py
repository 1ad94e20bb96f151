"""The server's long reads (``check``, ``diagnose``, ``context``, the review's plan) as plain
functions of a memory, and the worker process that runs them beside the server.

A long read is pure Python for seconds (a ``check`` page of 20,000 claims). Run
on a thread of the serving process it holds the interpreter lock for all that time but the
lock's switch interval, and every short call (``state`` of one id: a few milliseconds of
work, several hand-overs between the event loop and a worker thread) waits up to a switch
interval at each hand-over (docs/serve.md, "Long reads"). So the serving process runs them in
a :class:`Worker`, a process with its own connection to the same memory (its own state,
caught up before each read like any reader): the serving thread only waits on a pipe and
then decodes one page. The results are the same functions' results: pages and cursors are
identical wherever they run (a cursor names the event its first page read; the worker reads
its next pages as of that event).

>>> worker = Worker("agent.db")                                      # doctest: +SKIP
>>> ok, page = await worker.call("check", {"limit": 50, "cursor": None})  # doctest: +SKIP
"""

from __future__ import annotations

import os
import pickle
import select
import sqlite3
import subprocess
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, BinaryIO, Protocol, cast

import anyio.to_thread

from jtms.memory.memory import Memory
from jtms.views import pages, payloads
from theory.model.errors import InputError

READ_BUDGET_S = 20.0  # seconds a long read (check, diagnose) may compute one page
VIEWS = 8  # views of past events kept open for the pages read as of them
PAGE_BYTES = 200_000  # JSON of one `check` page's claims (`diagnose`'s items): it stops there
DIAGNOSES = 10  # diagnoses listed, as `jtms diagnose --max-diagnoses` by default
REVIEWER = "jtms-review"  # the reviewer name `jtms review` uses
WORKER_NICE = 5
"""The worker's scheduling niceness: on a busy machine the serving process's short calls get
the CPU before a long read's next slice (about 3 to 1 when both wait); an idle core is the
worker's all the same."""
READ_LIMIT_S = 120.0
"""Seconds after which a read in the worker process is stopped (the worker is replaced and
the call is a one-line error). ``READ_BUDGET_S`` is checked between claims, and one claim's
certificates can take minutes on some graphs; a thread could not be stopped, a process can."""


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
    from theory.semantics.diagnosis import diagnose as run_diagnose

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
        {**report.to_dict(), "applied": None},
        event,
        limit,
        offset,
        call_digest,
        max_bytes=PAGE_BYTES,
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


def review_plan(memory: Memory, views: Views, as_of: int | None = None) -> Any:
    """The review's re-execution of every calculation, writing nothing (a ``ReviewReport``:
    the writing process audits its discrepancies under the writers' lock); ``as_of``: on
    the memory as of that event (a repeat under an idempotency key rebuilds the first
    review's result)."""
    from jtms.calc.reviewer import review

    view = memory if as_of is None else views.view(memory, as_of)
    return review(view, reviewer=REVIEWER, dry_run=True)


def review_contradictions(memory: Memory, views: Views, as_of: int | None = None) -> Any:
    """The active contradictions and the cheapest diagnosis, for ``review`` (``as_of``: as
    of that event)."""
    from jtms.memory.contradictions import review_contradictions as found

    view = memory if as_of is None else views.view(memory, as_of)
    return found(view, reviewer=REVIEWER)


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
def serve_reads(requests: BinaryIO, answers: BinaryIO) -> None:
    """The worker's loop: the memory's location first, then each ``(name, arguments)``
    read from ``requests`` answered on ``answers`` with ``(ok, result or message)``
    (pickles), until ``requests`` ends (the serving process closed it, or died)."""
    views = ViewCache()
    memory: Memory | None = None
    try:
        location = pickle.load(requests)
    except EOFError:
        return
    while True:
        try:
            name, arguments = pickle.load(requests)
        except EOFError:
            break

        def work() -> Any:
            nonlocal memory
            if memory is None:
                memory = Memory.open(location)
            return READS[name](memory, views, **arguments)

        try:
            found = guarded(work)
        except Exception as error:  # anything else: its first line, as the SDK would say it
            said = str(error).splitlines()[0] if str(error) else type(error).__name__
            found = (False, f"{name}: {said}")
        if not found[0] and memory is not None and str(found[1]).startswith("database error"):
            memory.close()  # a fault of the connection: the next read opens a new one
            memory = None
        try:
            pickle.dump(found, answers, protocol=pickle.HIGHEST_PROTOCOL)
            answers.flush()
        except BrokenPipeError:  # the serving process is gone
            break
    if memory is not None:
        memory.close()


class Worker:
    """A worker process (``python -m jtms.serve.longreads``, started on first use: a fresh
    interpreter, nothing of the serving process's threads, locks or main script) that runs
    the long reads on its own connection to the memory at ``location`` (a file or a URL,
    with its password; sent over the pipe, never on a command line). Reads run one at a
    time, in the order asked; the caller's thread only waits on the pipe (the interpreter
    lock is free meanwhile). A worker that dies is replaced and the read asked once more
    (a read writes nothing); one that has not answered in ``limit_s`` seconds is stopped and
    replaced, and the call is a one-line error."""

    def __init__(self, location: str, limit_s: float = READ_LIMIT_S) -> None:
        self.location = location
        self.limit_s = limit_s
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def _started(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            path = os.pathsep.join(p for p in sys.path if p)  # the serving process's modules
            process = subprocess.Popen(
                [sys.executable, "-m", "jtms.serve.longreads"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env={**os.environ, "PYTHONPATH": path},
                start_new_session=True,  # Ctrl-C is the serving process's to handle
            )
            assert process.stdin is not None
            pickle.dump(self.location, process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self._process = process
        return self._process

    def call_now(self, name: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
        """``(True, result)`` of the long read ``name`` or ``(False, a one-line message)``,
        waiting for it on this thread."""
        with self._lock:
            for _attempt in (1, 2):
                process = self._started()
                assert process.stdin is not None and process.stdout is not None
                try:
                    pickle.dump((name, arguments), process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
                    process.stdin.flush()
                    answered, _, _ = select.select([process.stdout], [], [], self.limit_s)
                    if not answered:
                        self._stop(process)
                        return False, (
                            f"{name}: stopped after {self.limit_s:g} s without an answer; "
                            f"ask for a smaller `limit`; nothing was written"
                        )
                    return cast(tuple[bool, Any], pickle.load(process.stdout))
                except (OSError, EOFError, pickle.UnpicklingError):
                    self._stop(process)
            return False, f"{name}: the reading process stopped; nothing was written"

    async def call(self, name: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
        """:meth:`call_now` on a worker thread (the event loop keeps serving)."""
        return await anyio.to_thread.run_sync(self.call_now, name, arguments)

    def _stop(self, process: subprocess.Popen[bytes]) -> None:
        if process.poll() is None:
            process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()
        if self._process is process:
            self._process = None

    def close(self) -> None:
        """Stop the worker now, even in the middle of a read (the server is going away; a
        read writes nothing)."""
        process = self._process
        if process is not None:
            self._stop(process)


def main() -> None:
    """The worker process: requests on stdin, answers on the original stdout; anything the
    reads print goes to stderr (never into the answers)."""
    os.nice(WORKER_NICE)
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    serve_reads(sys.stdin.buffer, answers)


if __name__ == "__main__":
    main()
