"""The README's examples run as written (issue 58, item 5): the tour's commands with the exit
codes it states, the memory in five commands, the Python example with the values its
comments state, the MCP configuration on a fresh path, and the agent's correction loop."""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.serve_helpers import env

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


def blocks(language: str = "") -> list[str]:
    """The README's fenced blocks of ``language`` ("" for none), in order."""
    found: list[str] = []
    current: list[str] | None = None
    for line in (REPO / "README.md").read_text(encoding="utf-8").splitlines():
        if current is None and line.startswith("```"):
            current, opened = [], line[3:].strip()
        elif current is not None and line.strip() == "```":
            if opened == language:
                found.append("\n".join(current) + "\n")
            current = None
        elif current is not None:
            current.append(line)
    return found


def block_with(marker: str, language: str = "") -> str:
    (found,) = [b for b in blocks(language) if marker in b]
    return found


def jtms(line: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(line, comments=True)
    assert argv[0] == "jtms", line
    return subprocess.run(
        [sys.executable, "-m", "jtms", *argv[1:]],
        cwd=cwd,
        env=env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_tour_exits_as_it_says(tmp_path):
    (tmp_path / "examples").symlink_to(REPO / "examples")
    lines = [line[2:] for line in block_with("$ jtms check").splitlines() if line.startswith("$ ")]
    assert len(lines) == 7
    for line in lines:
        said = re.search(r"# exit (\d)", line)
        done = jtms(line, tmp_path)
        assert done.returncode == (int(said.group(1)) if said else 0), (line, done.stderr)
        if "--rule influence" in line:
            assert "claim" in json.loads(done.stdout)["retired"]  # over-revision
        if "--rule exact" in line:
            assert "claim" in json.loads(done.stdout)["active"]


def test_a_memory_in_five_commands(tmp_path):
    lines = block_with("jtms init --db lab.db").strip().splitlines()
    for line in lines:
        done = jtms(line, tmp_path)
        assert done.returncode == 0, (line, done.stderr)
    state = jtms("jtms state --db lab.db --json", tmp_path)
    assert json.loads(state.stdout)["active"] == ["paper", "x"]  # "x stays: paper"


def test_the_python_example(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = block_with("from jtms import Memory", "python")
    lines = []
    for line in code.splitlines():  # `EXPR  # VALUE[: words]` -> checked where it stands
        expression, hash_, comment = line.partition("  # ")
        if hash_:
            indent = expression[: len(expression) - len(expression.lstrip())]
            stated = comment.split(": ")[0]
            line = f"{indent}checks.append((({expression.strip()}), ({stated}), {line.strip()!r}))"
        lines.append(line)
    checks: list[tuple[Any, Any, str]] = []
    exec(compile("\n".join(lines), "README.md", "exec"), {"checks": checks})
    assert len(checks) == 4
    for got, stated, line in checks:
        assert got == stated, line


def test_the_mcp_configuration_works_on_a_fresh_path(tmp_path):
    config = json.loads(block_with('"mcpServers"', "json"))
    server = config["mcpServers"]["memory"]
    assert server["command"] == "jtms"
    args = [str(tmp_path / "agent.db") if a.endswith("agent.db") else a for a in server["args"]]

    async def main() -> None:
        parameters = StdioServerParameters(
            command=sys.executable, args=["-m", "jtms", *args], env=env(), cwd=str(tmp_path)
        )
        async with Client(parameters) as client:
            added = await client.call_tool("add_evidence", {"id": "e1"})
            assert not added.is_error, added.content

    anyio.run(main)
    assert (tmp_path / "agent.db").exists()


def test_the_correction_loop(tmp_path):
    """Each → line is called over MCP on a new memory; each ← line's stated keys and values
    hold for the call before it ("the same result" repeats it)."""
    from jtms.memory.memory import Memory
    from jtms.serve.tools import MemoryAccess, build_server

    loop = block_with("→ audit")
    db = str(tmp_path / "agent.db")
    Memory.create(db).close()
    server = build_server(MemoryAccess(Memory.open(db)))

    async def main() -> int:
        checked = 0
        previous: dict[str, Any] | None = None
        async with Client(server) as client:
            for line in loop.strip().splitlines():
                arrow, _, rest = line.partition(" ")
                if arrow == "→":
                    name, _, arguments = rest.partition(" ")
                    arguments = arguments.split("  #")[0].strip()
                    result = await client.call_tool(name, json.loads(arguments))
                    assert not result.is_error, (line, result.content)
                    first, previous = previous, result.structured_content
                    if rest.startswith("audit") and first is not None and "audit_id" in first:
                        timed = ("seconds",)  # the retry's result is rebuilt, not timed
                        assert {k: v for k, v in previous.items() if k not in timed} == {
                            k: v for k, v in first.items() if k not in timed
                        }
                    continue
                assert arrow == "←" and previous is not None
                if rest.startswith("the same result"):
                    continue
                for key, value in re.findall(r'"(\w+)": (\[[^\]{]*\]|\d+)', rest):
                    assert previous[key] == ast.literal_eval(value), (line, key)
                    checked += 1
                for kept in re.findall(r'\{"id": "(\w+)", \.\.\.\}', rest):
                    assert kept in [k["id"] for k in previous["kept"]]
                    checked += 1
        return checked

    assert anyio.run(main) == 3
    assert os.path.exists(db)
