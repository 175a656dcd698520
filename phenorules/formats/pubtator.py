"""PubTator, the tab-separated form of title-and-abstract annotations:
``PMID|t|title``, ``PMID|a|abstract``, then one ``PMID  start  end  text  type  id`` line
per mention, a blank line after each article.

Offsets count in the title, a space and the abstract, as PubTator's do. An abstract split
into several passages (structured abstracts) is written as one, the gaps between its
passages as spaces, so every offset maps by a shift; a tab or a line break in a text
(any that ``str.splitlines`` breaks at, U+2028 too) is written as a space, which keeps
the offsets. The id (the PMID, else the article's id) opens every line of the article, so
one that a reader would not read back (empty, with a ``|``, a tab, a line break or
spaces at its ends) is an error naming the article and the field, before any work. The
form holds no negation, patient or provenance (BioC does). A full text with other
sections is not PubTator's to hold (it serves them as BioC): that is an error naming the
article and the sections.
"""

from __future__ import annotations

import re
from typing import Iterator

from ..core.annotated import AnnotatedArticle
from ..core.errors import InputError
from ..core.article import Article, layout_passages
from ..kb.lexicon.tsv import format_ids
from .registry import Format, Parts, Stream, register

TITLE, ABSTRACT = "TITLE", "ABSTRACT"
TEXT = "TEXT"  # the one passage of a plain-text article: written as an abstract without title
ENTITY_TYPE = "Phenotype"
_BREAKS = re.compile(r"[\t\n\x0b\x0c\r\x1c-\x1e\x85\u2028\u2029]")  # end a PubTator line or field; same length in spaces
ID_SEPARATOR = "|"  # between the id and t or a


def check_pubtator(article: Article) -> None:
    """Refuse, naming the article, an id PubTator cannot hold and what is not a title and an
    abstract."""
    field, written_id = ("pmid", article.pmid) if article.pmid else ("id", article.id)
    problem = id_problem(written_id or "")
    if problem:
        raise InputError(f"article {article.id}: {field}: {problem}: PubTator could not read it back")
    sections = [passage.section_type for passage in article.passages]
    body = sections[1:] if sections[:1] == [TITLE] else sections
    if sections != [TEXT] and not all(section == ABSTRACT for section in body):
        other = sorted(set(sections) - {TITLE, ABSTRACT})
        raise InputError(
            f"article {article.id}: PubTator holds a title and an abstract, this article also has "
            f"{', '.join(other)} sections: write it as BioC (--output-format bioc)"
        )


def pubtator_article(result: AnnotatedArticle) -> str:
    """One article with its mentions in PubTator form."""
    article = result.article
    check_pubtator(article)
    passages = article.passages
    title = passages[0] if passages and passages[0].section_type == TITLE else None
    body = passages[1:] if title else passages
    title_text = _flat(title.text) if title else ""
    text = layout_passages(passages)
    start = body[0].offset if body else 0
    end = body[-1].offset + len(body[-1].text) if body else 0
    abstract = _flat(text[start:end])
    pmid = article.pmid or article.id
    lines = [f"{pmid}|t|{title_text}", f"{pmid}|a|{abstract}"]
    for phenotype in result.phenotypes:
        offset, length = phenotype.start, phenotype.end - phenotype.start
        if title and title.offset <= offset and offset + length <= title.offset + len(title.text):
            position = offset - title.offset
        elif start <= offset and offset + length <= end:
            position = len(title_text) + 1 + offset - start
        else:
            raise InputError(f"article {article.id}: mention {phenotype.text!r} at {offset} lies across the title and the abstract")
        lines.append("\t".join((pmid, str(position), str(position + length), _flat(phenotype.text), ENTITY_TYPE, format_ids(phenotype.hpo_ids))))
    return "\n".join(lines) + "\n\n"


def id_problem(identifier: str) -> str | None:
    """Why ``identifier`` cannot open a PubTator line (``ID|t|``, ``ID<tab>``), or None."""
    unfit = next((char for char in identifier if char == ID_SEPARATOR or (char.isspace() and char != " ")), None)
    if unfit:
        return f"holds {unfit!r}"
    if identifier != identifier.strip():
        return "spaces at its ends"
    return None if identifier else "empty"


def _flat(text: str) -> str:
    return _BREAKS.sub(" ", text)


def check_articles(articles: list[Article]) -> None:
    for article in articles:
        check_pubtator(article)


def _blocks(parts: Parts) -> Iterator[str]:
    return parts()


PUBTATOR = register(Format("pubtator", "PubTator", "PubTator", stream=Stream(pubtator_article, _blocks), check=check_articles))
