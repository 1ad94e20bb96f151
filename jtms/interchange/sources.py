"""One entry point for the readers: ``--from reasons|prov FILE`` to an :class:`Imported`."""

from __future__ import annotations

from pathlib import Path

from jtms.interchange.imported import Imported
from theory.model.errors import InputError

SOURCES = ("reasons", "prov")


def read_source(
    kind: str,
    path: str | Path,
    *,
    drop_out_lists: bool = False,
    derivations: str | None = None,
    out_lists: str | None = None,
    bundles: str | None = None,
    specializations: str | None = None,
    prov_ids: str | None = None,
) -> Imported:
    """Read ``path`` as ``kind`` (``reasons`` or ``prov``), refusing options the kind has not."""
    if kind == "reasons":
        if any(o is not None for o in (derivations, bundles, specializations, prov_ids)):
            raise InputError(
                "--derivations, --bundles, --specializations and --prov-ids read PROV "
                "documents; they have no meaning with --from reasons"
            )
        from jtms.interchange.reasons import read_reasons

        return read_reasons(path, drop_out_lists=drop_out_lists, out_lists=out_lists)
    if kind == "prov":
        if drop_out_lists or out_lists is not None:
            raise InputError(
                "--drop-out-lists and --out-lists read ftl-reasons networks; PROV has no out-lists"
            )
        from jtms.interchange.prov import read_prov

        return read_prov(
            path,
            derivations=derivations,
            bundles=bundles or "refuse",
            specializations=specializations or "ignore",
            ids=prov_ids or "uri",
        )
    raise InputError(f"unknown source {kind!r}: expected one of {', '.join(SOURCES)}")
