"""The incremental engine of the memory: a growing numbered index, id tables and audit plans."""
