"""Settings every backend reads the same way: the busy timeout (``busy_timeout`` keyword,
else ``JTMS_BUSY_TIMEOUT``, else 60 s) and the durability.

One function per setting, so that a value refused from the environment is refused as a
``Memory.open`` keyword too, with the same limit (:mod:`jtms.memory.limits`):

>>> busy_timeout(2.5)
2.5
>>> busy_timeout(float("inf"))
Traceback (most recent call last):
...
theory.model.errors.InputError: busy_timeout must be between 0 and 2147483 seconds, got inf
"""

from __future__ import annotations

import os
from typing import Any

from jtms.memory.limits import MAX_BUSY_TIMEOUT, check_choice, check_seconds, parse_seconds

BUSY_TIMEOUT_S = 60.0
"""Seconds a write waits for the write lock when neither the keyword nor the variable says."""
BUSY_TIMEOUT_VARIABLE = "JTMS_BUSY_TIMEOUT"
DURABILITIES = ("full", "normal", "off")


def busy_timeout(value: Any = None) -> float:
    """Seconds a write waits for the write lock: ``value`` when given, else
    ``$JTMS_BUSY_TIMEOUT``, else :data:`BUSY_TIMEOUT_S`; at most
    :data:`~jtms.memory.limits.MAX_BUSY_TIMEOUT` (both backends count milliseconds in 32 bits)."""
    if value is not None:
        return check_seconds(value, "busy_timeout", MAX_BUSY_TIMEOUT)
    text = os.environ.get(BUSY_TIMEOUT_VARIABLE, "").strip()
    if text:
        return parse_seconds(text, BUSY_TIMEOUT_VARIABLE, MAX_BUSY_TIMEOUT)
    return BUSY_TIMEOUT_S


def durability(value: Any) -> str:
    """``full`` (sync every commit), ``normal`` (survive a process crash) or ``off``."""
    return check_choice(value, "durability", DURABILITIES)


__all__ = ["BUSY_TIMEOUT_S", "BUSY_TIMEOUT_VARIABLE", "DURABILITIES", "busy_timeout", "durability"]
