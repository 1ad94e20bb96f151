"""One entry point for the readers: ``--from reasons|prov|datalog FILE`` to an :class:`Imported`."""

from __future__ import annotations

from pathlib import Path

from jtms.interchange.imported import Imported
from theory.model.errors import InputError

SOURCES = ("reasons", "prov", "datalog")


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
    evidence: list[str] | None = None,
) -> Imported:
    """Read ``path`` as ``kind`` (``reasons``, ``prov`` or ``datalog``), refusing options the
    kind has not. ``evidence``: with ``datalog``, the predicates whose facts are evidence."""
    if evidence is not None and kind != "datalog":
        raise InputError("--evidence names Datalog predicates: it needs --from datalog")
    if kind == "datalog":
        if drop_out_lists or any(
            o is not None for o in (out_lists, derivations, bundles, specializations, prov_ids)
        ):
            raise InputError(
                "--drop-out-lists, --out-lists, --derivations, --bundles, --specializations "
                "and --prov-ids read ftl-reasons networks and PROV documents, not Datalog"
            )
        from jtms.interchange.datalog import read_datalog

        return read_datalog(path, evidence=evidence)
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
