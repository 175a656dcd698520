"""The HTML pages: the view of annotated articles (``phenorules annotate --html``) and the
curation page of ``phenorules serve``.

Every page is a Jinja2 template under ``phenorules/templates/`` rendered with autoescaping
on: a field of the input (section names, ids, patient ids, text, labels, provenance) can
only ever become text or a quoted attribute value, never markup. Both pages show an
article as :func:`article_view` describes it (the ``/annotate`` answer without its record),
so they show the same mentions, colours and flags.

In the view each phenotype is a box labelled with its term name, its HPO ids (links to
the HPO browser), its patients and its flags (negated, uncertain, hypothetical,
historical, family) with their cues; the box has its patient's colour, a negated one is
grey and struck through, an uncertain one dotted, a hypothetical or a relative's one
dashed. A table of contents heads the page with each article's counts.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from functools import cache
from typing import Iterable, NamedTuple
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, StrictUndefined

from ..core.annotated import AnnotatedArticle
from ..kb.lexicon.tsv import parse_ids
from ..kb.matcher import non_overlapping
from ..core.phenotype import mention_rows

HPO_URL = "https://hpo.jax.org/browse/term/{}"
PUBMED_URL = "https://pubmed.ncbi.nlm.nih.gov/{}/"
PATIENT_COLOURS = ("#a6dcef", "#ffd59e", "#c3e6b4", "#f4b6c2", "#d7c4f0", "#fff1a8", "#b8e0d2", "#f7c59f")
NO_PATIENT_COLOUR = "#e8e8e8"
SEVERAL_PATIENTS_COLOUR = "#cfd8dc"
NO_ARTICLE_ID = "text"
SEVERAL, NONE = "several", "none"  # the colour classes of a box with several patients, with none


@dataclass(frozen=True)
class Flag:
    """An assertion a mention row carries as a true/false field, and the ConText category
    whose cue (the row's ``assertion_cues``) set it. The pages show every flag of this list
    the same way (a chip with the cue, a legend entry, a count, a ``flag-<field>`` class for
    its look)."""

    field: str
    category: str


# The flags of a mention, in the order shown: the assertion stage's (stages/assertion.py).
FLAGS = (
    Flag("negated", "NEGATED_EXISTENCE"),
    Flag("uncertain", "POSSIBLE_EXISTENCE"),
    Flag("hypothetical", "HYPOTHETICAL"),
    Flag("historical", "HISTORICAL"),
    Flag("family", "FAMILY"),
)


def mention_flags(row: dict) -> list[dict]:
    """The flags that hold for a mention row, each ``{"field", "cue"}`` (cue "" if none)."""
    flags = []
    for flag in FLAGS:
        if row.get(flag.field):
            cues = [cue["text"] for cue in row.get("assertion_cues") or () if cue["category"] == flag.category]
            flags.append({"field": flag.field, "cue": cues[0] if cues else ""})
    return flags


def article_view(result: AnnotatedArticle) -> dict:
    """An annotated article as the pages show it: id, PMID, text, passages, the given
    patients and the mentions (``annotate --json`` rows, each with its ``flags``)."""
    article = result.article
    return {
        "id": article.id,
        "pmid": article.pmid,
        "text": article.text,
        "passages": [
            {"start": passage.offset, "end": passage.offset + len(passage.text), "section_type": passage.section_type, "type": passage.type}
            for passage in article.passages
            if passage.text
        ],
        "patients": [patient.id for patient in article.patients],
        "mentions": [{**row, "flags": mention_flags(row)} for row in mention_rows(article.id, list(result.phenotypes))],
    }


@cache
def environment() -> Environment:
    """Templates from the package (a wheel ships them), every field escaped."""
    return Environment(loader=PackageLoader("phenorules", "templates"), autoescape=True, undefined=StrictUndefined, keep_trailing_newline=True)


def render_template(name: str, **context) -> str:
    return environment().get_template(name).render(**context)


def render_page(articles: Iterable[dict], title: str) -> str:
    """The view of :func:`article_view` articles: one page with a table of contents."""
    shown = [shown_article(article, number) for number, article in enumerate(articles, 1)]
    return render_template(
        "view.html.j2",
        title=title,
        articles=shown,
        flags=[flag.field for flag in FLAGS],
        patient_colours=PATIENT_COLOURS,
        no_patient_colour=NO_PATIENT_COLOUR,
        several_patients_colour=SEVERAL_PATIENTS_COLOUR,
    )


def page_config() -> dict:
    """What the curation page's script shares with the view: colours and flags."""
    return {
        "patient_colours": list(PATIENT_COLOURS),
        "no_patient_colour": NO_PATIENT_COLOUR,
        "several_patients_colour": SEVERAL_PATIENTS_COLOUR,
        "flags": [flag.field for flag in FLAGS],
    }


def shown_article(article: dict, number: int) -> dict:
    """What the template needs of one article: its passages cut into text and mention
    boxes, the legend (only the kinds of the boxes shown) and the counts (every mention)."""
    mentions = article["mentions"]
    colours = patient_classes(article)
    boxes = [mention_box(mention, colours) for mention in mentions]
    shown = shown_mentions(mentions)
    counts = dict.fromkeys(colours, 0)
    for mention in mentions:
        for patient in mention["patients"]:
            counts[patient] += 1
    visible = [boxes[index] for index in shown]
    return {
        "number": number,
        "id": article["id"] or NO_ARTICLE_ID,
        "pmid": article["pmid"],
        "pmid_url": PUBMED_URL.format(quote(article["pmid"], safe="")) if article["pmid"] else None,
        "passages": shown_passages(article, boxes, shown),
        "legend": legend(colours, visible),
        "legend_flags": [flag.field for flag in FLAGS if any(flag.field in box["flag_fields"] for box in visible)],
        "mentions": len(mentions),
        "patients": [(patient, count) for patient, count in counts.items() if count],
        "flag_counts": [sum(flag.field in box["flag_fields"] for box in boxes) for flag in FLAGS],
    }


def shown_passages(article: dict, boxes: list[dict], shown: list[int]) -> list[dict]:
    """Each passage as pieces of text and the boxes of the mentions shown in it, with its
    section as a heading where the section changes."""
    mentions, text = article["mentions"], article["text"]
    starts = [mentions[index]["start"] for index in shown]
    passages, section = [], None
    for passage in article["passages"]:
        start, end = passage["start"], passage["end"]
        pieces, cursor = [], start
        for index in shown[bisect_left(starts, start) : bisect_left(starts, end)]:
            pieces += [text[cursor : mentions[index]["start"]], boxes[index]]
            cursor = min(mentions[index]["end"], end)
        pieces.append(text[cursor:end])
        heading = passage["section_type"] if passage["section_type"] != section else None
        passages.append({"heading": heading, "type": passage["type"], "pieces": [piece for piece in pieces if piece]})
        section = passage["section_type"]
    return passages


def legend(colours: dict[str, str], visible: list[dict]) -> list[tuple[str, str]]:
    """The colours the boxes shown use: each patient that has a box of its own, then
    several patients and no patient."""
    alone = {box["patients"][0] for box in visible if len(box["patients"]) == 1}
    classes = {box["colour"] for box in visible}
    return [(patient, colour) for patient, colour in colours.items() if patient in alone] + [
        (name, colour) for name, colour in (("several patients", SEVERAL), ("no patient", NONE)) if colour in classes
    ]


def mention_box(mention: dict, colours: dict[str, str]) -> dict:
    """One mention's box, coloured by its patient (a class of :func:`patient_classes`)."""
    patients = mention["patients"]
    return {
        "text": mention["text"],
        "label": mention["label"],
        "links": [(hpo_id, HPO_URL.format(quote(hpo_id, safe=":"))) for hpo_id in parse_ids(mention["hpo_id"])],
        "hpo_id": mention["hpo_id"],
        "patients": patients,
        "colour": SEVERAL if len(patients) > 1 else colours[patients[0]] if patients else NONE,
        "flags": mention["flags"],
        "flag_fields": [flag["field"] for flag in mention["flags"]],
        "provenance": " · ".join(mention["provenance"]),
    }


def patient_classes(article: dict) -> dict[str, str]:
    """A colour class per patient (``p0``.. for PATIENT_COLOURS): the article's patients
    in their order, then any other patient a stage attributed, in text order."""
    ids = dict.fromkeys(article["patients"])
    for mention in article["mentions"]:
        ids.update(dict.fromkeys(mention["patients"]))
    return {patient: f"p{i % len(PATIENT_COLOURS)}" for i, patient in enumerate(ids)}


class _Extent(NamedTuple):
    start: int
    end: int
    index: int


def shown_mentions(mentions: list[dict]) -> list[int]:
    """The indexes of the mentions a text can show as boxes, in text order: of
    overlapping ones the longest, then the first (as spaCy's ``filter_spans``)."""
    extents = [_Extent(mention["start"], mention["end"], index) for index, mention in enumerate(mentions)]
    return [extent.index for extent in non_overlapping(extents, lambda e: (e.start - e.end, e.start))]
