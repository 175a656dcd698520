"""A long article annotated in pieces: runs of passages, each its own Doc, in the memory of
one piece, with the output of the article annotated whole.

A Doc costs some 128 bytes a token (spaCy's), and the stages' state about as much again:
an article of 10 M characters as one Doc takes some 500 MB beside the pipeline. An article
longer than :data:`PIECE_CHARS` is cut before a passage where no stage reads across the
cut: the passage before it ends a sentence (".", "!" or "?"), it starts with a letter or a
digit after a line break and has no bracket among its first words, so no term, cue,
short-form definition or sentence spans the cut. Each piece is the laid-out text from its
first passage to the next piece's, tokenised as the whole text is there. The stages run on each piece as on the whole, by what each says of
itself (``MentionStage.pieces``): a ``local`` stage on each piece; a ``gathers`` stage
(abbreviations: the short forms the article defines; growth, measurements: the ids it
names) first tells what every piece says (``gather``, ``merged``), which ends one pass over
the pieces before it and starts another (each Doc made again, its sentences found again);
an ``article`` stage (patients) once, over every piece's records, passages and sentences,
at the article's offsets. A pipeline with a stage of no kind, or a pipe that is no stage
of phenorules, annotates every article whole.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import replace

from spacy.language import Language
from spacy.tokens import Doc

from .article import Article, Passage
from .document import ARTICLE, GATHERS, SPANS_PIPE, STATE_KEY, DocState, MentionStage, article_text, piece_doc, working
from .phenotype import Phenotype

# The least length of a piece: its Doc and the stages' state take some 15 MB (a whole article
# about 55 bytes a character).
PIECE_CHARS = 250_000
_SENTENCE_ENDS = (".", "!", "?")
# scispacy's long form of a short form in brackets is read from up to min(n + 5, 2n) tokens
# before them, across line breaks, for a short form of n characters (up to 3 tokens of at
# most 9: 32 tokens, filter_matches and short_form_filter): a passage that has a bracket
# among its first 33 words is not cut before.
_LONG_FORM_TOKENS = 32
_FIRST_WORDS = re.compile(rf"\s*(?:\S+\s+){{0,{_LONG_FORM_TOKENS}}}\S*")


def piece_starts(passages: tuple[Passage, ...], piece_chars: int) -> list[int]:
    """Where each piece starts (the first at 0): before the first passage at least
    ``piece_chars`` characters after the last start that may be cut before
    (:func:`cuttable`)."""
    starts = [0]
    for previous, passage in zip(passages, passages[1:]):
        if passage.offset - starts[-1] >= piece_chars and cuttable(previous, passage):
            starts.append(passage.offset)
    return starts


def cuttable(previous: Passage, passage: Passage) -> bool:
    """Whether no stage reads across the line break between ``previous`` and ``passage``:
    a sentence ends before it, a word starts after it, and no short form's brackets come
    near enough to read a long form before it."""
    return (
        passage.offset > previous.offset + len(previous.text)
        and previous.text.rstrip().endswith(_SENTENCE_ENDS)
        and passage.text[:1].isalnum()
        and "(" not in _FIRST_WORDS.match(passage.text).group()
    )


def in_pieces(nlp: Language) -> bool:
    """Whether the pipeline's stages can annotate an article in pieces: every pipe says how
    (the spans pipe aside), and the ``article`` stages come last."""
    kinds = [getattr(pipe, "pieces", None) for name, pipe in nlp.pipeline if name != SPANS_PIPE]
    if None in kinds:
        return False
    first_article = kinds.index(ARTICLE) if ARTICLE in kinds else len(kinds)
    return all(kind == ARTICLE for kind in kinds[first_article:])


class _Piece:
    """One piece: where it starts and ends in the article's text, and its records so far
    (at its own offsets), the mentions each stage dropped from it, its passages and its
    sentences."""

    def __init__(self, start: int, end: int, passages: tuple[Passage, ...]):
        self.start, self.end, self.passages_in = start, end, passages
        self.mentions: list[Phenotype] | None = None
        self.dropped: dict[str, list[tuple]] = {}
        self.passages: list[tuple[int, int, str, str]] = []
        self.sentences: list[tuple[int, int]] = []


def annotated_in_pieces(nlp: Language, article: Article, starts: list[int]) -> Doc:
    """A Doc that holds no token, with the article's state after every stage: the records of
    its pieces at the article's offsets, as the article's own Doc would have them."""
    text = article_text(nlp, article)
    pieces = _pieces(article.passages, starts, len(text))
    stages = [(name, pipe) for name, pipe in nlp.pipeline if name != SPANS_PIPE]
    token_stages = [(name, pipe) for name, pipe in stages if pipe.pieces != ARTICLE]
    carried: object = None
    for first, last in _passes(token_stages):
        annotating = [pipe for _, pipe in token_stages[:first] if not isinstance(pipe, MentionStage)]  # the Doc's own annotation (sentences), made again
        gatherer = token_stages[last][1] if last < len(token_stages) else None
        gathered = [_run(nlp, article, text, piece, annotating, token_stages[first:last], carried, gatherer) for piece in pieces]
        carried = gatherer.merged(gathered, text) if gatherer is not None else None
    doc = _joined(nlp, article, text, pieces, [name for name, _ in token_stages])
    for _, pipe in stages[len(token_stages) :]:
        pipe.apply(doc)
    return doc


def _joined(nlp: Language, article: Article, text: str, pieces: list[_Piece], stage_names: list[str]) -> Doc:
    """A Doc that holds no token, with the pieces' records, passages and sentences at the
    article's offsets, and their drops in the order the stages ``stage_names`` made them."""
    doc = nlp.make_doc("")
    doc._.article_id, doc._.patients = article.id, article.patients
    state = doc.user_data[STATE_KEY] = DocState(text, [_shifted(m, piece.start) for piece in pieces for m in piece.mentions])
    state.lay_out([passage for piece in pieces for passage in piece.passages], [sentence for piece in pieces for sentence in piece.sentences])
    state.dropped = [drop for name in stage_names for piece in pieces for drop in piece.dropped.get(name, ())]
    return doc


def _pieces(passages: tuple[Passage, ...], starts: list[int], length: int) -> list[_Piece]:
    """The pieces that start at ``starts`` in a text of ``length`` characters, each with its passages."""
    firsts = [bisect_left(passages, start, key=lambda passage: passage.offset) for start in starts]
    return [_Piece(start, end, passages[first:last]) for start, end, first, last in zip(starts, [*starts[1:], length], firsts, [*firsts[1:], None])]


def _passes(stages: list) -> list[tuple[int, int]]:
    """[first, last) of the stages each pass over the pieces runs: a pass ends before each
    ``gathers`` stage but the first."""
    cuts = [index for index, (_, pipe) in enumerate(stages) if index and pipe.pieces == GATHERS]
    return list(zip([0, *cuts], [*cuts, len(stages)]))


def _run(nlp: Language, article: Article, text: str, piece: _Piece, annotating: list, stages: list, carried: object, gatherer: MentionStage | None):
    """Run ``stages`` on the piece's Doc, made again (and ``annotating`` before them, the
    pipes that annotate its tokens), the first reading ``carried``; keep its records and
    drops, and after the last pass (no ``gatherer``) its passages and sentences; (its
    start, what it tells ``gatherer``) when one follows."""
    doc = piece_doc(nlp, article, text[piece.start : piece.end], piece.start, piece.passages_in)
    for pipe in annotating:
        doc = pipe(doc)
    state = working(doc)
    state.offset = piece.start
    if piece.mentions is not None:
        state.mentions = piece.mentions
    for index, (name, pipe) in enumerate(stages):
        state.carried = carried if index == 0 else None
        dropped = len(state.dropped)
        if isinstance(pipe, MentionStage):
            pipe.apply(doc)
        else:
            doc = pipe(doc)
        piece.dropped.setdefault(name, []).extend(_shifted_drop(drop, piece.start) for drop in state.dropped[dropped:])
    state.carried = None
    piece.mentions = state.mentions
    if gatherer is not None:
        return piece.start, gatherer.gather(doc)
    piece.passages = [(start + piece.start, end + piece.start, *kinds) for start, end, *kinds in state.passages(doc)]
    piece.sentences = [(start + piece.start, end + piece.start) for start, end in state.sentences(doc)]
    return None


def _shifted_drop(drop: tuple, by: int) -> tuple:
    start, end, *rest = drop
    return (start + by, end + by, *rest)


def _shifted(mention: Phenotype, by: int) -> Phenotype:
    """The record at the article's offsets, from its piece's (the characters it holds and
    its parts and cues moved by ``by``)."""
    if not by:
        return mention
    return replace(
        mention,
        start=mention.start + by,
        end=mention.end + by,
        parts=tuple((start + by, end + by, ids) for start, end, ids in mention.parts),
        cues=[{**cue, "start": cue["start"] + by, "end": cue["end"] + by} for cue in mention.cues],
    )

