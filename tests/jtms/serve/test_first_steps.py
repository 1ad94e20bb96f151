"""First steps that work (issue 58, item 5): ``jtms serve`` on a fresh path creates the
memory and says so, ``explain`` as of an event before the node existed says so."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from jtms.memory.memory import Memory
from tests.serve_helpers import env, jtms
from theory.model.errors import InputError


def _serve(db: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``jtms serve --db DB EXTRA`` with stdin at its end: the server starts and stops."""
    return subprocess.run(
        [sys.executable, "-m", "jtms", "serve", "--db", str(db), *extra],
        env=env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_serve_creates_a_missing_sqlite_memory(tmp_path):
    db = tmp_path / "fresh" / "new.db"
    db.parent.mkdir()
    served = _serve(db)  # the server starts, creates, and stops
    assert served.returncode == 0, served.stderr
    assert f"jtms serve: created an empty memory at {db}" in served.stderr
    jtms("add-evidence", "e1", "--db", str(db))  # a memory like `jtms init` makes
    again = _serve(db)
    assert again.returncode == 0 and "created" not in again.stderr
    missing = tmp_path / "other.db"
    refused = _serve(missing, "--read-only")
    assert refused.returncode == 2 and "no memory here" in refused.stderr
    assert not missing.exists()  # a read-only server writes nothing, not even a new file


def test_explain_before_a_node_existed_says_so():
    memory = Memory.create(":memory:")
    memory.add_evidence("e1")
    early = memory.last_event
    memory.add_evidence("e2")
    memory.add_claim("c1", [["e2"]])
    with pytest.raises(InputError, match=r"did not exist yet as of event \d+: event \d+ created"):
        memory.explain("c1", as_of=early)
    with pytest.raises(InputError, match="unknown id"):
        memory.explain("never", as_of=early)
    assert memory.explain("e1", as_of=early).active


@pytest.mark.parametrize("page", ["docs/serve.md", "docs/design.md"])
def test_every_limit_is_documented(page):
    """Each limit of jtms.memory.limits.LIMITS is a row of the page's limits table, with its
    value as the code has it."""
    from pathlib import Path

    from jtms.memory.limits import LIMITS

    text = (Path(__file__).resolve().parents[3] / page).read_text(encoding="utf-8")
    for name, value in LIMITS.items():
        assert f"| `{name}` | {value:,} |" in text, (page, name, value)
