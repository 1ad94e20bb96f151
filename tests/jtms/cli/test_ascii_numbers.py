"""Numbers typed by a user are ASCII digits only, everywhere (the fuzzing run's
``explain(as_of="²")``): ``str.isdigit`` is also true of "²", "①", "٣" and "１２", and ``int`` and
``float`` crash on some of them and read the others as numbers of another script. Every entry
point that reads a number from text (the CLI, the explorer's query and forms, the HTTP body
limit, a memory's stored schema version) refuses them with its usual one-line message, or
ignores them where a default applies."""

from __future__ import annotations

import argparse
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import pytest

from jtms.cli import main
from jtms.cli.arguments import at_least, positive_float
from jtms.memory import limits
from jtms.memory.memory import Memory
from jtms.serve.explorer import Explorer, bounded
from jtms.serve.http import BodyLimit
from jtms.store.protocol import newer_version
from tests.serve_helpers import http_server
from theory.model.errors import InputError

FOREIGN = ["²", "③", "①", "٣", "１２", "٣٤"]


@pytest.mark.parametrize("text", FOREIGN)
def test_the_shared_parsers_take_ascii_digits_only(text: str) -> None:
    assert not limits.is_digits(text)
    assert limits.ascii_int(text) is None and limits.ascii_float(text) is None
    with pytest.raises(InputError, match="must be a whole number"):
        limits.parse_int(text, "N")
    with pytest.raises(InputError, match="must be a number of seconds"):
        limits.parse_seconds(text, "T", 10.0)
    with pytest.raises(argparse.ArgumentTypeError, match="expected a whole number"):
        at_least(1)(text)
    with pytest.raises(argparse.ArgumentTypeError, match="expected a number"):
        positive_float(text)
    assert not newer_version(text, 3)
    assert bounded(text, 7) == 7  # a bad limit in a query: the default


def test_ascii_numbers_still_read() -> None:
    assert limits.ascii_int("-12") == -12 and limits.parse_int(" 42 ", "N") == 42
    assert limits.ascii_float("2.5e1") == 25.0 and limits.parse_seconds("1.5", "T", 10.0) == 1.5
    assert at_least(1)("3") == 3 and positive_float("0.5") == 0.5
    assert newer_version("99", 3) and not newer_version("3", 3)
    assert bounded("12", 7) == 12


@pytest.mark.parametrize("text", ["²", "٣", "１２"])
def test_cli_as_of_refuses_foreign_digits(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "m.db")
    with Memory.create(db) as memory:
        for k in range(12):
            memory.add_evidence(f"e{k}")
    assert main(["explain", "e0", "--as-of", text, "--db", db]) == 2
    err = capsys.readouterr().err
    assert "expected an event id or an ISO time" in err and len(err.strip().splitlines()) == 1
    with pytest.raises(SystemExit) as usage:  # argparse's usage error
        main(["state", "--limit", text, "--db", db])
    assert usage.value.code == 2 and "expected a whole number" in capsys.readouterr().err


@pytest.mark.slow
def test_the_explorer_refuses_foreign_digits_in_forms_and_queries(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    with Memory.create(db) as memory:
        memory.add_evidence("e1")
        memory.audit(["e1"], reason="r")
        events = memory.last_event
    with Memory.open(db) as memory, pytest.raises(InputError, match="changed must be"):
        Explorer.changed(memory, "²")
    with http_server(db) as (url, _):
        base = url.removesuffix("/mcp")
        for path in ("/?limit=²", "/?limit=٣", "/events?limit=①"):
            path = urllib.parse.quote(path, safe="/?=")
            with urllib.request.urlopen(base + path, timeout=30) as response:
                assert response.status == 200, path
        for path, form in (
            ("/audits?changed=%C2%B2", None),
            ("/reinstate", {"audit_id": "²"}),
            ("/reinstate", {"audit_id": "٣"}),
        ):
            data = urllib.parse.urlencode(form).encode() if form else None
            request = urllib.request.Request(base + path, data=data)
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=30)
            assert refused.value.code == 400, (path, form)
    with Memory.open(db) as memory:
        assert memory.last_event == events and not memory.is_active("e1")


def test_the_body_limit_reads_only_an_ascii_content_length() -> None:
    reached: list[bytes] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append((await receive())["body"])

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: Any) -> None:
        raise AssertionError(f"refused: {message}")

    scope = {"type": "http", "headers": [(b"content-length", "²".encode("latin-1"))]}
    anyio.run(BodyLimit(app, limit=100), scope, receive, send)
    assert reached == [b"{}"]
