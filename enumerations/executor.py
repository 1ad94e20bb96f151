"""Running shards: in this process, on local worker processes, or on a Dask cluster.

Every shard is a call ``function(*args)`` of a module-level function with picklable
arguments that returns a picklable partial result, so the three executors run the same code.

- ``serial``: in this process (the default, and what ``--workers 1`` means).
- ``processes``: a :class:`concurrent.futures.ProcessPoolExecutor` with ``workers`` processes.
- ``dask``: a :mod:`dask.distributed` client: an existing ``client``, a scheduler
  ``address``, or (neither given) a ``LocalCluster`` of ``workers`` single-threaded processes
  started and closed here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from theory.model.optional import import_optional

EXECUTORS = ("serial", "processes", "dask")


@dataclass
class ShardExecutor:
    """A started executor; use :func:`start_executor` as a context manager."""

    kind: str
    workers: int
    pool: Any = None  # ProcessPoolExecutor
    client: Any = None  # dask.distributed.Client

    def map(self, function: Callable, argument_lists: Sequence[tuple]) -> Iterator[Any]:
        """Results of ``function(*args)`` for every args, in completion order."""
        if self.kind == "serial" or not argument_lists:
            for args in argument_lists:
                yield function(*args)
        elif self.kind == "processes":
            futures = [self.pool.submit(function, *args) for args in argument_lists]
            for future in as_completed(futures):
                yield future.result()
        else:
            dask_completed = import_optional("dask.distributed", "dask").as_completed

            futures = self.client.map(function, *zip(*argument_lists), pure=False)
            for future in dask_completed(futures):
                yield future.result()
                future.release()


@contextmanager
def start_executor(
    kind: str = "serial", workers: int = 1, *, client: Any = None, address: str | None = None
) -> Iterator[ShardExecutor]:
    if kind not in EXECUTORS:
        raise ValueError(f"unknown executor {kind!r} (choose from {', '.join(EXECUTORS)})")
    if workers < 1:
        raise ValueError("workers must be at least 1")
    if kind == "serial":
        yield ShardExecutor("serial", 1)
    elif kind == "processes":
        with ProcessPoolExecutor(max_workers=workers) as pool:
            yield ShardExecutor("processes", workers, pool=pool)
    else:
        if client is not None:
            yield ShardExecutor("dask", workers, client=client)
            return
        distributed = import_optional("dask.distributed", "dask")
        Client, LocalCluster = distributed.Client, distributed.LocalCluster

        if address:
            with _connect(Client, address) as remote:
                yield ShardExecutor("dask", workers, client=remote)
            return
        # silence_logs: closing the cluster can log a harmless heartbeat error per worker
        with (
            LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.CRITICAL,
            ) as cluster,
            Client(cluster) as local,
        ):
            yield ShardExecutor("dask", workers, client=local)


def _connect(client_class: Any, address: str, timeout: float = 10.0) -> Any:
    """A client of the scheduler at ``address``, or an :class:`InputError` naming
    ``--dask-address`` (an address dask cannot parse raised ValueError; an unreachable one
    an OSError after 30 s that read as a failed write)."""
    from theory.model.errors import InputError

    try:
        return client_class(address, timeout=timeout)
    except (ValueError, TypeError) as error:
        raise InputError(
            f"--dask-address {address[:200]!r}: not a scheduler address ({error})"
        ) from None
    except (OSError, TimeoutError) as error:
        raise InputError(
            f"--dask-address {address[:200]!r}: no scheduler answered within {timeout:g} s "
            f"({type(error).__name__})"
        ) from None


def choose(workers: int, dask: bool) -> str:
    """The executor a CLI invocation means: ``--dask`` wins, else processes when K > 1."""
    if dask:
        return "dask"
    return "processes" if workers > 1 else "serial"
