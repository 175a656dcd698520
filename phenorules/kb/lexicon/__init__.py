"""The phenotype lexicon: HPO names and synonyms, generated variants, and TSV lexicons.

Every entry keeps where it came from (term name, synonym scope, variant rule chain, file
and line), so that each match can be traced back to the entry that produced it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Mapping, NamedTuple

from ...core.errors import InputError
from ..ontology import PHENOTYPIC_ABNORMALITY, Ontology
from .normalize import normalize_key, normalize_keys
from .morphology import adjectival_endings
from .tsv import RuleRef, parse_ids, read_grouped_rules, read_rules, read_tsv
from .substitutions import LEARNED_SUBSTITUTIONS
from .substitutions import SOURCES as SUBSTITUTION_SOURCES  # noqa: F401  (the match stage checks its setting against it)
from .variant_workers import variants_of_phrases
from .variants import RULE_NAMES, VariantResources

MORPHOLOGY_PARTS = ("derivations",)
ADJECTIVAL_ENDINGS = "adjectival_endings.tsv"

# Lower wins when one key maps to several terms: curated files, then forms learned from
# annotated articles (the annotators' choice for that string), then names, then synonyms.
PRIORITY = {"file": 0, "learned": 1, "name": 2, "EXACT": 3, "RELATED": 4, "NARROW": 5, "BROAD": 6}
LEARNED_LEXICON = "learned.tsv"
LEARNED_BLOCKLIST = "learned_blocklist.tsv"
VARIANT_PENALTY = 10


class Entry(NamedTuple):
    """One way of writing one HPO term (or several, a compound; none: no term fits), with
    its provenance. A tuple: entries sort by priority first, and 400,000 of them are made
    per lexicon build."""

    priority: int
    hpo_ids: tuple[str, ...]
    surface: str
    source: str  # "name", "synonym:EXACT:layperson", "lexicons/extra_terms.tsv:12", ...
    rule: str = ""  # the variant chain that made this form from ``surface``, or ""
    case_sensitive: bool = False

    @property
    def provenance(self) -> str:
        return f"{self.source}|{self.rule}" if self.rule else self.source


@dataclass(frozen=True)
class LexiconConfig:
    """What goes into the lexicon; part of the pipeline config and of the cache key."""

    synonym_scopes: tuple[str, ...] = ("EXACT", "RELATED", "BROAD", "NARROW")  # each adds F1 (README)
    variant_rules: tuple[str, ...] = RULE_NAMES
    extra_files: tuple[str, ...] = ("extra_terms.tsv", LEARNED_LEXICON)
    blocklist_files: tuple[str, ...] = ("blocklist.tsv", LEARNED_BLOCKLIST)
    min_key_length: int = 3
    max_variant_chain: int = 3  # rules chained per variant; longer chains almost never occur in text
    morphology: tuple[str, ...] = MORPHOLOGY_PARTS  # optional parts of the morphology
    substitutions: tuple[str, ...] = ()  # sources of learned word substitutions applied (off: docs/context.md)
    substitution_files: tuple[str, ...] = (LEARNED_SUBSTITUTIONS,)


@dataclass
class Lexicon:
    entries: dict[str, list[Entry]] = field(default_factory=dict)

    def add(self, key: str, entry: Entry) -> None:
        self.entries.setdefault(key, []).append(entry)

    def finalize(self) -> "Lexicon":
        """Deduplicate per (key, id), keeping the best entry, and sort for determinism."""
        for key, entries in self.entries.items():
            if len(entries) == 1:
                continue
            best: dict[tuple[str, ...], Entry] = {}
            for entry in sorted(entries):
                best.setdefault(entry.hpo_ids, entry)
            self.entries[key] = sorted(best.values())
        return self

    def __len__(self) -> int:
        return len(self.entries)


def is_abbreviation(surface: str) -> bool:
    """Short upper-case forms ('ASD', 'VSD') must match case-sensitively."""
    if len(surface) > 6:  # most surfaces: their letters are not read
        return False
    letters = [c for c in surface if c.isalpha()]
    return bool(letters) and sum(c.isupper() for c in letters) >= max(2, len(letters) - 1)


Row = tuple[str, tuple[str, ...], str, int]  # surface, id(s), source, priority


def add_with_variants(lexicon: Lexicon, rows: Iterable[Row], config: LexiconConfig, res: VariantResources, normal: Mapping[str, str] | None = None) -> None:
    """Add each row's surface and its generated variants (:mod:`.variant_workers` makes
    them, over the machine's cores when there are many). ``normal``: the normal forms of
    surfaces normalised already (:func:`normal_forms`), each surface's own by default."""
    rows = list(rows)
    surfaces = [surface for surface, *_ in rows]
    if normal is None or not all(map(normal.__contains__, surfaces)):
        normal = dict(zip(surfaces, normalize_keys(surfaces)))
    keys = [None if is_abbreviation(surface) else normal[surface] for surface in surfaces]
    generated = variants_of_phrases([key for key in keys if key is not None], res, config.variant_rules, config.max_variant_chain)
    for (surface, hpo_ids, source, priority), key in zip(rows, keys):
        if key is None:  # 'VSD' and 'VSDs', in exactly this case (see best_entry)
            lexicon.add(surface.lower(), Entry(priority, hpo_ids, surface, source, "", True))
            lexicon.add(surface.lower() + "s", Entry(priority + VARIANT_PENALTY, hpo_ids, surface, source, "number", True))
            continue
        variants = next(generated)
        # 'Intellectual disability, severe' is written inverted in prose; the comma form is a list.
        if "comma_inversion" not in variants.values():
            lexicon.add(key, Entry(priority, hpo_ids, surface, source))
        for variant, chain in variants.items():
            # Fewer rewriting steps = closer to the ontology's own wording = preferred on a tie.
            lexicon.add(variant, Entry(priority + VARIANT_PENALTY * (chain.count("+") + 1), hpo_ids, surface, source, chain))


def _resolve_listed_id(ontology: Ontology, hpo_id: str, place: str) -> str:
    resolved = ontology.resolve(hpo_id)
    if resolved is None:
        raise InputError(f"{place}: {hpo_id!r} is not a term of Phenotypic abnormality in {ontology.data_version}")
    return resolved


def is_learned_file(name: str) -> bool:
    """Learned lexicons are named ``learned*.tsv``; their rows outrank the ontology."""
    return Path(name).name.startswith("learned")


ANY_ID = None  # a blocklist row's '*': the key with whatever id
Blocked = set[tuple[str, "tuple[str, ...] | None"]]


def load_blocklist(paths: Iterable[Path]) -> Blocked:
    """(key, ids or ANY_ID) pairs that must not be matched."""
    blocked = set()
    for path in paths:
        for row, _ in read_tsv(path, 2):
            blocked.add((normalize_key(row[0]), ANY_ID if row[1] == "*" else parse_ids(row[1])))
    return blocked


def ontology_vocabulary(ontology: Ontology, normal: Mapping[str, str] | None = None) -> set[str]:
    """The words of every term name and synonym: the words morphology may map a word to.
    ``normal``: :func:`normal_forms` of the ontology, if made already."""
    return {word for key in (normal or normal_forms(ontology)).values() for word in key.split()}


def ontology_texts(ontology: Ontology) -> list[str]:
    """Every term name and synonym as written, names first."""
    return [*ontology.names.values(), *(s.text for synonyms in ontology.synonyms.values() for s in synonyms)]


def normal_forms(ontology: Ontology) -> dict[str, str]:
    """Each term name and synonym -> its normal form (names first): made once for a build's
    vocabulary and its lexicon keys."""
    texts = ontology_texts(ontology)
    return dict(zip(texts, normalize_keys(texts)))


def ontology_keys(ontology: Ontology) -> list[str]:
    """The normal form of every term name and synonym (names first)."""
    return normalize_keys(ontology_texts(ontology))


def variant_resources(
    ontology: Ontology, lexicon_dir: str | Path, morphology: tuple[str, ...] = MORPHOLOGY_PARTS, normal: Mapping[str, str] | None = None
) -> VariantResources:
    return VariantResources.from_dir(Path(lexicon_dir), ontology_vocabulary(ontology, normal), morphology)


def adjectival_forms(keys: list[str], lexicon_dir: str | Path) -> dict[str, tuple[str, RuleRef]]:
    """Adjective -> (the single-word term name or synonym it is made of, the row of its
    ending): 'hypotonic' -> 'hypotonia', 'cyanotic' -> 'cyanosis'; each noun by its longest
    ending that has a learned adjective ending (:func:`~.morphology.adjectival_endings` over
    the ontology's words, ``adjectival_endings.tsv``). ``keys``: :func:`ontology_keys`."""
    nouns = sorted({key for key in keys if key.isalpha()})
    endings = read_grouped_rules(Path(lexicon_dir) / ADJECTIVAL_ENDINGS, ("noun", "adjective"))
    learned = adjectival_endings(nouns, {word for key in keys for word in key.split()}, endings)
    forms: dict[str, tuple[str, RuleRef]] = {}
    for noun in nouns:
        for length in range(len(noun) - 4, 0, -1):
            if noun[-length:] in learned:
                ending, ref = learned[noun[-length:]]
                forms.setdefault(noun[:-length] + ending, (noun, ref))
                break
    return {form: found for form, found in forms.items() if form not in nouns}


def ontology_rows(ontology: Ontology, config: LexiconConfig) -> Iterator[Row]:
    """Phenotype-branch names and the configured synonym scopes.

    The branch root itself ("Phenotypic abnormality") names no finding and is left out.
    """
    for hpo_id, name in ontology.names.items():
        if hpo_id == PHENOTYPIC_ABNORMALITY:
            continue
        yield name, (hpo_id,), "name", PRIORITY["name"]
        for synonym in ontology.synonyms[hpo_id]:
            if synonym.scope in config.synonym_scopes:
                source = ":".join(filter(None, ("synonym", synonym.scope, synonym.kind)))
                yield synonym.text, (hpo_id,), source, PRIORITY[synonym.scope]


def lexicon_file_rows(ontology: Ontology, path: Path) -> Iterator[tuple[str, tuple[str, ...], str]]:
    """(surface, resolved id(s), source) of a lexicon TSV.

    A curated file naming an unknown id is an error. A learned file was learned against
    one HPO release: its rows whose ids another release no longer has are skipped.
    """
    learned = is_learned_file(path.name)
    for row, ref in read_rules(path, 2):
        place = f"{path}:{ref.line}"
        ids = [ontology.resolve(i) if learned else _resolve_listed_id(ontology, i, place) for i in parse_ids(row[1])]
        if all(ids):
            yield row[0], tuple(ids), str(ref)


def add_rows(
    lexicon: Lexicon, rows: Iterable[tuple[str, tuple[str, ...], str]], kind: str, config: LexiconConfig, res: VariantResources
) -> None:
    """Add (surface, id(s), source) rows with their variants at the priority of ``kind``."""
    add_with_variants(lexicon, ((surface, hpo_ids, source, PRIORITY[kind]) for surface, hpo_ids, source in rows), config, res)


def apply_blocklist(lexicon: Lexicon, blocked: Blocked, min_key_length: int) -> Lexicon:
    """Drop blocked (key, id) pairs and keys too short to match safely; then finalize."""
    blocked_keys = {key for key, _ in blocked}
    for key in list(lexicon.entries):
        if len(key) >= min_key_length and key not in blocked_keys:
            continue  # most keys: nothing to drop
        if (key, ANY_ID) in blocked:
            kept = []
        else:
            long_enough = len(key) >= min_key_length
            kept = [e for e in lexicon.entries[key] if (key, e.hpo_ids) not in blocked and (long_enough or e.case_sensitive)]
        if kept:
            lexicon.entries[key] = kept
        else:
            del lexicon.entries[key]
    return lexicon.finalize()


@dataclass
class LexiconParts:
    """What :func:`build_lexicon` combines, kept apart so that more entries can be added
    before the blocklist is applied (cross-validation adds each fold's learned entries)."""

    lexicon: Lexicon  # ontology entries and lexicon files, not yet blocklisted
    res: VariantResources
    blocked: Blocked


def lexicon_parts(ontology: Ontology, lexicon_dir: str | Path, config: LexiconConfig) -> LexiconParts:
    lexicon_dir = Path(lexicon_dir)
    normal = normal_forms(ontology)
    res = variant_resources(ontology, lexicon_dir, config.morphology, normal)
    lexicon = Lexicon()
    add_with_variants(lexicon, ontology_rows(ontology, config), config, res, normal)
    for name in config.extra_files:
        kind = "learned" if is_learned_file(name) else "file"
        add_rows(lexicon, lexicon_file_rows(ontology, lexicon_dir / name), kind, config, res)
    blocked = load_blocklist(lexicon_dir / name for name in config.blocklist_files)
    return LexiconParts(lexicon, res, blocked)


def build_lexicon(ontology: Ontology, lexicon_dir: str | Path, config: LexiconConfig = LexiconConfig()) -> Lexicon:
    """All phenotype-branch names and chosen synonyms, their variants, and the TSV lexicons."""
    parts = lexicon_parts(ontology, lexicon_dir, config)
    return apply_blocklist(parts.lexicon, parts.blocked, config.min_key_length)
