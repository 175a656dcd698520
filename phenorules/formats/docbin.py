"""spaCy's ``DocBin`` (a ``.spacy`` file): the results as Docs for other spaCy projects
(``DocBin().from_disk(path).get_docs(nlp.vocab)``, spaCy's training corpora).

Each article is one Doc of its text (passages at their global offsets, tokenised as the
pipeline tokenises, so every mention is whole tokens) whose span group ``phenotypes`` holds
one span per phenotype mention, labelled ``PHENOTYPE`` with the first HPO id as
``kb_id_`` (``NIL`` when no term fits), as the spaCy component gives them;
``doc.user_data["phenorules"]`` holds the rest: the article id and pmid, each mention's ids,
label, assertions, patients and provenance, and the associations. spaCy serialises the
strings sorted and the rest in order: the same results give the same bytes.
"""

from __future__ import annotations

from spacy.tokens import DocBin

from ..core.annotated import AnnotatedArticle
from ..core.document import PHENOTYPE_LABEL, PHENOTYPES
from ..stages.pipeline import blank_english
from .registry import Format, register

NO_TERM = "NIL"  # spaCy's kb_id of an entity no knowledge-base entry fits
USER_DATA_KEY = "phenorules"


def write_docbin(results: list[AnnotatedArticle]) -> bytes:
    nlp = blank_english()
    docs = DocBin(store_user_data=True)
    for result in results:
        doc = nlp.make_doc(result.article.text)
        doc.spans[PHENOTYPES] = [
            doc.char_span(p.start, p.end, label=PHENOTYPE_LABEL, kb_id=p.hpo_ids[0] if p.hpo_ids else NO_TERM, alignment_mode="expand")
            for p in result.phenotypes
        ]
        doc.user_data[USER_DATA_KEY] = {
            "article": result.article.id,
            "pmid": result.article.pmid,
            "phenotypes": [
                {"start": p.start, "end": p.end, "hpo_ids": list(p.hpo_ids), "label": p.label, "assertions": list(p.assertions), "patients": list(p.patients), "provenance": list(p.provenance)}
                for p in result.phenotypes
            ],
            "associations": result.associations,
        }
        docs.add(doc)
    return docs.to_bytes()


DOCBIN = register(Format("docbin", "spaCy DocBin (.spacy)", "DocBin", write=write_docbin))
