"""The HTML view of annotated articles: displaCy's entity view, one block per passage.

Looking beats reading a table: each phenotype is a box labelled with its term name, its
HPO id (a link to the HPO browser) and the patient it was attributed to. The box has the
patient's colour (a legend per article says whose), a neutral one when no patient was
attributed, and negated phenotypes are grey and struck through.
"""

from __future__ import annotations

from html import escape
from typing import Iterable

from spacy import displacy
from spacy.tokens import Doc, Span

from .document import PASSAGES, PHENOTYPES, non_overlapping
from .ontology import NO_TERM_LABEL
from .phenotype import patient_ids
from .tasks.patientphex.identifiers import task_identifier

HPO_URL = "https://hpo.jax.org/browse/term/{}"
PATIENT_COLOURS = ("#a6dcef", "#ffd59e", "#c3e6b4", "#f4b6c2", "#d7c4f0", "#fff1a8", "#b8e0d2", "#f7c59f")
NO_PATIENT_COLOUR = "#e8e8e8"
SEVERAL_PATIENTS_COLOUR = "#cfd8dc"
NEGATED_COLOUR = "#fafafa"
NEGATED_BORDER = "1px dashed #999"
NEGATED_STYLE = "text-decoration: line-through; color: #777"

# displaCy's entity box, with the phenotype text and the patient as fields of their own.
ENTITY_TEMPLATE = (
    '<mark class="entity" style="background: {bg}; border: {border}; padding: 0.45em 0.6em; margin: 0 0.25em;'
    ' line-height: 1; border-radius: 0.35em;"><span style="{text_style}">{text}</span>'
    '<span style="font-size: 0.8em; font-weight: bold; line-height: 1; vertical-align: middle;'
    ' margin-left: 0.5rem">{label}{kb_link}</span>{patient}</mark>'
)
PATIENT_TEMPLATE = (
    '<span style="font-size: 0.75em; line-height: 1; vertical-align: middle; margin-left: 0.4rem;'
    ' padding: 0.1em 0.35em; border: 1px solid #555; border-radius: 0.3em">{}</span>'
)
PAGE_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>{title}</title></head>
<body style="font-size: 16px; font-family: -apple-system, BlinkMacSystemFont, 'Segoe UI', Helvetica, Arial, sans-serif; padding: 2rem; max-width: 70rem">
{content}
</body>
</html>
"""


def render_page(docs: Iterable[Doc], title: str) -> str:
    """One HTML page with every article."""
    content = "\n".join(render_article(doc) for doc in docs)
    return PAGE_TEMPLATE.format(title=escape(title), content=content)


def render_article(doc: Doc) -> str:
    colours = patient_colours(doc)
    heading = f"<h1>{escape(str(doc._.article_id or 'text'))}</h1>"
    return "\n".join([heading, legend(colours), displacy.render(passage_views(doc, colours), style="ent", manual=True, options={"template": ENTITY_TEMPLATE})])


def passage_views(doc: Doc, colours: dict[str, str]) -> list[dict]:
    """displaCy's manual input: one entry per passage, entity offsets relative to it; a
    heading wherever the section changes."""
    phenotypes = non_overlapping(doc.spans[PHENOTYPES])
    views = []
    section = None
    for passage in doc.spans[PASSAGES]:
        start, end = passage.start_char, passage.end_char
        inside = [span for span in phenotypes if start <= span.start_char < end]
        ents = [entity_view(span, start, end, colours) for span in inside]
        views.append({"text": passage.text, "ents": ents, "title": passage.label_ if passage.label_ != section else None})
        section = passage.label_
    return views


def entity_view(span: Span, passage_start: int, passage_end: int, colours: dict[str, str]) -> dict:
    hpo_ids = span._.hpo_ids or ()
    patients = patient_ids(span._.patient)
    negated = bool(span._.negex)
    if negated:
        colour = NEGATED_COLOUR
    elif len(patients) > 1:
        colour = SEVERAL_PATIENTS_COLOUR
    else:
        colour = colours.get(patients[0], NO_PATIENT_COLOUR) if patients else NO_PATIENT_COLOUR
    view = {
        "start": span.start_char - passage_start,
        "end": min(span.end_char, passage_end) - passage_start,
        "label": escape(span._.hpo_label if hpo_ids else NO_TERM_LABEL),
        "params": {
            "bg": colour,
            "border": NEGATED_BORDER if negated else "none",
            "text_style": NEGATED_STYLE if negated else "",
            "patient": PATIENT_TEMPLATE.format(escape(", ".join(patients))) if patients else "",
        },
    }
    if hpo_ids:
        view["kb_id"] = escape(task_identifier(hpo_ids))
        view["kb_url"] = HPO_URL.format(hpo_ids[0])
    return view


def patient_colours(doc: Doc) -> dict[str, str]:
    """A colour per patient: the article's patients in their order, then any other
    patient a stage attributed, in text order."""
    ids = [patient.id for patient in doc._.patients or ()]
    for span in doc.spans[PHENOTYPES]:
        for found in patient_ids(span._.patient):
            if found not in ids:
                ids.append(found)
    return {patient: PATIENT_COLOURS[i % len(PATIENT_COLOURS)] for i, patient in enumerate(ids)}


def legend(colours: dict[str, str]) -> str:
    chips = [(patient, colour, "") for patient, colour in colours.items()]
    chips += [("no patient", NO_PATIENT_COLOUR, ""), ("negated", NEGATED_COLOUR, f"{NEGATED_STYLE}; border: {NEGATED_BORDER}")]
    if len(colours) > 1:
        chips.insert(len(colours), ("several patients", SEVERAL_PATIENTS_COLOUR, ""))
    items = "".join(
        f'<span style="background: {colour}; padding: 0.2em 0.6em; margin-right: 0.5em; border-radius: 0.3em; {style}">{escape(name)}</span>'
        for name, colour, style in chips
    )
    return f'<p style="font-size: 0.9em">{items}</p>'
