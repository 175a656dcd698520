"""BioC, JSON or XML, as the PMC BioC API serves full-text articles: read as
:class:`~phenorules.core.article.Article` objects, and written back with one annotation per phenotype mention.

The API (Comeau et al. 2019, "PMC text mining subset in BioC", Database) returns a list
of collections (or one collection): collection -> ``documents`` -> ``passages``, each
passage with its global ``offset``, ``text`` and ``infons`` holding ``section_type``
(TITLE, ABSTRACT, INTRO, ...) and ``type`` (front, paragraph, fig_caption, ...). These
are the fields the PatientPheX articles were made from, so a document maps to an article
field for field: ``id`` -> ``id``, the ``article-id_pmid`` infon -> ``pmid``, and no
patients (BioC has no patient list). Passages without those infons (other BioC sources)
get section type TEXT and type paragraph; a passage whose text is only in its
``sentences`` gets the sentences laid out at their offsets.

Each article read keeps its source document and collection (``Article.source``), so that
:func:`bioc_document` writes a BioC input back with its own passages, infons and
annotations untouched, adding ours. XML is read and both forms are written through the
``bioc`` package (the ``formats`` extra); JSON is read without it.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Iterator

from ..core.annotated import AnnotatedArticle
from ..core.article import Article, Passage, article_fields
from ..core.errors import InputError
from ..kb.lexicon.tsv import format_ids
from ..core.shapes import EMPTY, MISSING, NonEmpty, NonNegative, Shape, ShapeError, check, first_character
from ..core.phenotype import ASSERTION_FLAGS, Phenotype
from .admit import admitted, decode
from .registry import Format, Parts, Stream, register

DEFAULT_SECTION_TYPE = "TEXT"
DEFAULT_PASSAGE_TYPE = "paragraph"
PMID_INFON = "article-id_pmid"
COLLECTION_FIELDS = ("source", "date", "key", "infons")
SENTENCE_GAP = " "  # between the sentences of a passage that has no text of its own
XML_START = re.compile(rb"<\?xml\b|<!DOCTYPE\s+collection\b|<collection\b")
# What XML 1.0 cannot hold, not even as a character reference (NUL, most control
# characters, U+FFFE, U+FFFF): lxml refuses to write it.
NOT_XML = re.compile(r"[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


class _Invalid(Exception):
    """A problem at a place inside the JSON; parse_bioc adds the file name."""


class Sentence(Shape):
    offset: NonNegative
    text: str = ""


class BiocPassageShape(Shape):
    offset: NonNegative
    text: str = ""
    infons: dict = {}
    sentences: Any = []  # read (as Sentences) only when the passage has no text


class Document(Shape):
    id: NonEmpty
    infons: dict = {}
    passages: list[BiocPassageShape]


class Collection(Shape):
    documents: list[Document]


def parse_bioc(path: str, text: str) -> list[Article]:
    """Articles of a BioC JSON text in document order; errors name the file and the place."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{path}, line {error.lineno}: malformed JSON at column {error.colno}: {error.msg}") from None
    return _articles(path, value)


def parse_bioc_xml(path: str, text: str) -> list[Article]:
    """Articles of a BioC XML text (the ``bioc`` package parses it), as :func:`parse_bioc`."""
    from . import require

    biocxml = require("bioc.biocxml")
    encoder = require("bioc.biocjson.encoder")
    try:
        collection = biocxml.loads(text)
    except Exception as error:  # lxml's XMLSyntaxError, or int() of a bad offset in the package
        first_line = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise InputError(f"{path}: not a readable BioC XML collection ({first_line})") from None
    value = {field: getattr(collection, field) for field in COLLECTION_FIELDS}
    value["documents"] = [encoder.toJSON(document) for document in collection.documents]
    return _articles(path, value)


def _articles(path: str, value: Any) -> list[Article]:
    collections = value if isinstance(value, list) else [value]
    articles: list[Article] = []
    seen: set[str] = set()
    try:
        for i, collection in enumerate(collections):
            place = f"collection {i}" if isinstance(value, list) else "collection"
            shaped = _shaped(Collection, collection, place, collection)
            for j, (document, raw) in enumerate(zip(shaped.documents, collection["documents"])):
                header = {key: collection[key] for key in COLLECTION_FIELDS if key in collection}
                article = _article(document, f"{place}, documents[{j}]", {"collection": header, "document": raw})
                if article.id in seen:
                    raise _Invalid(f"{place}, documents[{j}].id: duplicate document {article.id!r}")
                seen.add(article.id)
                articles.append(article)
    except _Invalid as problem:
        raise InputError(f"{path}: {problem}") from None
    return articles


def _article(document: Document, place: str, source: dict) -> Article:
    """The document as an Article; ``source`` (the collection header and the document as
    read) lets :func:`bioc_document` write it back."""
    infons = [document.infons]
    passages = []
    end = 0
    for k, passage in enumerate(document.passages):
        where = f"{place} ({document.id}), passages[{k}]"
        text = passage.text or _sentence_text(passage, where)
        if passage.offset < end:
            raise _Invalid(f"{where}.offset: {passage.offset} overlaps or precedes the previous passage, which ends at {end}")
        end = passage.offset + len(text)
        infons.append(passage.infons)
        section_type = str(passage.infons.get("section_type") or DEFAULT_SECTION_TYPE)
        passages.append(Passage(passage.offset, text, section_type, str(passage.infons.get("type") or DEFAULT_PASSAGE_TYPE)))
    pmids = [str(found[PMID_INFON]) for found in infons if found.get(PMID_INFON)]
    return Article(document.id, tuple(passages), pmids[0] if pmids else None, source=source)


def _sentence_text(passage: BiocPassageShape, where: str) -> str:
    """A passage's text from its sentences, each at its global offset."""
    pieces: list[str] = []
    end = passage.offset
    for k, sentence in enumerate(_shaped(list[Sentence], passage.sentences, f"{where}.sentences")):
        place = f"{where}.sentences[{k}]"
        if sentence.offset < end:
            raise _Invalid(f"{place}.offset: {sentence.offset} precedes the end of what comes before it ({end})")
        pieces += [SENTENCE_GAP * (sentence.offset - end), sentence.text]
        end = sentence.offset + len(sentence.text)
    return "".join(pieces)


_EXPECTED = {int: "a non-negative integer", str: "a string", list: "an array", dict: "an object"}


def _shaped(model: Any, value: Any, place: str, collection: Any = None) -> Any:
    """``value`` checked against ``model``; its first problem as _Invalid naming the place
    as "collection 0, documents[1] (PMC1), passages[2].offset" (``collection``: the raw
    collection, for the document id)."""
    try:
        return check(model, value)
    except ShapeError as error:
        where = _place(place, error.loc, collection)
        if error.kind == MISSING:
            raise _Invalid(f"{where}: missing") from None
        if error.kind == EMPTY:
            raise _Invalid(f"{where}: empty string") from None
        if error.expected == (dict,) and (not error.loc or isinstance(error.loc[-1], int)):  # a record
            raise _Invalid(f"{where}: expected an object, got {type(error.value).__name__}") from None
        raise _Invalid(f"{where}: expected {_EXPECTED[error.expected[0]]}, got {json.dumps(error.value)[:40]}") from None


def _place(place: str, loc: tuple, collection: Any) -> str:
    if loc and isinstance(loc[0], int):  # a list checked on its own: sentences
        place += f"[{loc[0]}]"
    for part, following in zip(loc, loc[1:] + (None,)):
        if isinstance(part, int):
            continue
        if following is None or not isinstance(following, int):
            place += f".{part}"
        elif part == "documents":
            place += f", documents[{following}]"
        elif part == "passages":
            place += f" ({collection['documents'][loc[1]]['id']}), passages[{following}]"
        else:
            place += f".{part}[{following}]"
    return place


# --- writing -------------------------------------------------------------------------

ANNOTATION_TYPE = "Phenotype"


def bioc_document(bioc, result: AnnotatedArticle):
    """The ``bioc.BioCDocument`` of one result: the document read (a BioC input's), else
    one of the article's passages, with an annotation per mention."""
    article = result.article
    document = _document(bioc, article.source["document"]) if article.source else _new_document(bioc, article)
    _add_annotations(bioc, document, result.phenotypes)
    return document


def _collection(bioc, header: dict):
    """An empty collection with the header (source, date, key, infons) of a BioC input."""
    collection = bioc.BioCCollection()
    collection.source = str(header.get("source") or "phenorules")
    collection.date = str(header.get("date") or "")
    collection.key = str(header.get("key") or "")
    collection.infons = dict(header.get("infons") or {})
    return collection


def bioc_json(collection) -> str:
    from . import require

    return require("bioc.biocjson").dumps(collection, indent=1, ensure_ascii=False) + "\n"


def bioc_xml(collection) -> str:
    from . import require

    return require("bioc.biocxml").dumps(collection, pretty_print=True)


# --- a result at a time: an article's part is its document as it stands in the collection

DOCUMENTS = '"documents": ['  # the last key of a BioC JSON collection (bioc's encoder)
XML_DOCUMENT = "<document>"
XML_END = "</collection>\n"


def _part(document_text: Callable[[Any], str]) -> Callable[[AnnotatedArticle], dict]:
    """An article's part of a BioC file: its document written as the file holds it, and
    the collection header of the BioC input it was read from (None: read from another
    format), which the file's collection takes from the first article that has one."""

    def part(result: AnnotatedArticle) -> dict:
        from . import require

        bioc = require("bioc")
        header = result.article.source["collection"] if result.article.source else None
        return {"collection": header, "document": document_text(bioc_document(bioc, result))}

    return part


def _json_document(document) -> str:
    """The document's JSON at the depth of a collection's documents (indent 1, two levels
    in): a JSON text holds no line break but between its tokens."""
    from . import require

    encoder = require("bioc.biocjson.encoder").BioCJSONEncoder()
    return json.dumps(encoder.default(document), indent=1, ensure_ascii=False).replace("\n", "\n  ")


def _xml_document(document) -> str:
    """The document's XML as a collection holds it, its lines indented, up to the line
    after it: cut from a collection of it alone (XML text may hold line breaks)."""
    from . import require

    collection = _collection(require("bioc"), {})
    collection.add_document(document)
    text = bioc_xml(collection)
    start = text.rindex("\n", 0, text.index(XML_DOCUMENT)) + 1  # the element is the first thing of its line
    return text[start : len(text) - len(XML_END)]


def _header(parts: Parts):
    from . import require

    return _collection(require("bioc"), next((part["collection"] for part in parts() if part["collection"] is not None), {}))


def _join_json(parts: Parts) -> Iterator[str]:
    """The collection's JSON around the documents: the text of the collection without them,
    cut at its ``"documents": []``."""
    empty = bioc_json(_header(parts))
    head, tail = empty.rsplit(DOCUMENTS + "]", 1)
    opened = False
    for part in parts():
        yield (",\n  " if opened else head + DOCUMENTS + "\n  ") + part["document"]
        opened = True
    yield "\n ]" + tail if opened else empty


def _join_xml(parts: Parts) -> Iterator[str]:
    empty = bioc_xml(_header(parts))
    yield empty.removesuffix(XML_END)
    for part in parts():
        yield part["document"]
    yield XML_END


def _new_document(bioc, article: Article):
    """A document of an article read from JSONL or text: its passages with PMC's infons."""
    document = bioc.BioCDocument()
    document.id = str(article.id)
    for i, passage in enumerate(article.passages):
        out = bioc.BioCPassage()
        out.offset = passage.offset
        out.text = passage.text
        out.infons = {"section_type": passage.section_type, "type": passage.type}
        if i == 0 and article.pmid:
            out.infons[PMID_INFON] = str(article.pmid)
        document.add_passage(out)
    return document


def _document(bioc, raw: dict):
    """The JSON document as read, as a BioCDocument (keys absent in the input stay empty)."""
    document = bioc.BioCDocument()
    document.id = raw["id"]
    document.infons = dict(raw.get("infons") or {})
    for raw_passage in raw["passages"]:
        passage = bioc.BioCPassage()
        passage.offset = raw_passage["offset"]
        passage.infons = dict(raw_passage.get("infons") or {})
        passage.text = raw_passage.get("text")
        for raw_sentence in raw_passage.get("sentences") or []:
            sentence = bioc.BioCSentence()
            sentence.offset = raw_sentence["offset"]
            sentence.infons = dict(raw_sentence.get("infons") or {})
            sentence.text = raw_sentence.get("text")
            _copy_annotations(bioc, raw_sentence, sentence)
            passage.add_sentence(sentence)
        _copy_annotations(bioc, raw_passage, passage)
        document.add_passage(passage)
    _copy_annotations(bioc, raw, document)
    return document


def _copy_annotations(bioc, raw: dict, target) -> None:
    for item in raw.get("annotations") or []:
        annotation = bioc.BioCAnnotation()
        annotation.id = item.get("id")
        annotation.infons = dict(item.get("infons") or {})
        annotation.text = item.get("text")
        for location in item.get("locations") or []:
            annotation.add_location(bioc.BioCLocation(location["offset"], location["length"]))
        target.add_annotation(annotation)
    for item in raw.get("relations") or []:
        relation = bioc.BioCRelation()
        relation.id = item.get("id")
        relation.infons = dict(item.get("infons") or {})
        for node in item.get("nodes") or []:
            relation.add_node(bioc.BioCNode(node["refid"], node["role"]))
        target.add_relation(relation)


def _add_annotations(bioc, document, phenotypes: tuple[Phenotype, ...]) -> None:
    """One annotation per mention, in the passage or sentence whose text holds it."""
    holders = []
    for passage in document.passages:
        if passage.text or not passage.sentences:
            holders.append((passage.offset, passage.offset + len(passage.text or ""), passage))
            continue
        holders += [(s.offset, s.offset + len(s.text or ""), s) for s in passage.sentences]
        last = passage.sentences[-1]
        holders.append((passage.offset, last.offset + len(last.text or ""), passage))  # across sentences
    for n, phenotype in enumerate(phenotypes, start=1):
        start, end = phenotype.start, phenotype.end
        holder = next((h for a, b, h in holders if a <= start and end <= b), None)
        if holder is None:
            raise InputError(f"article {document.id}: mention {phenotype.text!r} at {start} lies in no passage")
        annotation = bioc.BioCAnnotation()
        annotation.id = f"phenorules{n}"
        annotation.text = phenotype.text
        annotation.infons = annotation_infons(phenotype)
        annotation.add_location(bioc.BioCLocation(start, end - start))
        holder.add_annotation(annotation)


def annotation_infons(phenotype: Phenotype) -> dict[str, str]:
    """The mention as BioC infons (strings only): HPO id, label, negation and the other
    assertions (medspaCy's flag names, "true"/"false") with the cues that set them
    ("FAMILY:her father@120-130"), patients, provenance."""
    infons = {"type": ANNOTATION_TYPE, "identifier": format_ids(phenotype.hpo_ids)}
    if phenotype.label:
        infons["label"] = phenotype.label
    infons["negated"] = "true" if phenotype.negated else "false"
    for flag in ASSERTION_FLAGS[1:]:
        infons[flag] = "true" if flag in phenotype.assertions else "false"
    if phenotype.cues:
        infons["assertion_cues"] = "; ".join(f"{cue['category']}:{cue['text']}@{cue['start']}-{cue['end']}" for cue in phenotype.cues)
    if phenotype.patients:
        infons["patients"] = ";".join(phenotype.patients)
    if phenotype.provenance:
        infons["provenance"] = "; ".join(phenotype.provenance)
    return infons


def read_bioc(name: str, data: bytes, text_id: str | None, on_error: str) -> list[Article]:
    """BioC XML or JSON (by the content); errors name the file."""
    text = decode(name, data)
    try:
        articles = parse_bioc_xml(name, text) if XML_START.match(text.lstrip()[:64].encode()) else parse_bioc(name, text)
    except RecursionError:
        raise InputError(f"{name}: malformed JSON: nested too deeply") from None
    except ValueError:  # Python's limit on the digits of an integer (4,300)
        raise InputError(f"{name}: malformed JSON: a number with too many digits") from None
    return admitted(name, articles, on_error)


def _bioc_installed(articles: list[Article]) -> None:
    from . import require

    require("bioc")


def _xml_writable(articles: list[Article]) -> None:
    """Refuse, naming the article and the field, a string XML cannot hold: in the article
    (its id, pmid, passages, patient ids) or in the BioC document it was read from."""
    _bioc_installed(articles)
    for article in articles:
        source = {"source": article.source} if article.source is not None else {}
        found = first_character(article_fields(article) | source, NOT_XML)
        if found is not None:
            field, position, char = found
            where = "in a key" if position is None else f"at character {position}"
            raise InputError(f"article {article.id}: {field}: {char!r} {where} cannot be written in XML: write it as BioC JSON (--output-format bioc)")


BIOC = register(
    Format("bioc", "BioC JSON (and XML, told by the content)", "BioC JSON", extensions=(".xml",), read=read_bioc, stream=Stream(_part(_json_document), _join_json), check=_bioc_installed)
)
BIOC_XML = register(Format("bioc-xml", "BioC XML", "BioC XML", read=read_bioc, stream=Stream(_part(_xml_document), _join_xml), check=_xml_writable))
