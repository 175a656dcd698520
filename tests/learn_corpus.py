"""A tiny hand-made annotated corpus over the mini ontology, for the learner and the CV."""

from __future__ import annotations

import re

_MARK = re.compile(r"\[\[(?P<text>[^|\]]+)\|(?P<id>[^\]]+)\]\]")


def make_article(pmc_id: str, text: str, patients: int = 1) -> dict:
    """An annotated article from text with ``[[surface|HP:id]]`` marks (one CASE passage)."""
    entities, plain, cursor = [], [], 0
    for mark in _MARK.finditer(text):
        plain.append(text[cursor : mark.start()])
        offset = sum(map(len, plain))
        entities.append({"identifier": mark["id"], "type": "Phenotype", "offset": offset, "length": len(mark["text"]), "text": mark["text"], "note": None})
        plain.append(mark["text"])
        cursor = mark.end()
    plain.append(text[cursor:])
    ids = sorted({e["identifier"] for e in entities})
    patient_list = [{"patient_id": f"P{i}", "mention": []} for i in range(1, patients + 1)]
    return {
        "pmc_id": pmc_id,
        "pmid": None,
        "patient": patient_list,
        "full_text": [{"section_type": "CASE", "type": "paragraph", "offset": 0, "text": "".join(plain)}],
        "entities": entities,
        "association": [{"patient_id": p["patient_id"], "phenotype": ids} for p in patient_list],
    }


# 'small jaw' is always marked (reliable, new); 'fits' is marked 2 times out of 6 (unreliable);
# 'ataxia' is an ontology name never marked (blocklisted); 'cleft of the face' is marked with
# cleft palate although the ontology says orofacial cleft (an id preference); 'tiny head' is
# marked with an obsolete id; 'dominant' with an id outside the phenotype branch.
CORPUS = [
    make_article("A1", "He had a [[small jaw|HP:0000347]] and [[fits|HP:0001250]]. The fits stopped. No ataxia was seen; "
                 "ataxia runs in the family. A [[cleft of the face|HP:0000175]] and a [[tiny head|HP:0000999]]. "
                 "[[dominant|HP:0000006]]."),
    make_article("A2", "A [[small jaw|HP:0000347]] again, with fits and fits. Her mother had ataxia. "
                 "[[cleft of the face|HP:0000175]] and a [[tiny head|HP:0000999]]. [[fits|HP:0001250]].", patients=2),
    make_article("A3", "A [[small jaw|HP:0000347]]; fits. [[Seizures|HP:0001250]] and [[microcephaly|HP:0000252]].", patients=3),
    make_article("A4", "The [[small jaw|HP:0000347]] and [[Seizures|HP:0001250]]. Ataxia was absent.", patients=1),
]
