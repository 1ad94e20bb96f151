"""One progress bar for every long-running command: transient, on stderr, only on a
terminal (so ``--json`` output and pipes stay clean)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def progress_bar(
    label: str, total: int | None = None, *, enabled: bool = True, every: int = 1
) -> Iterator[Callable[..., None]]:
    """Yield ``update(done, total=None)``, which moves the bar to ``done`` of ``total`` items
    (a ``total`` given to ``update`` replaces the one given here).

    Disabled (a no-op ``update``) when ``enabled`` is false or stderr is not a terminal.
    ``every`` redraws only after that many items (cheap inner loops).

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

    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=total)
        last = [0]

        def update(done: int, new_total: int | None = None) -> None:
            current = total if new_total is None else new_total
            if done - last[0] >= every or done == current:
                last[0] = done
                bar.update(task, completed=done, total=current)

        yield update


__all__ = ["progress_bar"]
