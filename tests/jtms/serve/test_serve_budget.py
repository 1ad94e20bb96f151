"""What a model reads from the server stays within its budget (issue 58, item 4): the content
block of ``context`` is the rendered text, at most the budget in the documented token count
(:func:`jtms.memory.context.count_tokens`), with the structured data beside it; the tool
list carries no schema titles, output schemas only keys and types, and fits its budget."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import TextContent

from benchmarks.bench_batch import batch
from jtms.memory.context import count_tokens
from jtms.memory.memory import Memory
from jtms.serve.tools import MemoryAccess, build_server

TOOLS_LIST_BYTES = 28_500  # 17 tools with search and purge (benchmarks/bench_tool_sizes.py: 27.6 KB); 37.4 KB with 14 before the trim


def server_of(claims: int) -> Any:
    memory = Memory.create(":memory:")
    document = batch(claims)
    memory.import_graph(document)
    return build_server(MemoryAccess(memory))


@pytest.mark.parametrize("budget", [0, 40, 300, 2000])
def test_the_context_block_is_the_text_within_the_budget(budget):
    server = server_of(300)

    async def main() -> None:
        async with Client(server) as client:
            result = await client.call_tool("context", {"budget": budget, "query": "topic 3"})
            (block,) = result.content
            assert isinstance(block, TextContent)
            data = result.structured_content
            assert data is not None and block.text == data["text"]
            assert count_tokens(block.text) <= budget == data["budget"]
            assert count_tokens(block.text) <= data["tokens"] <= budget  # lines counted apart
            if budget >= 300:
                assert data["claims"] and data["claims"][0]["id"] in block.text
            other = await client.call_tool("state", {"ids": ["e0"]})  # others: JSON copy
            (copy,) = other.content
            assert isinstance(copy, TextContent)
            assert json.loads(copy.text) == other.structured_content

    anyio.run(main)


def _keys(schema: Any, found: set[str]) -> set[str]:
    """Every key used in a schema's own mappings (not the names of properties)."""
    if isinstance(schema, list):
        for item in schema:
            _keys(item, found)
    elif isinstance(schema, dict):
        for key, value in schema.items():
            if key in ("properties", "$defs"):
                for sub in value.values():
                    _keys(sub, found)
            else:
                found.add(key)
                _keys(value, found)
    return found


def test_the_tool_list_is_lean():
    server = server_of(10)

    async def main() -> None:
        async with Client(server) as client:
            tools = [
                t.model_dump(mode="json", by_alias=True, exclude_none=True)
                for t in (await client.list_tools()).tools
            ]
            size = len(json.dumps({"tools": tools}, separators=(",", ":")).encode())
            assert size <= TOOLS_LIST_BYTES, size
            for entry in tools:
                assert "title" not in _keys(entry["inputSchema"], set()), entry["name"]
                output = entry["outputSchema"]
                assert not {"title", "$defs"} & _keys(output, set()), entry["name"]
                for prop in output.get("properties", {}).values():
                    said = prop.get("description")
                    assert said is None or said.startswith("each item: "), (entry["name"], said)

    anyio.run(main)
