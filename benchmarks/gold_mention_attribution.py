"""Patient attribution alone: the patient stage run on GOLD phenotype mentions.

Usage: PYTHONPATH=. python benchmarks/gold_mention_attribution.py ANNOTATED.jsonl [--disable patients]
Prints the score table; its micro/macro rows are the attribution upper bound of the
mention finder (perfect mentions and negation in, only patient attribution measured).
"""

from __future__ import annotations

import sys

from phenorules.core.document import PHENOTYPE_LABEL, PHENOTYPES, make_article_doc
from phenorules.stages.pipeline import build_pipeline
from phenorules.formats.patientphex.articles import to_article
from phenorules.formats.patientphex.identifiers import parse_identifier
from phenorules.formats.patientphex.io import read_articles
from phenorules.core.annotated import annotated_article
from phenorules.formats.patientphex.records import to_record
from phenorules.tasks.patientphex.score import format_table, score


def gold_mention_doc(nlp, article):
    """The article Doc after sentence splitting, with the gold mentions as phenotype spans."""
    doc = nlp.get_pipe("sentences")(make_article_doc(nlp, to_article(article)))
    spans = []
    for entity in article["entities"]:
        span = doc.char_span(entity["offset"], entity["offset"] + entity["length"], label=PHENOTYPE_LABEL, alignment_mode="expand")
        span._.hpo_ids = parse_identifier(entity["identifier"])
        span._.negex = entity.get("note") == "NO"
        span._.provenance = ["gold"]
        spans.append(span)
    doc.spans[PHENOTYPES] = spans
    return doc


def main(path: str, disable: list[str]) -> None:
    nlp = build_pipeline(disable=disable)
    articles = read_articles(path, gold=True)
    records = []
    for article in articles:
        doc = gold_mention_doc(nlp, article)
        if "patients" in nlp.pipe_names:
            doc = nlp.get_pipe("patients")(doc)
        record = to_record(annotated_article(to_article(article), doc))
        record["entities"] = article["entities"]
        records.append(record)
    print(format_table(score(articles, records)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[3:] if sys.argv[2:3] == ["--disable"] else [])
