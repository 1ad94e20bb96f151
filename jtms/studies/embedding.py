"""A deterministic local text embedding: no model, no state, byte-identical on every run.

RevisionPair gives both worlds of a pair the same embeddings; this is how they are made.

>>> embed("kinase inhibitor") == embed("kinase inhibitor")
True
>>> len(embedding_bytes(embed("kinase inhibitor")))
512
"""

from __future__ import annotations

import hashlib
import math
import re
import struct
from collections.abc import Sequence

EMBEDDING_DIM = 64
_WORD = re.compile(r"\w+")


def embed(text: str, dim: int = EMBEDDING_DIM) -> tuple[float, ...]:
    """Feature-hashed bag of words and bigrams (blake2b), L2-normalised, rounded to 6 digits."""
    words = [w.lower() for w in _WORD.findall(text)]
    features = words + [f"{a} {b}" for a, b in zip(words, words[1:])]
    vector = [0.0] * dim
    for feature in features:
        digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
        slot = int.from_bytes(digest[:4], "little") % dim
        vector[slot] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return tuple(round(v / norm, 6) for v in vector)


def embedding_bytes(vector: Sequence[float]) -> bytes:
    """The vector as little-endian doubles (what a vector store would keep)."""
    return struct.pack(f"<{len(vector)}d", *vector)
