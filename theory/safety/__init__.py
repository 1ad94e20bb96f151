"""The justification boundary: the influence-safety checker and its certificate queries.

The entry points are :func:`theory.safety.check.check_structure` and
:func:`theory.safety.check.stream_check`.
"""
