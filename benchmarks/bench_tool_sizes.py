"""What a model reads from ``jtms serve``: the bytes of ``tools/list`` (descriptions, input and
output schemas) and of ``context``'s content block against its structured result, on a
memory of N claims, through the official MCP client (in process).

    python -m benchmarks.bench_tool_sizes --claims 2000 --json
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import anyio
from mcp import Client
from mcp_types import TextContent

from benchmarks.bench_batch import batch
from jtms.memory.context import count_tokens
from jtms.memory.memory import Memory
from jtms.serve.tools import MemoryAccess, build_server


def _size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


async def measure(claims: int, budgets: list[int]) -> dict[str, Any]:
    memory = Memory.create(":memory:")
    document = batch(claims * 5 // 4)  # one evidence in five nodes
    memory.import_graph(document)
    out: dict[str, Any] = {"nodes": len(document["nodes"])}
    async with Client(build_server(MemoryAccess(memory))) as client:
        tools = [
            t.model_dump(mode="json", by_alias=True, exclude_none=True)
            for t in (await client.list_tools()).tools
        ]
        out["tools"] = len(tools)
        out["tools_list_bytes"] = _size({"tools": tools})
        out["descriptions_bytes"] = sum(len(t.get("description", "").encode()) for t in tools)
        out["input_schemas_bytes"] = sum(_size(t["inputSchema"]) for t in tools)
        out["output_schemas_bytes"] = sum(_size(t.get("outputSchema") or {}) for t in tools)
        out["context"] = []
        for budget in budgets:
            result = await client.call_tool("context", {"budget": budget, "query": "topic 3"})
            (block,) = result.content
            assert isinstance(block, TextContent) and result.structured_content is not None
            out["context"].append(
                {
                    "budget": budget,
                    "content_chars": len(block.text),
                    "content_tokens": count_tokens(block.text),
                    "structured_bytes": _size(result.structured_content),
                }
            )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=2000)
    parser.add_argument("--budget", type=int, action="append", default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    out = anyio.run(measure, args.claims, args.budget or [2000, 8000])
    print(json.dumps(out, sort_keys=True, indent=None if args.json else 1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
