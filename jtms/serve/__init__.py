"""`jtms serve`: the memory over MCP (stdio, streamable HTTP) and the explorer page."""
