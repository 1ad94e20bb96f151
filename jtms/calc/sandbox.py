"""Running untrusted-but-checked work in worker processes, each call under a time limit.

The reviewer re-executes calculations that other people recorded. :mod:`jtms.calc.safe_expr`
bounds them before evaluating, and this module is the second line: every call runs in a
worker process of a small pool, with a wall-clock limit per call and a memory limit per
worker. A call that overruns has its worker killed (and replaced, if work remains); a
worker that dies (memory limit, crash) loses only its call. So one hostile calculation
cannot stop the others from being checked, and a thousand calculations cost a few process
starts, not a thousand.

>>> from operator import add
>>> with Sandbox(add, workers=1, time_limit=5.0) as sandbox:
...     [r.value for r in sandbox.map([(1, 2), (3, 4)])]
[3, 7]
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

DEFAULT_TIME_LIMIT = 5.0  # seconds per call
DEFAULT_MEMORY_MARGIN = 1 << 30  # bytes a worker may allocate beyond its inherited size
MAX_WORKERS = 4
STARTUP_LIMIT = 120.0  # seconds a worker may take to start (not counted per call)
MAX_START_FAILURES = 3  # workers failing to start before the remaining calls fail
MAX_CHUNK = 32  # calls sent to a worker at once


@dataclass(frozen=True)
class CallResult:
    """What became of one call: ``ok`` (with ``value``), ``timeout`` or ``failed`` (why)."""

    status: str
    value: Any = None
    reason: str = ""


def _limit_memory(margin: int) -> None:
    try:
        import resource

        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[0])
        limit = pages * os.sysconf("SC_PAGE_SIZE") + margin
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, OSError, ValueError):  # pragma: no cover - not Linux
        pass


def _serve(
    function: Callable[..., Any],
    initializer: Callable[[], None] | None,
    connection: Connection,
    margin: int,
) -> None:
    _limit_memory(margin)
    try:
        if initializer is not None:
            initializer()
        connection.send(("ready", None))
    except BaseException:  # a worker that cannot start reports it by closing its pipe
        return
    while True:
        try:
            chunk = connection.recv()
        except (EOFError, OSError):
            return
        if chunk is None:
            return
        for task in chunk:  # one reply per call, as soon as it is done
            try:
                reply: tuple[str, Any] = ("ok", function(*task))
            except MemoryError:
                reply = ("failed", "out of memory")
            except BaseException as error:  # the worker reports every failure of its call
                reply = ("failed", f"{type(error).__name__}: {str(error)[:200]}")
            try:
                connection.send(reply)
            except (OSError, ValueError):
                return


class _Worker:
    def __init__(
        self,
        context: Any,
        function: Callable[..., Any],
        initializer: Callable[[], None] | None,
        margin: int,
    ):
        self.connection, child = context.Pipe()
        self.process = context.Process(
            target=_serve, args=(function, initializer, child, margin), daemon=True
        )
        self.process.start()
        child.close()
        self.ready = False
        self.tasks: deque[int] = deque()  # calls sent, not yet answered (the first runs)
        self.deadline = time.monotonic() + STARTUP_LIMIT

    def stop(self, kill: bool = False) -> None:
        if kill:
            self.process.kill()
        else:
            try:
                self.connection.send(None)
            except (OSError, ValueError):
                self.process.kill()
        self.process.join(timeout=5)
        if self.process.is_alive():  # pragma: no cover - a worker ignoring its stop
            self.process.kill()
            self.process.join()
        self.connection.close()


class Sandbox:
    """Calls of ``function`` in up to ``workers`` processes, each within ``time_limit`` s."""

    def __init__(
        self,
        function: Callable[..., Any],
        workers: int | None = None,
        time_limit: float = DEFAULT_TIME_LIMIT,
        memory_margin: int = DEFAULT_MEMORY_MARGIN,
        initializer: Callable[[], None] | None = None,
        preload: Sequence[str] = (),
    ):
        if time_limit <= 0:
            raise ValueError("time_limit must be positive")
        self.function = function
        self.initializer = initializer
        self.workers = max(1, workers or min(MAX_WORKERS, os.cpu_count() or 1))
        self.time_limit = time_limit
        self.memory_margin = memory_margin
        # fork is cheapest (sympy is already imported) but unsafe with other threads running;
        # then a fork server (started once per process, with ``preload`` imported) serves
        methods = multiprocessing.get_all_start_methods()
        method = (
            "fork"
            if threading.active_count() == 1 and "fork" in methods
            else "forkserver"
            if "forkserver" in methods
            else "spawn"
        )
        self._context = multiprocessing.get_context(method)
        if method == "forkserver" and preload:
            self._context.set_forkserver_preload(list(preload))
        self._pool: list[_Worker] = []
        self.started = 0  # worker processes started, for the record

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for worker in self._pool:
            worker.stop()
        self._pool = []

    def _spawn(self) -> _Worker:
        worker = _Worker(self._context, self.function, self.initializer, self.memory_margin)
        self.started += 1
        self._pool.append(worker)
        return worker

    def _retire(self, worker: _Worker, kill: bool) -> None:
        worker.stop(kill=kill)
        self._pool.remove(worker)

    def map(self, calls: Sequence[tuple[Any, ...]]) -> list[CallResult]:
        """One :class:`CallResult` per call, in order.

        Calls go to the workers in chunks (fewer wake-ups), each answered as soon as it is
        done; a call's time limit runs from the previous answer of its worker (or from when
        a started worker received it): worker start-up is not charged to any call. When a call
        overruns, its worker is killed and the rest of its chunk goes back to the queue.
        """
        results: list[CallResult | None] = [None] * len(calls)
        pending = deque(range(len(calls)))
        failures = 0
        while len(self._pool) < min(self.workers, len(calls)):
            self._spawn()
        waiting: dict[Connection, _Worker] = {}  # starting, or running calls

        def assign(worker: _Worker) -> None:
            size = max(1, min(MAX_CHUNK, len(pending) // (2 * len(self._pool) or 1)))
            chunk = [pending.popleft() for _ in range(min(size, len(pending)))]
            worker.tasks.extend(chunk)
            worker.deadline = time.monotonic() + self.time_limit
            try:
                worker.connection.send([calls[k] for k in chunk])
            except (OSError, ValueError):
                lost(worker, "worker unavailable")
            else:
                waiting[worker.connection] = worker

        def lost(worker: _Worker, reason: str) -> None:
            """The worker is gone: its running call failed, the rest of its chunk is redone."""
            nonlocal failures
            self._retire(worker, kill=True)
            waiting.pop(worker.connection, None)
            if worker.tasks:
                first = worker.tasks.popleft()
                results[first] = CallResult(
                    "timeout" if reason.startswith("took") else "failed", reason=reason
                )
                pending.extendleft(reversed(worker.tasks))
            elif not worker.ready:
                failures += 1
            if pending and failures < MAX_START_FAILURES:
                new = self._spawn()
                waiting[new.connection] = new

        for worker in list(self._pool):
            if not worker.ready:
                waiting[worker.connection] = worker
            elif pending:
                assign(worker)
        while waiting:
            timeout = max(0.0, min(w.deadline for w in waiting.values()) - time.monotonic())
            ready = wait(list(waiting), timeout=timeout)
            for connection in ready:
                assert isinstance(connection, Connection)
                worker = waiting[connection]
                try:
                    status, value = connection.recv()
                except (EOFError, OSError):
                    lost(worker, "worker died")
                    continue
                if status == "ready":
                    worker.ready = True
                else:
                    index = worker.tasks.popleft()
                    results[index] = (
                        CallResult("ok", value)
                        if status == "ok"
                        else CallResult("failed", reason=value)
                    )
                    worker.deadline = time.monotonic() + self.time_limit
                if not worker.tasks:
                    del waiting[connection]
                    if pending:
                        assign(worker)
            now = time.monotonic()
            for connection, worker in list(waiting.items()):
                if worker.deadline <= now and connection not in ready:
                    lost(
                        worker,
                        f"took longer than {self.time_limit:g} s"
                        if worker.ready
                        else "worker did not start",
                    )
        return [
            r if r is not None else CallResult("failed", reason="no worker could start")
            for r in results
        ]
