"""Learning lexicon entries and a blocklist from annotated articles.

A dictionary errs on a corpus in three ways, and annotated articles fix each one:

* a form the annotators mark is missing from the lexicon -> a learned entry;
* the lexicon maps a form to another id than the annotators use -> a learned entry, which
  outranks ontology entries for the same key (``PRIORITY["learned"]``);
* an ontology string the annotators (almost) never mark -> a learned blocklist row.

A form is kept only when it is reliable and general: annotated with its id at least
``min_annotated`` times in ``min_articles`` articles, and its precision (occurrences
annotated with that id / all word-bounded occurrences of the string in the training text)
at least ``min_precision``. Occurrences inside a longer annotated mention count neither
way: the longest-match rule gives them to the longer form. Counting uses the matcher's own
normalisation and word boundaries, so the statistics describe what the matcher will do.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator

from .lexicon import LEARNED_BLOCKLIST, LEARNED_LEXICON, Entry, Lexicon, is_abbreviation
from .lexicon.normalize import normalize_key, normalize_text
from .lexicon.tsv import format_ids, parse_ids
from .lexicon.substitutions import LEARNED_SUBSTITUTIONS, Substitution, from_mentions, from_synonyms, term_names, write_substitutions
from .matcher import PhraseMatcher, best_entry
from .ontology import Ontology
from ..core.article import Passage, layout_passages
from ..core.outputs import OutputFiles

if TYPE_CHECKING:
    from .word_sets import WordSetIndex



@dataclass(frozen=True)
class LearnSettings:
    """Reliability thresholds; the defaults are the ``phenorules learn`` option defaults."""

    min_annotated: int = 2  # occurrences annotated with the form's id
    min_articles: int = 2  # articles in which the form is annotated with that id
    min_precision: float = 0.5  # annotated with the id / all word-bounded occurrences
    block_min_hits: int = 3  # matcher hits of an ontology string before it can be blocked
    block_min_articles: int = 2  # articles those hits come from
    block_max_rate: float = 0.1  # largest share of the hits the annotators marked
    learn_unknown: bool = True  # learn forms annotated '-1' (no HPO term) as well
    substitution_min_terms: int = 2  # terms whose synonyms (or mentions) show a candidate pair
    substitution_min_articles: int = 2  # articles whose mentions show a candidate pair
    substitution_min_annotated: int = 2  # matches of a kept pair the annotators marked
    substitution_min_precision: float = 0.5  # marked / all matches the pair makes in the training text


@dataclass(frozen=True)
class LearnedForm:
    """A reliable surface form, its id(s), and the counts that made it reliable: a row of
    the learned lexicon, ids written as its id cells are (:func:`format_ids`)."""

    key: str
    surface: str
    hpo_id: str
    annotated: int
    occurrences: int
    articles: int
    lexicon_id: str  # what the lexicon gave the form before learning, "" if nothing

    @property
    def precision(self) -> float:
        return self.annotated / self.occurrences


@dataclass(frozen=True)
class BlockedString:
    """A lexicon key whose matches with ``hpo_id`` (an id cell) the annotators (almost)
    never mark."""

    key: str
    hpo_id: str
    hits: int
    annotated: int
    articles: int


@dataclass
class Learned:
    articles: int
    mentions: int
    forms: list[LearnedForm]
    blocked: list[BlockedString]
    dropped_ids: Counter = field(default_factory=Counter)  # annotated ids outside the branch
    substitutions: list[Substitution] = field(default_factory=list)  # single-word substitutions of term words

    def lexicon_rows(self) -> Iterator[tuple[str, tuple[str, ...], str]]:
        """(surface, id(s), source) rows as :func:`phenorules.kb.lexicon.add_rows` takes them.

        Written to a file, a row's source becomes ``learned.tsv:LINE``; in memory (in
        cross-validation) it is ``learned:KEY``.
        """
        for form in self.forms:
            yield form.surface, parse_ids(form.hpo_id), f"learned:{form.key}"

    def blocklist(self) -> set[tuple[str, tuple[str, ...]]]:
        return {(b.key, parse_ids(b.hpo_id)) for b in self.blocked}


@dataclass(frozen=True)
class _Article:
    text: str
    normal: str
    gold: dict[tuple[int, int], list[tuple[str, ...]]]  # span -> annotated ids (resolved), one tuple per mention
    spans: tuple[tuple[int, int], ...]  # gold spans, sorted


def _resolve(ontology: Ontology, identifier: str) -> tuple[str, ...] | None:
    hpo_ids = tuple(ontology.resolve(part) for part in parse_ids(identifier))
    return hpo_ids if all(hpo_ids) else None


def _prepare(article: dict, ontology: Ontology, dropped: Counter) -> _Article:
    text = layout_passages(Passage(p["offset"], p["text"]) for p in article["full_text"])
    gold: dict[tuple[int, int], list[tuple[str, ...]]] = defaultdict(list)
    for entity in article.get("entities") or []:
        start = entity["offset"] + len(entity["text"]) - len(entity["text"].lstrip())
        end = entity["offset"] + len(entity["text"].rstrip())
        hpo_ids = _resolve(ontology, entity["identifier"])
        if hpo_ids is None:
            dropped[entity["identifier"]] += 1
        elif end > start:
            gold[(start, end)].append(hpo_ids)
    return _Article(text, normalize_text(text), dict(gold), tuple(sorted(gold)))


def _inside_longer(spans: tuple[tuple[int, int], ...], start: int, end: int) -> bool:
    return any(s <= start and end <= e and (s, e) != (start, end) for s, e in spans if s <= start)


def _surfaces(articles: list[_Article], learn_unknown: bool) -> dict[str, str]:
    """Normalised key -> its most frequent annotated surface (ties: the smallest)."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for article in articles:
        for (start, end), ids in article.gold.items():
            if learn_unknown or any(ids):  # some mention there has a term
                surface = article.text[start:end]
                counts[normalize_key(surface)][surface] += 1
    return {key: min(c, key=lambda s: (-c[s], s)) for key, c in counts.items()}


def _base_ids(base: PhraseMatcher, key: str, surface: str) -> tuple[str, ...] | None:
    """The ids the base lexicon gives ``surface``, None if it knows no such form."""
    index = base.row_of(key, None) if base.rows else None
    if index is None:
        return None
    entry = best_entry(base.entries(index)[1], surface)
    return entry.hpo_ids if entry else None


def learn_forms(
    articles: list[_Article], base: PhraseMatcher, settings: LearnSettings, min_key_length: int
) -> list[LearnedForm]:
    """Reliable annotated forms whose id the base lexicon does not already give."""
    surfaces = _surfaces(articles, settings.learn_unknown)
    probe = Lexicon()
    for key, surface in surfaces.items():
        probe.add(key, Entry(0, (), surface, "", "", is_abbreviation(surface)))
    counter = PhraseMatcher(probe.finalize())
    occurrences: Counter = Counter()
    annotated: dict[str, Counter] = defaultdict(Counter)
    articles_with: dict[tuple[str, tuple[str, ...]], set[int]] = defaultdict(set)
    for number, article in enumerate(articles):
        for hit in counter.candidates(article.text, article.normal):
            key = article.normal[hit.start : hit.end]
            ids = article.gold.get((hit.start, hit.end))
            if ids is None and _inside_longer(article.spans, hit.start, hit.end):
                continue
            occurrences[key] += 1
            for hpo_ids in sorted(set(ids or ())):
                annotated[key][hpo_ids] += 1
                articles_with[(key, hpo_ids)].add(number)
    forms = []
    for key in sorted(annotated):
        hpo_ids = min(annotated[key], key=lambda i: (-annotated[key][i], i))
        surface = surfaces[key]
        base_ids = _base_ids(base, key, surface)
        if (not hpo_ids and not settings.learn_unknown) or base_ids == hpo_ids:
            continue
        form = LearnedForm(
            key, surface, format_ids(hpo_ids), annotated[key][hpo_ids], occurrences[key],
            len(articles_with[(key, hpo_ids)]), "" if base_ids is None else format_ids(base_ids),
        )
        if len(key) < min_key_length and not is_abbreviation(surface):
            continue
        if (
            form.annotated >= settings.min_annotated
            and form.articles >= settings.min_articles
            and form.precision >= settings.min_precision
        ):
            forms.append(form)
    return forms


def learn_blocklist(
    articles: list[_Article], base: PhraseMatcher, settings: LearnSettings, learned_keys: set[str]
) -> list[BlockedString]:
    """(key, id) pairs the base matcher finds often and the annotators (almost) never mark."""
    hits: Counter = Counter()
    marked: Counter = Counter()
    articles_with: dict[tuple[str, tuple[str, ...]], set[int]] = defaultdict(set)
    for number, article in enumerate(articles):
        for match in base(article.text):
            pair = (article.normal[match.start : match.end], match.entry.hpo_ids)
            is_gold = (match.start, match.end) in article.gold
            if not is_gold and _inside_longer(article.spans, match.start, match.end):
                continue
            hits[pair] += 1
            marked[pair] += is_gold
            articles_with[pair].add(number)
    return [
        BlockedString(key, format_ids(hpo_ids), hits[(key, hpo_ids)], marked[(key, hpo_ids)], len(articles_with[(key, hpo_ids)]))
        for key, hpo_ids in sorted(hits)
        if key not in learned_keys
        and hits[(key, hpo_ids)] >= settings.block_min_hits
        and len(articles_with[(key, hpo_ids)]) >= settings.block_min_articles
        and marked[(key, hpo_ids)] <= settings.block_max_rate * hits[(key, hpo_ids)]
    ]


def learn(
    articles: Iterable[dict],
    ontology: Ontology,
    base: PhraseMatcher,
    settings: LearnSettings = LearnSettings(),
    min_key_length: int = 3,
    word_sets: "WordSetIndex | None" = None,
) -> Learned:
    """Learned forms and blocklist from annotated articles, relative to the ``base`` matcher.

    ``base`` is the matcher built without learned files: forms it already gets right are
    not repeated, and its unannotated hits are what the blocklist is learned from. Ids are
    resolved with :meth:`Ontology.resolve`; mentions with ids outside the phenotype branch
    are dropped and counted in ``dropped_ids``. With ``word_sets`` (the base matcher's
    order-free index), single-word substitutions are learned as well.
    """
    dropped: Counter = Counter()
    prepared = [_prepare(article, ontology, dropped) for article in articles]
    forms = learn_forms(prepared, base, settings, min_key_length)
    blocked = learn_blocklist(prepared, base, settings, {form.key for form in forms})
    mentions = sum(len(ids) for article in prepared for ids in article.gold.values())
    substitutions = learn_substitutions(prepared, ontology, base, word_sets, settings) if word_sets else []
    return Learned(len(prepared), mentions, forms, blocked, dropped, substitutions)


def learn_substitutions(
    articles: list[_Article], ontology: Ontology, base: PhraseMatcher, word_sets: "WordSetIndex", settings: LearnSettings
) -> list[Substitution]:
    """Candidate pairs (HPO synonym sets, annotated mentions) kept when the matches they
    add to ``word_sets`` in the training text are annotated with the term's id often enough."""
    names = term_names(ontology)
    triples = [
        (number, article.text[start:end], hpo_ids[0])
        for number, article in enumerate(articles)
        for (start, end), ids in sorted(article.gold.items())
        for hpo_ids in sorted(set(ids))
        if len(hpo_ids) == 1  # one term: not a compound, not unknown
    ]
    candidates = from_synonyms(names, word_sets.content_words, settings.substitution_min_terms)
    candidates += from_mentions(triples, names, word_sets.content_words, settings.substitution_min_articles, settings.substitution_min_terms)
    trial = word_sets.with_substitutions(base, candidates)
    hits: Counter = Counter()
    marked: Counter = Counter()
    marked_in: dict[str, set[int]] = defaultdict(set)
    for number, article in enumerate(articles):
        for match in trial.find(article.text, base):
            rule = match.entry.rule.rpartition("+")[2] if "subst:" in match.entry.rule else ""
            if not rule:
                continue
            is_gold = match.entry.hpo_ids in article.gold.get((match.start, match.end), ())
            if not is_gold and _inside_longer(article.spans, match.start, match.end):
                continue
            hits[rule] += 1
            if is_gold:
                marked[rule] += 1
                marked_in[rule].add(number)
    kept = []
    for candidate in candidates:
        rule = f"subst:{candidate.source}:{candidate.term_word}>{candidate.text_word}"
        if (
            marked[rule] >= settings.substitution_min_annotated
            and len(marked_in[rule]) >= settings.substitution_min_articles
            and marked[rule] >= settings.substitution_min_precision * hits[rule]
        ):
            kept.append(replace(candidate, articles=len(marked_in[rule]), hits=hits[rule], annotated=marked[rule]))
    return kept


def write_learned(
    learned: Learned, ontology: Ontology, lexicon_path: Path, blocklist_path: Path, settings: LearnSettings, outputs: OutputFiles | None = None
) -> None:
    """The learned lexicon, blocklist and substitutions as TSV lexicon files with their
    counts as provenance, through the command's ``outputs``."""
    outputs = outputs or OutputFiles()
    summary = (
        f"# Learned by `phenorules learn` from {learned.articles} annotated articles "
        f"({learned.mentions} mentions; {sum(learned.dropped_ids.values())} with ids outside the phenotype branch dropped).\n"
    )
    lexicon_lines = [
        summary,
        f"# Kept: annotated >= {settings.min_annotated} times in >= {settings.min_articles} articles, "
        f"precision (annotated with the id / word-bounded occurrences) >= {settings.min_precision}; "
        "only forms the ontology lexicon lacks or maps to another id.\n",
        "# surface\thpo_id\tannotated\toccurrences\tprecision\tarticles\tlexicon_id\tlabel\n",
    ]
    for form in learned.forms:
        cells = (
            form.surface, form.hpo_id, str(form.annotated), str(form.occurrences), f"{form.precision:.3f}",
            str(form.articles), form.lexicon_id or "none", ontology.label(parse_ids(form.hpo_id)),
        )
        lexicon_lines.append("\t".join(cells) + "\n")
    blocklist_lines = [
        summary,
        f"# Blocked: matched >= {settings.block_min_hits} times in >= {settings.block_min_articles} articles, "
        f"at most {settings.block_max_rate} of the matches annotated.\n",
        "# key\thpo_id\tmatches\tannotated\tarticles\tlabel\n",
    ]
    for block in learned.blocked:
        cells = (block.key, block.hpo_id, str(block.hits), str(block.annotated), str(block.articles), ontology.label(parse_ids(block.hpo_id)))
        blocklist_lines.append("\t".join(cells) + "\n")
    for path, lines, what in ((lexicon_path, lexicon_lines, "learned lexicon"), (blocklist_path, blocklist_lines, "learned blocklist")):
        outputs.write(str(path), lines, what)
    header = (
        summary + f"# Candidates: term words HPO synonym sets or annotated mentions replace by another word in >= "
        f"{settings.substitution_min_terms} terms; kept: the matches a pair adds are annotated >= "
        f"{settings.substitution_min_annotated} times in >= {settings.substitution_min_articles} articles, "
        f"precision >= {settings.substitution_min_precision}.\n"
    )
    write_substitutions(learned.substitutions, substitutions_path(lexicon_path), header, outputs)


def substitutions_path(lexicon_path: Path) -> Path:
    """The learned substitutions live beside the learned lexicon."""
    return Path(lexicon_path).parent / LEARNED_SUBSTITUTIONS


def default_paths(lexicon_dir: Path) -> tuple[Path, Path]:
    return lexicon_dir / LEARNED_LEXICON, lexicon_dir / LEARNED_BLOCKLIST
