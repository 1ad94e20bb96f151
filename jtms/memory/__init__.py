"""The persistent memory: :class:`~jtms.memory.memory.Memory` (the one public API of a stored
memory), its result types, its checkpoints, its JSON Lines export and acting on a diagnosis.

Modules: ``memory`` (the facade: reads, writes, synchronisation across processes, history),
``results`` (the dataclasses it returns), ``checkpoint`` (the state at one event as bytes),
``jsonl`` (a whole memory as one JSON Lines file), ``documents`` (the texts and calculations a
graph document may carry, checked one way for every command) and ``contradictions``
(auditing a chosen diagnosis). Storage itself is :mod:`jtms.store`; the semantics are :mod:`theory`'s.
"""
