"""Lexical variant generation: the other ways an article writes an HPO term name.

Each rule is a small pure function ``phrase -> [variant, ...]`` over lower-cased phrases;
the word lists it needs (plurals, spellings, noun/adjective pairs) are data files under
``lexicons/``. Rules are applied in stages (word order, then morphology, then spelling),
and every variant keeps the chain of rules that made it, so a match can be traced: a rule's
name, or for a phrase rewrite the row (``rewrite:rewrite_rules.tsv:4``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from ..errors import InputError
from .morphology import Morphology, adjectival_endings
from .tsv import RuleRef, read_grouped_rules, read_rules, read_tsv

ADJECTIVAL_ENDINGS = "adjectival_endings.tsv"
_OF_THE = re.compile(r"^(?P<noun>[a-z]+) of (?:the )?(?P<rest>.+)$")


@dataclass(frozen=True)
class RewriteRule:
    """A named phrase rewrite from ``lexicons/rewrite_rules.tsv``."""

    ref: RuleRef  # the row; its name is the rule's
    pattern: re.Pattern
    templates: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.ref.name

    def apply(self, phrase: str) -> list[str]:
        match = self.pattern.fullmatch(phrase)
        if not match:
            return []
        groups = {k: v or "" for k, v in match.groupdict().items()}
        return [template.format(**groups) for template in self.templates]


@dataclass(frozen=True)
class VariantResources:
    """Word lists and rewrite rules the variant rules read (all from ``lexicons/``)."""

    morphology: Morphology  # plurals and singulars of a head word
    spellings: tuple[tuple[str, str], ...]  # (british fragment, american fragment)
    noun_adjectives: dict[str, str]  # noun -> adjective ("hypoplasia" -> "hypoplastic")
    joinable_prefixes: tuple[str, ...]  # "hypo", "micro", ...: "hypo pigmentation" <-> "hypopigmentation"
    vocabulary: frozenset[str] = frozenset()  # words of the ontology, to split prefixes only into words
    anatomy_adjectives: dict[str, str] = field(default_factory=dict)  # "maxilla" -> "maxillary"
    rewrites: tuple[RewriteRule, ...] = ()
    class_plurals: frozenset[str] = frozenset()  # heads whose plural names a class of conditions ("diseases")
    adjectival: dict[str, tuple[str, RuleRef]] = field(default_factory=dict)  # noun ending -> adjective ending ("ia" -> "ic")

    @classmethod
    def from_dir(
        cls, lexicon_dir: str | Path, vocabulary: Iterable[str] = (), morphology: tuple[str, ...] = ("derivations",), nouns: Iterable[str] = ()
    ) -> "VariantResources":
        """``morphology`` names the optional parts of :class:`Morphology` that are on;
        ``nouns``, the single-word term names and synonyms adjectival endings are learned from."""
        lexicon_dir = Path(lexicon_dir)
        vocabulary = frozenset(vocabulary)
        words = Morphology.from_dir(lexicon_dir, vocabulary, "derivations" in morphology)
        spellings = tuple((row[0], row[1]) for row, _ in read_tsv(lexicon_dir / "spelling_variants.tsv", 2))
        adjectives = {row[0]: row[1] for row, _ in read_tsv(lexicon_dir / "noun_adjective.tsv", 2)}
        prefixes = tuple(row[0] for row, _ in read_tsv(lexicon_dir / "joinable_prefixes.tsv", 1))
        anatomy = {row[0]: row[1] for row, _ in read_tsv(lexicon_dir / "anatomy_adjectives.tsv", 2)}
        rewrites = tuple(
            RewriteRule(ref, _compile(row[1], f"{lexicon_dir / 'rewrite_rules.tsv'}:{ref.line}"), tuple(t.strip() for t in row[2].split("|")))
            for row, ref in read_rules(lexicon_dir / "rewrite_rules.tsv", 3)
        )
        class_plurals = frozenset(row[0] for row, _ in read_tsv(lexicon_dir / "class_plurals.tsv", 2))
        endings = read_grouped_rules(lexicon_dir / ADJECTIVAL_ENDINGS, ("noun", "adjective"), "class")
        adjectival = adjectival_endings(nouns, vocabulary, endings)
        return cls(words, spellings, adjectives, prefixes, vocabulary, anatomy, rewrites, class_plurals, adjectival)


def _compile(pattern: str, place: str) -> re.Pattern:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise InputError(f"{place}: bad regular expression ({exc})") from None


# ---------------------------------------------------------------- phrase rules


def comma_inversion(phrase: str, res: VariantResources) -> list[str]:
    """'cleft palate, submucous' -> 'submucous cleft palate'."""
    if phrase.count(",") != 1:
        return []
    head, modifier = (part.strip() for part in phrase.split(","))
    return [f"{modifier} {head}"] if head and modifier else []


def noun_adjective(phrase: str, res: VariantResources) -> list[str]:
    """'hypoplasia of the X' <-> 'X hypoplasia' <-> 'hypoplastic X'."""
    out: list[str] = []
    match = _OF_THE.match(phrase)
    if match and match["noun"] in res.noun_adjectives:
        noun, rest = match["noun"], match["rest"]
        out += [f"{rest} {noun}", f"{res.noun_adjectives[noun]} {rest}"]
        return out
    words = phrase.split(" ")
    if len(words) >= 2 and words[-1] in res.noun_adjectives:
        noun, rest = words[-1], " ".join(words[:-1])
        out += [f"{noun} of the {rest}", f"{noun} of {rest}", f"{res.noun_adjectives[noun]} {rest}"]
    if len(words) >= 2:
        rest = " ".join(words[1:])
        # One adjective may have several nouns: 'short' <- 'shortening', 'shortness'.
        for noun in sorted(noun for noun, adjective in res.noun_adjectives.items() if adjective == words[0]):
            out += [f"{rest} {noun}", f"{noun} of the {rest}", f"{noun} of {rest}"]
    return out


def rewrite(phrase: str, res: VariantResources) -> list[tuple[str, str]]:
    """The phrase rewrites of ``lexicons/rewrite_rules.tsv`` ('abnormal X morphology' -> 'X
    anomaly'), each with the row that made it (``rewrite:rewrite_rules.tsv:4``)."""
    return [(variant, f"rewrite:{rule.ref}") for rule in res.rewrites for variant in rule.apply(phrase)]


def anatomy_adjective(phrase: str, res: VariantResources) -> list[str]:
    """'maxilla hypoplasia' <-> 'maxillary hypoplasia': organ nouns used attributively."""
    words = phrase.split(" ")
    adjective_to_noun = {adj: noun for noun, adj in res.anatomy_adjectives.items()}
    out = []
    for i, word in enumerate(words[:-1]):  # attributive: some word follows
        for table in (res.anatomy_adjectives, adjective_to_noun):
            if word in table and words[i + 1] not in ("of", "and", "or"):
                out.append(" ".join(words[:i] + [table[word]] + words[i + 1 :]))
    return out


def adjectival(phrase: str, res: VariantResources) -> list[tuple[str, str]]:
    """'hypotonia' -> 'hypotonic', 'cyanosis' -> 'cyanotic': the adjective of a single-word
    term, by the longest noun ending with a learned adjective ending (``adjectival_endings.tsv``)."""
    if " " in phrase or not phrase.isalpha():
        return []
    for length in range(len(phrase) - 4, 0, -1):
        found = res.adjectival.get(phrase[-length:])
        if found is not None:
            return [(phrase[:-length] + found[0], f"adjectival:{found[1]}")]
    return []


def number(phrase: str, res: VariantResources) -> list[str]:
    """Plural or singular of a head word: the last word, and the word before 'of'. A head
    of ``class_plurals.tsv`` is not made plural: "metabolic diseases" names a class of
    diseases, not a finding."""
    words = phrase.split(" ")
    heads = {len(words) - 1}
    if "of" in words[1:]:
        heads.add(words.index("of", 1) - 1)
    out = []
    for head in sorted(heads):
        inflections = (res.morphology.singulars,) if words[head] in res.class_plurals else (res.morphology.plurals, res.morphology.singulars)
        for inflect in inflections:
            for form in inflect(words[head]):
                out.append(" ".join(words[:head] + [form] + words[head + 1 :]))
    return out


def spelling(phrase: str, res: VariantResources) -> list[str]:
    """British <-> American spellings ('oedema' <-> 'edema', 'tumour' <-> 'tumor')."""
    out = []
    for british, american in res.spellings:
        if british in phrase:
            out.append(phrase.replace(british, american))
        elif american in phrase:
            out.append(phrase.replace(american, british))
    return out


def join_split(phrase: str, res: VariantResources) -> list[str]:
    """'hypo pigmentation' <-> 'hypopigmentation' for common bound prefixes.

    A word is split only when what follows the prefix is itself an ontology word, so
    'hypoplasia' never becomes 'hypo plasia'.
    """
    out = []
    words = phrase.split(" ")
    for prefix in res.joinable_prefixes:
        joined = re.sub(rf"\b{prefix} (?=[a-z])", prefix, phrase)
        if joined != phrase:
            out.append(joined)
        split = [
            f"{prefix} {word[len(prefix):]}" if word.startswith(prefix) and word[len(prefix):] in res.vocabulary else word
            for word in words
        ]
        if split != words:
            out.append(" ".join(split))
    return out


Rule = Callable[[str, VariantResources], "list[str] | list[tuple[str, str]]"]

# Rules run stage by stage; each stage applies to every form the earlier stages made.
RULE_STAGES: tuple[tuple[str, Rule], ...] = (
    ("comma_inversion", comma_inversion),
    ("rewrite", rewrite),
    ("noun_adjective", noun_adjective),
    ("anatomy_adjective", anatomy_adjective),
    ("number", number),
    ("adjectival", adjectival),
    ("spelling", spelling),
    ("join_split", join_split),
)
RULE_NAMES = tuple(name for name, _ in RULE_STAGES)


def generate_variants(
    phrase: str, res: VariantResources, rules: Iterable[str] = RULE_NAMES, max_chain: int = 3
) -> dict[str, str]:
    """All variants of a lower-cased phrase, each with the '+'-joined rules (rewrite rows)
    that made it (:func:`chain_rules` over the enabled rules, at most ``max_chain`` chained)."""
    enabled = set(rules)
    stages = [(name, functools.partial(rule, res=res)) for name, rule in RULE_STAGES if name in enabled]
    return chain_rules(phrase, stages, max_chain)


def chain_rules(phrase: str, stages: Iterable[tuple[str, Callable[[str], list]]], max_chain: int) -> dict[str, str]:
    """Every form the named rules make of ``phrase`` and of each other's forms, stage after
    stage, at most ``max_chain`` chained, each with the '+'-joined chain that made it; the
    phrase itself is not included. A rule returns forms, or (form, step) pairs whose step
    names the chain's link more precisely than the rule's name (a rewrite's row). When two
    chains of rule names make the same form the shorter (then alphabetically first) is
    kept, and of equal ones the first made, so provenance is deterministic. The phenotype
    lexicon's rules and the JNLPBA tagger's Greek-letter rules both chain through it."""
    forms: dict[str, tuple[str, str]] = {phrase: ("", "")}  # form -> (rule names, steps)
    for name, rule in stages:
        for form, (chain, steps) in sorted(forms.items()):
            depth = chain.count("+") + 1 if chain else 0
            if depth >= max_chain:
                continue
            for made in rule(form):
                variant, step = made if isinstance(made, tuple) else (made, name)
                variant = " ".join(variant.split())
                new_chain = f"{chain}+{name}" if chain else name
                old = forms.get(variant)
                if old is None or (old[0] and (len(old[0]), old[0]) > (len(new_chain), new_chain)):
                    forms[variant] = (new_chain, f"{steps}+{step}" if steps else step)
    forms.pop(phrase)
    return {form: steps for form, (chain, steps) in forms.items() if chain}
