"""PubTator, the tab-separated form of title-and-abstract annotations:
``PMID|t|title``, ``PMID|a|abstract``, then one ``PMID  start  end  text  type  id`` line
per mention, a blank line after each article.

Offsets count in the title, a space and the abstract, as PubTator's do. An abstract split
into several passages (structured abstracts) is written as one, the gaps between its
passages as spaces, so every offset maps by a shift. The form holds no negation, patient
or provenance (BioC does). A full text with other sections is not PubTator's to hold (it
serves them as BioC): that is an error naming the article and the sections.
"""

from __future__ import annotations

import re

from ..errors import InputError
from ..article import Article, layout_passages

TITLE, ABSTRACT = "TITLE", "ABSTRACT"
TEXT = "TEXT"  # the one passage of a plain-text article: written as an abstract without title
ENTITY_TYPE = "Phenotype"
_BREAKS = re.compile(r"[\t\r\n]")  # would end a PubTator line or field; same length in spaces


def check_pubtator(article: Article) -> None:
    """Refuse, naming the article and its sections, what is not a title and an abstract."""
    sections = [passage.section_type for passage in article.passages]
    body = sections[1:] if sections[:1] == [TITLE] else sections
    if sections != [TEXT] and not all(section == ABSTRACT for section in body):
        other = sorted(set(sections) - {TITLE, ABSTRACT})
        raise InputError(
            f"article {article.id}: PubTator holds a title and an abstract, this article also has "
            f"{', '.join(other)} sections: write it as BioC (--output-format bioc)"
        )


def pubtator_article(article: Article, record: dict) -> str:
    """One article with its mentions in PubTator form."""
    check_pubtator(article)
    passages = article.passages
    title = passages[0] if passages and passages[0].section_type == TITLE else None
    body = passages[1:] if title else passages
    title_text = _flat(title.text) if title else ""
    text = layout_passages(passages)
    start = body[0].offset if body else 0
    end = body[-1].offset + len(body[-1].text) if body else 0
    abstract = _flat(text[start:end])
    pmid = record.get("pmid") or record["pmc_id"]
    lines = [f"{pmid}|t|{title_text}", f"{pmid}|a|{abstract}"]
    for entity in record["entities"]:
        offset, length = entity["offset"], entity["length"]
        if title and title.offset <= offset and offset + length <= title.offset + len(title.text):
            position = offset - title.offset
        elif start <= offset and offset + length <= end:
            position = len(title_text) + 1 + offset - start
        else:
            raise InputError(f"article {article.id}: mention {entity['text']!r} at {offset} lies across the title and the abstract")
        lines.append("\t".join((pmid, str(position), str(position + length), _flat(entity["text"]), ENTITY_TYPE, entity["identifier"])))
    return "\n".join(lines) + "\n\n"


def _flat(text: str) -> str:
    return _BREAKS.sub(" ", text)

