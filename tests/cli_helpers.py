"""Shared by the tests that drive the CLI in-process: what a refusal must look like, and a
small memory to drive it against."""

from __future__ import annotations

import pytest

from jtms.cli import main
from jtms.memory.memory import Memory


def refused(capsys: pytest.CaptureFixture[str], argv: list[str], message: str = "") -> str:
    """``jtms ARGV``: exit 2, one line on stderr (containing ``message``), nothing on stdout."""
    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse usage errors
        code = exit_.code if isinstance(exit_.code, int) else 2
    out, err = capsys.readouterr()
    assert code == 2, (argv[:3], code, out, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert message in err, err
    return err


def small_memory(where: str) -> str:
    """Create at ``where`` (a fresh location) a memory of evidence e1, e2 and claim c1 <- e1;
    returns ``where``."""
    with Memory.create(where, durability="off") as memory:
        memory.add_evidence("e1", text="assay")
        memory.add_evidence("e2")
        memory.add_claim("c1", [["e1"]], text="mechanism")
    return where
