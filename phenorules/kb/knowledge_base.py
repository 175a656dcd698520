"""The knowledge base every stage reads: the ontology, the lexicon's automaton and the
word-set index built over the same lexicon entries.

One object, built once per (ontology, lexicon) pair and handed to each stage by its config
(:mod:`phenorules.stages.knowledge`), so that no stage reaches into another for it.
:class:`BaseLexicon` builds the knowledge bases that differ only by learned rows (a
cross-validation fold's) on one ontology lexicon.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from .lexicon import Blocked, Lexicon, LexiconConfig, add_rows, apply_blocklist, is_learned_file, lexicon_parts
from .lexicon.morphology import Morphology
from .lexicon.normalize import normalize_key
from .lexicon.substitutions import Substitution
from ..core.forking import available_cores, forked_pool, inherited
from .matcher import KeysAsked, PhraseMatcher
from .ontology import Ontology
from .spelling import SpellingIndex
from .word_sets import WordSetIndex


class KnowledgeBase:
    """The loaded ontology and the compiled matchers for one (ontology, lexicon) pair, and
    the index of the lexicon's long words that the spelling stage reads: a SpellingIndex,
    or its bytes (a cache section), read when first asked for; none, an empty index (that
    stage then reads no word as a misspelling).

    A plain class, not a dataclass: spaCy's config validation would copy a dataclass
    field by field, and the stages of one pipeline must share this object."""

    def __init__(
        self, ontology: Ontology, matcher: PhraseMatcher, word_sets: WordSetIndex, head_words: frozenset[str] | None = None, spelling: SpellingIndex | bytes | None = None
    ):
        self.ontology, self.matcher, self.word_sets = ontology, matcher, word_sets
        self._head_words = head_words
        self._spelling = spelling if spelling is not None else SpellingIndex.build(())

    @property
    def head_words(self) -> frozenset[str]:
        """The last word (its base form) of each HPO name and synonym written in plain order
        ('Abnormality of eye movement': movement; 'Seizures, tonic-clonic' is left out): the
        words that head a noun phrase. Read from the ontology when first asked (0.1 s), and
        kept in the cache."""
        if self._head_words is None:
            self._head_words = head_words(self.ontology, self.word_sets.morphology)
        return self._head_words

    @property
    def spelling(self) -> SpellingIndex:
        if isinstance(self._spelling, bytes):
            self._spelling = SpellingIndex.from_bytes(self._spelling)
        return self._spelling

    @classmethod
    def compile(
        cls, ontology: Ontology, lexicon: Lexicon, lexicon_dir: Path, morphology: Morphology, substitutions: list[Substitution] = ()
    ) -> "KnowledgeBase":
        """``morphology`` is the variant generator's, so both know one notion of a word. A
        large lexicon's word-set index, spelling index and head words are made in a forked
        process (:mod:`.forking`) while this one builds the matcher and packs its rows as
        the cache stores them (:class:`~.matcher.PhraseMatcher`'s ``packed``); the index
        takes the matcher's rows of the keys it names when it comes back."""
        pool = forked_pool(1, (ontology, lexicon, lexicon_dir, morphology)) if len(lexicon) >= FORKED_WORD_SETS_KEYS and available_cores() > 1 else None
        if pool is None:
            matcher = PhraseMatcher(lexicon)
            word_sets = WordSetIndex.build(lexicon, matcher, lexicon_dir, morphology)
            spelling = SpellingIndex.build(lexicon.entries)
            heads = None  # read when first asked for
        else:
            with pool:
                built = pool.submit(_indexes_in_worker)
                matcher = PhraseMatcher(lexicon, packed=True)
                word_sets_bytes, asked, spelling_bytes, heads = built.result()
                word_sets = WordSetIndex.from_bytes(word_sets_bytes).renumbered(list(map(matcher.row_of, asked)))
                spelling = SpellingIndex.from_bytes(spelling_bytes)
        return cls(ontology, matcher, word_sets.with_substitutions(matcher, substitutions) if substitutions else word_sets, heads, spelling)


def head_words(ontology: Ontology, morphology: Morphology) -> frozenset[str]:
    """:attr:`KnowledgeBase.head_words` of an ontology."""
    heads = set()
    for hpo_id, name in ontology.names.items():
        for written in (name, *(synonym.text for synonym in ontology.synonyms.get(hpo_id, ()))):
            words = normalize_key(written).split()
            if words and "," not in written and "(" not in written:
                heads.add(morphology.base(words[-1]) or words[-1])
    return frozenset(heads)


FORKED_WORD_SETS_KEYS = 20_000  # a smaller lexicon (a test's) builds faster than a process forks


def _indexes_in_worker() -> tuple[bytes, list[str], bytes, frozenset[str]]:
    """The word-set index (its rows the numbers of the keys asked for, which come with it),
    the spelling index and the head words."""
    ontology, lexicon, lexicon_dir, morphology = inherited()
    asked = KeysAsked()
    word_sets = WordSetIndex.build(lexicon, asked, lexicon_dir, morphology)
    return word_sets.to_bytes(), asked.keys, SpellingIndex.build(lexicon.entries).to_bytes(), head_words(ontology, morphology)


def without_learned_files(config: LexiconConfig) -> LexiconConfig:
    """The lexicon config less its learned files: what a fold learns against."""
    return replace(
        config,
        extra_files=tuple(n for n in config.extra_files if not is_learned_file(n)),
        blocklist_files=tuple(n for n in config.blocklist_files if not is_learned_file(n)),
        substitution_files=tuple(n for n in config.substitution_files if not is_learned_file(n)),
    )


class BaseLexicon:
    """The ontology lexicon and curated files of one config (learned files left out), and
    the knowledge bases with learned rows on top."""

    def __init__(self, ontology: Ontology, config: LexiconConfig, lexicon_dir: Path):
        self.ontology, self.config, self.lexicon_dir = ontology, config, lexicon_dir
        parts = lexicon_parts(ontology, lexicon_dir, config)
        self.res, self.blocked = parts.res, parts.blocked
        self.lexicon = apply_blocklist(parts.lexicon, self.blocked, config.min_key_length)
        self.knowledge_base = KnowledgeBase.compile(ontology, self.lexicon, lexicon_dir, self.res.morphology)

    def with_learned(self, rows: list, blocklist: Blocked, substitutions: list[Substitution]) -> KnowledgeBase:
        """The base lexicon plus learned (surface, id(s), source) rows, less the learned
        blocklist, with the learned substitutions the config takes, compiled; nothing
        learned is the base itself."""
        if not (rows or blocklist or substitutions):
            return self.knowledge_base
        lexicon = Lexicon({key: list(entries) for key, entries in self.lexicon.entries.items()})
        add_rows(lexicon, rows, "learned", self.config, self.res)
        blocklisted = apply_blocklist(lexicon, self.blocked | blocklist, self.config.min_key_length)
        taken = [s for s in substitutions if s.source in self.config.substitutions]
        return KnowledgeBase.compile(self.ontology, blocklisted, self.lexicon_dir, self.res.morphology, taken)
