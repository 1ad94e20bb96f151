"""The justification boundary: the influence-safety checker and its certificate queries.

For a graph (influence = reachability, loops allowed) and audits of evidence, an active claim
is influence-safe iff its minimal justification is unique and equals its evidence ancestors
(Coq ``graph_influence_safe``); for audits of claims or mixed audits, iff exact revision of
{x} retires it for every such x that is the claim or one of its ancestors
(``graph_audit_safe``).

The entry points are :func:`theory.safety.check.check_structure` and
:func:`theory.safety.check.stream_check`.
"""
