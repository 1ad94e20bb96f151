"""Retrieval: what ``Memory.search`` returns, and how a query becomes the words it matches.

Ranking is the database's own full-text engine (:meth:`jtms.store.protocol.Store.search`:
SQLite FTS5 with porter stemming and BM25, PostgreSQL text search with ``ts_rank``); this
module only splits a query into its words and names the result. Retrieval never decides what
is active: each hit carries the status and, for an active claim, the certificate that the
revision state holds (docs/design.md section 2).

>>> query_words("Malaria vaccine's trial, 2024!")
['malaria', 'vaccine', 's', 'trial', '2024']
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from jtms.memory.limits import MAX_QUERY, MAX_QUERY_WORDS, check_text
from jtms.memory.results import Step
from theory.model.errors import InputError

DEFAULT_SEARCH_LIMIT = 50
"""Hits in one page unless the call says otherwise (sized for a model)."""
_WORD = re.compile(r"\w+")


def query_words(query: Any, cut: bool = False) -> list[str]:
    """The words of ``query`` (runs of letters and digits, lower-cased, repeats dropped),
    each of which a hit must hold in its id or text (as a word, a word of the same stem, or
    the start of a word). No words, or more than :data:`MAX_QUERY_WORDS` (unless ``cut``:
    then the first of them), is an InputError."""
    text = check_text(query, "query", MAX_QUERY)
    words = list(dict.fromkeys(word.lower() for word in _WORD.findall(text)))
    if not words:
        raise InputError("query: give at least one word to search for")
    if cut:
        return words[:MAX_QUERY_WORDS]
    if len(words) > MAX_QUERY_WORDS:
        raise InputError(f"query: at most {MAX_QUERY_WORDS} words, got {len(words)}")
    return words


@dataclass(frozen=True)
class SearchHit:
    """One node a search found: its status now (as of the page's event), its text (empty
    when purged: ``erased_by`` names the purge) and, for an active claim, its certificate."""

    id: str
    kind: str
    active: bool
    text: str
    score: float
    certificate: tuple[Step, ...] | None = None
    erased_by: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "status": "active" if self.active else "inactive",
            "text": self.text,
            "score": self.score,
            "certificate": None
            if self.certificate is None
            else [{"claim": s.claim, "antecedents": list(s.antecedents)} for s in self.certificate],
            "erased_by": self.erased_by,
        }


@dataclass(frozen=True)
class SearchPage:
    """One page of a search's hits, best first, as of ``event`` (every page of one search
    reads the first page's event); ``count``: all its hits; ``cursor``: the next page."""

    query: str
    active_only: bool
    hits: tuple[SearchHit, ...]
    count: int
    event: int
    cursor: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "active_only": self.active_only,
            "hits": [hit.as_dict() for hit in self.hits],
            "counts": {"hits": self.count},
            "event": self.event,
            "cursor": self.cursor,
        }


__all__ = ["DEFAULT_SEARCH_LIMIT", "SearchHit", "SearchPage", "query_words"]
