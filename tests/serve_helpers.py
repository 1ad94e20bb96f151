"""Shared by the serve and explorer tests: a memory on disk, `jtms` as a subprocess (with this
tree first on the path), and `jtms serve --http` started on an ephemeral port and stopped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mcp import Client
from mcp_types import TextContent

REPO = Path(__file__).resolve().parents[1]
START_TIMEOUT = 60


def env() -> dict[str, str]:
    paths = [str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def jtms(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "jtms", *args],
        env=env(),
        text=True,
        capture_output=True,
        timeout=120,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"jtms {' '.join(args)}: exit {result.returncode}: {result.stderr}")
    return result


def jtms_json(*args: str) -> Any:
    return json.loads(jtms(*args, "--json").stdout)


def new_memory(path: Path) -> str:
    db = str(path)
    jtms("init", "--db", db)
    return db


def two_chains(path: Path) -> str:
    """A new memory with two independent chains, e1 -> c1 and e2 -> c2 (for notifications:
    an audit of one evidence changes exactly one claim)."""
    from jtms.memory.memory import Memory

    db = new_memory(path)
    with Memory.open(db) as memory:
        memory.add_evidence("e1")
        memory.add_evidence("e2")
        memory.add_claim("c1", [["e1"]])
        memory.add_claim("c2", [["e2"]])
    return db


@contextmanager
def http_server(db: str, *extra: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`jtms serve --db DB --http 127.0.0.1:0 EXTRA...`; yields (the /mcp URL, the process)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "jtms", "serve", "--db", db, "--http", "127.0.0.1:0", *extra],
        env=env(),
        text=True,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()  # "jtms serve: MCP at http://127.0.0.1:PORT/mcp"
        if "MCP at" not in line:
            process.kill()
            raise AssertionError(f"jtms serve did not start: {line}{process.stderr.read()}")
        yield line.split()[-1], process
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            process.kill()
            process.wait(10)
        if process.stderr is not None:
            process.stderr.close()


async def call(client: Client, name: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def error(client: Client, name: str, **arguments: Any) -> str:
    result = await client.call_tool(name, arguments)
    assert result.is_error
    (content,) = result.content
    assert isinstance(content, TextContent)
    assert "\n" not in content.text  # the one-line message
    return content.text


def lists(payload: dict[str, Any]) -> dict[str, Any]:
    """A result without its paging keys (``counts``, ``cursor``): the lists themselves."""
    return {k: v for k, v in payload.items() if k not in ("counts", "cursor")}
