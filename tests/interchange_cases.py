"""Shared cases for the interchange tests: the PROV primer's example and generated graphs.

``PRIMER_PROVN`` is the running example of the W3C PROV Primer (W3C Working Group Note,
30 April 2013), written out here in PROV-N from the specification's text (not downloaded):
Derek composes government crime data (``exg:dataset1``) with a region list into a
composition, illustrates it as a chart for an article, the data set is revised and a new
chart derived from the revision; the article is quoted in a blog. examples/prov_primer.provn
holds the same text for docs/importing.md.
"""

from __future__ import annotations

from hypothesis import strategies as st

from theory.model.ids import id_problem
from theory.model.structure import Justification, Nogood, SupportStructure
from theory.testing import strategies as jst

PRIMER_PROVN = """\
document
  prefix exn <http://example.com/ns#>
  prefix exg <http://example.org/govt/>
  prefix exc <http://example.org/crime/>
  prefix exb <http://example.org/blog/>
  prefix foaf <http://xmlns.com/foaf/0.1/>
  prefix dcterms <http://purl.org/dc/terms/>

  entity(exn:article, [dcterms:title="Crime rises in cities"])
  entity(exg:dataset1)
  entity(exc:regionList)
  entity(exc:composition1)
  entity(exc:chart1)

  activity(exc:compile1)
  activity(exc:compose1)
  activity(exc:illustrate1)

  used(exc:compile1, exg:dataset1, -)
  wasGeneratedBy(exc:chart1, exc:compile1, -)
  used(exc:compose1, exg:dataset1, -, [prov:role='exc:dataToCompose'])
  used(exc:compose1, exc:regionList, -, [prov:role='exc:regionsToAggregateBy'])
  wasGeneratedBy(exc:composition1, exc:compose1, -)
  used(exc:illustrate1, exc:composition1, -)
  wasGeneratedBy(exc:chart1, exc:illustrate1, -)

  agent(exc:derek, [prov:type='prov:Person', foaf:givenName="Derek", foaf:mbox="<mailto:derek@example.org>"])
  wasAssociatedWith(exc:compose1, exc:derek, -)
  wasAssociatedWith(exc:illustrate1, exc:derek, -)
  agent(exc:chartgen, [prov:type='prov:Organization', foaf:name="Chart Generators Inc"])
  actedOnBehalfOf(exc:derek, exc:chartgen, exc:compose1)
  wasAttributedTo(exc:chart1, exc:derek)

  entity(exg:dataset2)
  wasDerivedFrom(exg:dataset2, exg:dataset1, [prov:type='prov:Revision'])
  entity(exc:chart2)
  wasDerivedFrom(exc:chart2, exg:dataset2)
  activity(exc:compile2)
  wasGeneratedBy(exc:chart2, exc:compile2, -)

  entity(exn:articleV1)
  specializationOf(exn:articleV1, exn:article)
  entity(exn:articleV2)
  specializationOf(exn:articleV2, exn:article)
  alternateOf(exn:articleV2, exn:articleV1)
  wasDerivedFrom(exn:article, exg:dataset1)
  wasDerivedFrom(exn:article, exc:chart1)

  entity(exb:quoteInBlogEntry-20130326)
  wasDerivedFrom(exb:quoteInBlogEntry-20130326, exn:article, [prov:type='prov:Quotation'])
endDocument
"""

# ids beyond the generated e0/c1: prefixed names, percent signs, spaces inside, non-ASCII
_ID_CHARS = st.sampled_from(list("abcXYZ019:%/#.-_ é漢"))
ids = st.text(_ID_CHARS, min_size=1, max_size=12).filter(lambda s: id_problem(s) is None)
texts = st.text(st.sampled_from(list("ab ,:é\"'{}<>&")), max_size=8)


@st.composite
def exportable_graphs(
    draw: st.DrawFn, nogoods: bool = True
) -> tuple[SupportStructure, frozenset[str]]:
    """A graph every claim of which has a justification (both formats need one), with texts,
    renamed to drawn ids, optionally nogoods, and an audit of evidence and claims."""
    structure, audit = draw(
        jst.graphs_with_audits(min_alternatives=1, max_evidence=4, max_claims=5)
    )
    names = draw(
        st.lists(ids, min_size=len(structure.nodes), max_size=len(structure.nodes), unique=True)
    )
    rename = dict(zip(sorted(structure.nodes), names))
    node_texts = {rename[n]: draw(texts) for n in structure.nodes}
    pairs = [
        Justification(rename[j.claim], frozenset(rename[a] for a in j.antecedents))
        for j in structure.justifications
    ]
    groups: list[Nogood] = []
    if nogoods:
        pool = sorted(rename.values())
        for k in range(draw(st.integers(0, 2))):
            members = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3, unique=True))
            groups.append(Nogood(f"nogood {k}", frozenset(members), draw(texts)))
        groups = [g for g in groups if g.id not in rename.values()]
    renamed = SupportStructure.build(
        sorted(rename[e] for e in structure.evidence),
        sorted(rename[c] for c in structure.claims),
        pairs,
        texts=node_texts,
        nogoods=groups,
    )
    return renamed, frozenset(rename[n] for n in audit)
