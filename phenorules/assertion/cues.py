"""Finding the trigger cues of :mod:`phenorules.assertion.rules` in a Doc."""

from __future__ import annotations

import hashlib
from bisect import bisect_left
from functools import lru_cache
from itertools import accumulate
from pathlib import Path
from typing import Iterator, NamedTuple

import numpy
import srsly
from spacy.attrs import IS_SPACE, LOWER
from spacy.language import Language
from spacy.tokens import Doc

from ..core.memo import Remembered
from ..core.tokenizer import WordTokenizer
from ..kb.cache_file import read_through, unpacked
from ..kb.lexicon.tsv import RuleRef
from ..kb.ontology import file_digest
from .rules import ContextRule, read_context_rules

# The code a cached entry of the cues depends on: how the rules are read and the phrases split.
_CUE_CODE = ("assertion/rules.py", "core/tokenizer.py", "kb/lexicon/normalize.py")


@lru_cache(maxsize=1)
def _cue_code() -> str:
    package = Path(__file__).resolve().parent.parent
    return hashlib.sha256("".join(f"{name}:{file_digest(package / name)}\n" for name in _CUE_CODE).encode()).hexdigest()


class Cue(NamedTuple):
    """A trigger found in a Doc: its row and its tokens ``doc[start:end]``. A named tuple:
    an article's thousands are made and hashed at the cost of tuples."""

    rule: ContextRule
    start: int
    end: int

    def text(self, doc: Doc) -> str:
        """As written in the rules: lower case, single spaces."""
        return " ".join(doc[self.start : self.end].text.lower().split())


def not_cancelled(found: list[Cue]) -> list[Cue]:
    """The trigger cues of ``found`` that no pseudo-trigger of their category cancels, in
    text order (then by end and row)."""
    pseudo: dict[str, list[Cue]] = {}
    for cue in found:
        if cue.rule.direction == "pseudo":
            pseudo.setdefault(cue.rule.category, []).append(cue)
    reaches = {category: _Reach(cues) for category, cues in pseudo.items()}
    kept = [cue for cue in found if cue.rule.direction != "pseudo" and not (cue.rule.category in reaches and reaches[cue.rule.category].cancels(cue))]
    return sorted(kept, key=lambda cue: (cue.start, cue.end, cue.rule.ref))


class _Reach:
    """The pseudo-triggers of one category, sorted by start, with the furthest end among
    each prefix: whether one of them cancels a cue is one bisection.

    A pseudo-trigger ``p`` cancels a cue that overlaps it or starts right where it ends
    (``cue.start < p.end and cue.end > p.start``, or ``cue.start == p.end``), which for a
    cue of at least one token is ``p.start < cue.end and p.end >= cue.start``: among the
    pseudo-triggers that start before the cue ends, the furthest end reaches the cue's
    start."""

    def __init__(self, pseudo: list[Cue]):
        ordered = sorted(pseudo, key=lambda cue: cue.start)
        self.starts = [cue.start for cue in ordered]
        self.furthest = list(accumulate((cue.end for cue in ordered), max))

    def cancels(self, cue: Cue) -> bool:
        before = bisect_left(self.starts, cue.end)
        return before > 0 and self.furthest[before - 1] >= cue.start


def phrase_tokens(nlp: Language, rules: list[ContextRule]) -> list[list[list[str]]]:
    """Each rule's phrases as the pipeline's tokenizer splits them, with no Doc where the
    tokenizer can say its words alone (:meth:`~phenorules.core.tokenizer.WordTokenizer.words`)."""
    words = getattr(nlp.tokenizer, "words", None) or (lambda phrase: [token.text for token in nlp.make_doc(phrase)])
    return [[words(phrase) for phrase in rule.phrases] for rule in rules]


ReadCues = tuple[list[ContextRule], list[list[list[str]]]]  # the rules, and their phrases' tokens


def context_cues(nlp: Language, path: Path) -> ReadCues:
    """The rules of ``path`` (:func:`~.rules.read_context_rules`) and their :func:`phrase_tokens`;
    with the word tokenizer, from a cache entry keyed by the file's path, size and time and
    by the code that reads and splits them: spelling out and splitting the 9,000 phrases of
    the shipped rules is 20 ms of every start."""

    def read() -> ReadCues:
        rules = read_context_rules(path)
        return rules, phrase_tokens(nlp, rules)

    def stored(cues: ReadCues) -> bytes:
        rules, tokens = cues
        rows = [[list(rule.phrases), rule.category, rule.direction, rule.max_scope, rule.ref.file, rule.ref.line, rule.ref.name] for rule in rules]
        return srsly.msgpack_dumps([rows, tokens])

    def taken(section: bytes) -> ReadCues:
        rows, tokens = unpacked(section)
        return [ContextRule(tuple(phrases), category, direction, scope, RuleRef(file, line, name)) for phrases, category, direction, scope, file, line, name in rows], tokens

    if not isinstance(nlp.tokenizer, WordTokenizer):
        return read()
    return read_through("context-cues", str(path), "cues", read, stored, taken, _cue_code())


class CueMatcher:
    """Every row's phrases as token sequences (lower case), found in a Doc as spaCy's
    ``PhraseMatcher`` with ``attr="LOWER"`` finds them, with two additions.

    * Runs of spaces: the word tokenizer makes a run of spaces a token, which would stand
      between a cue's words ("negative   for" in line-wrapped clinical notes); a run
      without a line break is read through.
    * Pseudo-triggers: a pseudo row cancels every cue of its category that overlaps it or
      starts right after it ("not" in "was not only", "ruled out" in "to rule out").

    The phrases are a trie of the tokens' LOWER ids; a Doc's tokens that start a phrase are
    found in numpy, over ``Doc.to_array``, block by block, and the trie is walked only from them.
    The trie is made of the phrases' tokens (:func:`phrase_tokens`). Holds only what
    the rules made: a call keeps nothing, so one matcher serves any number of documents at
    once.
    """

    def __init__(self, nlp: Language, rules: list[ContextRule], tokens: list[list[list[str]]] | None = None):
        """``tokens``: :func:`phrase_tokens` of the rules, if read already."""
        self.rules = rules
        strings = nlp.vocab.strings
        lower_id = Remembered(lambda token: strings.add(token.lower()), 1 << 20)  # each distinct token's id made once
        self.trie: _Node = ({}, [])
        anywhere = set()
        for index, (rule, phrases) in enumerate(zip(rules, phrase_tokens(nlp, rules) if tokens is None else tokens)):
            for tokens in phrases:
                if not tokens:
                    continue
                if rule.direction in FOUND_ANYWHERE:
                    anywhere.add(lower_id[tokens[0]])
                node = self.trie
                for token in tokens:
                    node = node[0].setdefault(lower_id[token], ({}, []))
                if index not in node[1]:
                    node[1].append(index)
        # What a phrase can start with: a phrase of one token, or two tokens (their ids
        # combined), or a first token before a run of spaces.
        self.firsts = numpy.array(sorted(self.trie[0]), dtype="uint64")
        self.singles = numpy.array(sorted(first for first, node in self.trie[0].items() if node[1]), dtype="uint64")
        two = numpy.array([(first, second) for first, node in self.trie[0].items() for second in node[0]], dtype="uint64").reshape(-1, 2)
        self.pairs = numpy.unique(_pair(two[:, 0], two[:, 1]))
        self.anywhere = numpy.array(sorted(anywhere), dtype="uint64")  # the first words of FOUND_ANYWHERE rows

    def starts(self, lowers: numpy.ndarray, before_run: numpy.ndarray, reach: numpy.ndarray | None) -> Iterator[int]:
        """The tokens a phrase may start at: a phrase of one token, the first two of a longer
        one, or a first token before a run of spaces (``lowers``: the LOWER ids and a 0 after
        the last), found block by block; only in ``reach`` but for the first words of the
        rows found anywhere."""
        for low in range(0, len(before_run), BLOCK):
            high = min(low + BLOCK, len(before_run))
            block = lowers[low:high]
            # the block's distinct ids looked up, not each token; a pair only after a first token
            distinct, inverse = numpy.unique(block, return_inverse=True)
            first = numpy.isin(distinct, self.firsts)[inverse]
            starts = numpy.isin(distinct, self.singles)[inverse] | (before_run[low:high] & first)
            after_first = numpy.flatnonzero(first)
            starts[after_first[numpy.isin(_pair(block[after_first], lowers[low + 1 + after_first]), self.pairs)]] = True
            if reach is not None:
                starts &= reach[low:high] | numpy.isin(distinct, self.anywhere)[inverse]
            yield from (low + start for start in numpy.flatnonzero(starts).tolist())

    def __call__(self, doc: Doc, spaces: numpy.ndarray | None = None, reach: numpy.ndarray | None = None) -> list[Cue]:
        """The cues of ``doc`` (``spaces``: per token, is it white space, if read already);
        with ``reach`` (per token: can a cue that starts there matter), those that start in
        it, and the pseudo-triggers and section headers wherever they start."""
        if not len(doc):
            return []
        # read by index where a phrase may start: no list of 2M ints for a long text
        lowers = numpy.append(doc.to_array(LOWER), numpy.uint64(0))
        spaces = doc.to_array(IS_SPACE) == 1 if spaces is None else spaces
        passable = {i for i in numpy.flatnonzero(spaces).tolist() if "\n" not in doc[i].text}  # runs of spaces read through
        before_run = numpy.zeros(len(doc), dtype=bool)
        before_run[[i - 1 for i in passable if i]] = True
        found = set()
        for start in self.starts(lowers, before_run, reach):
            node, end = self.trie[0].get(int(lowers[start])), start + 1
            while node is not None:
                if node[1]:
                    found.update((index, start, end) for index in node[1])
                while end in passable:
                    end += 1
                node = node[0].get(int(lowers[end])) if end < len(doc) else None
                end += 1
        return not_cancelled([Cue(self.rules[index], start, end) for index, start, end in found])


BLOCK = 1 << 16  # tokens whose phrase starts are found at once: numpy's temporaries stay a few MB
# Rows whose cues act outside the sentence they start in, or on cues of another sentence
# (a pseudo-trigger across a sentence end): found wherever a caller's reach ends.
FOUND_ANYWHERE = frozenset({"pseudo", "section"})


def _pair(first: numpy.ndarray, second: numpy.ndarray) -> numpy.ndarray:
    """One id for each two token ids (uint64 arrays; the product wraps): equal pairs give equal ids."""
    return (first * numpy.uint64(0x9E3779B97F4A7C15)) ^ second


_Node = tuple[dict[int, "_Node"], list[int]]  # the next token's LOWER id -> its node; the rows whose phrase ends here
