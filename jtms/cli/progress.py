"""One progress bar for every long-running command: transient, on stderr, only on a
terminal (so ``--json`` output and pipes stay clean)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def progress_bar(
    label: str,
    total: int | None = None,
    *,
    enabled: bool = True,
    every: int = 1,
    delay: float = 0.0,
) -> Iterator[Callable[..., None]]:
    """Yield ``update(done, total=None)``, which moves the bar to ``done`` of ``total`` items
    (a ``total`` given to ``update`` replaces the one given here).

    Disabled (a no-op ``update``) when ``enabled`` is false or stderr is not a terminal.
    ``every`` redraws only after that many items (cheap inner loops). ``delay``: the bar
    appears only once that many seconds have passed (a run that ends sooner shows none),
    so a command can ask for one whatever the size of its input.

    >>> with progress_bar("checking", 10, enabled=False) as update:
    ...     update(5)
    """
    if not enabled or not sys.stderr.isatty():
        yield lambda done, total=None: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task = bar.add_task(label, total=total)
    last = [0]
    shown_from = time.monotonic() + delay
    started = [False]

    def update(done: int, new_total: int | None = None) -> None:
        current = total if new_total is None else new_total
        if done - last[0] >= every or done == current:
            last[0] = done
            if not started[0]:
                if time.monotonic() < shown_from:
                    return
                bar.start()
                started[0] = True
            bar.update(task, completed=done, total=current)

    try:
        yield update
    finally:
        if started[0]:
            bar.stop()


__all__ = ["progress_bar"]
