"""What a memory shows its readers: the machine payloads shared by the CLI's ``--json`` and the
MCP tools (``payloads``), the pages and cursors of results that grow with the memory
(``pages``) and drawings of the support graph (``drawing``). The working context under a
token budget is the memory's own (:mod:`jtms.memory.context`).
"""
