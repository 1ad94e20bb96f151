"""The exit codes of every ``jtms`` command (docs/design.md section 4).

One enum, so that a command never spells a bare ``return 1``:

>>> from jtms.cli.exit_codes import ExitCode
>>> int(ExitCode.VIOLATION)
1
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """``OK`` all is well; ``VIOLATION`` a check found something; ``BAD_INPUT`` bad input,
    bad usage or a fault of the environment (one line on stderr, nothing changed)."""

    OK = 0
    VIOLATION = 1
    BAD_INPUT = 2

    @classmethod
    def of(cls, ok: bool) -> "ExitCode":
        """``OK`` when a check passed, ``VIOLATION`` when it found something."""
        return cls.OK if ok else cls.VIOLATION


__all__ = ["ExitCode"]
