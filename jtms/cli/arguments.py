"""argparse value types shared by every command: id lists and range-checked numbers.

A bad value is an argparse usage error (one line, exit 2) before any work starts:

>>> from jtms.cli.arguments import at_least, id_list
>>> id_list("a, b,c")
['a', 'b', 'c']
>>> at_least(1)("3")
3
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable


def id_list(text: str) -> list[str]:
    """``ID[,ID...]`` -> the ids, stripped; an empty list or an empty item is refused."""
    items = [item.strip() for item in text.split(",")]
    if not text.strip() or any(not item for item in items):
        raise argparse.ArgumentTypeError(f"expected ID[,ID...], got {text[:80]!r}")
    return items


def at_least(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """A whole number >= ``minimum`` (and <= ``maximum`` when given)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text[:40]!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        # without a maximum, at most sys.maxsize: larger counts overflow C APIs (islice, ...)
        if value > (sys.maxsize if maximum is None else maximum):
            raise argparse.ArgumentTypeError(
                f"must be <= {sys.maxsize if maximum is None else maximum}, got {text[:40]}")
        return value

    parse.__name__ = f"whole number >= {minimum}"
    return parse


def positive_float(text: str) -> float:
    """A finite number > 0 (seconds, tolerances)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text[:40]}")
    return value


__all__ = ["at_least", "id_list", "positive_float"]
