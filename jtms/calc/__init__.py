"""Recorded calculations: the grammar and static bounds of an expression (``safe_expr``), its
re-execution and comparison with the recorded value (``quantities``), worker processes under a
time limit (``sandbox``) and the reviewer that audits the discrepancies (``reviewer``).
"""
