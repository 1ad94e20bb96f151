"""What a memory shows its readers: the machine payloads shared by the CLI's ``--json`` and the
MCP tools (``payloads``), the working context under a token budget (``context``) and drawings
of the support graph (``drawing``).
"""
