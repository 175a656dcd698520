"""Lexical variant generation: the other ways an article writes an HPO term name.

Each rule is a small pure function ``phrase -> [variant, ...]`` over lower-cased phrases;
the word lists it needs (plurals, spellings, noun/adjective pairs) are data files under
``lexicons/``. Rules are applied in stages (word order, then morphology, then spelling),
and every variant keeps the chain of rules that made it, so a match can be traced: a rule's
name, or for a phrase rewrite the row (``rewrite:rewrite_rules.tsv:4``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Callable, Iterable

import ahocorasick

from ...core.errors import InputError
from .morphology import Morphology
from .tsv import RuleRef, read_rules, read_tsv
from .word_lists import WordList

_OF_THE = re.compile(r"^(?P<noun>[a-z]+) of (?:the )?(?P<rest>.+)$")
_NAMED_GROUP = re.compile(r"\(\?P<\w+>")
_BACK_REFERENCE = re.compile(r"\\[1-9]|\(\?P=|\\g<|\(\?\(")


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


SPELLING_PLACES = ("start", "end", "any")
SPELLING_GUARDS = ("position", "listed")
BRITISH_SPELLINGS = "british_spellings.txt.gz"
ENGLISH_WORDS = "english_words.txt.gz"


@dataclass(frozen=True)
class SpellingRule:
    """A row of ``lexicons/spelling_rules.tsv``: the British and the American spelling of a
    part of a word, where in the word it stands, and what guards a form it makes."""

    ref: RuleRef
    british: str
    american: str
    where: str  # one of SPELLING_PLACES
    guard: str  # one of SPELLING_GUARDS

    def places(self, word: str, part: str) -> list[int]:
        """Where ``part`` (one side of the rule) stands in ``word`` at the rule's place."""
        if self.where == "start":
            return [0] if word.startswith(part) else []
        if self.where == "end":
            return [len(word) - len(part)] if word.endswith(part) and len(word) > len(part) else []
        return [match.start() for match in re.finditer(f"(?={re.escape(part)})", word)]


def read_spelling_rules(path: Path) -> tuple[SpellingRule, ...]:
    rules = []
    for row, ref in read_rules(path, 4):
        british, american, where, guard = (cell.lower() for cell in row[:4])
        if where not in SPELLING_PLACES or guard not in SPELLING_GUARDS:
            raise InputError(f"{path}:{ref.line}: where {where!r} and guard {guard!r}: expected one of {list(SPELLING_PLACES)} and one of {list(SPELLING_GUARDS)}")
        rules.append(SpellingRule(ref, british, american, where, guard))
    return tuple(rules)


@dataclass(frozen=True)
class VariantResources:
    """Word lists and rewrite rules the variant rules read (all from ``lexicons/``)."""

    morphology: Morphology  # plurals and singulars of a head word
    spellings: tuple[SpellingRule, ...]  # British and American spellings of parts of words
    noun_adjectives: dict[str, str]  # noun -> adjective ("hypoplasia" -> "hypoplastic")
    joinable_prefixes: tuple[str, ...]  # "hypo", "micro", ...: "hypo pigmentation" <-> "hypopigmentation"
    vocabulary: frozenset[str] = frozenset()  # words of the ontology, to split prefixes only into words
    anatomy_adjectives: dict[str, str] = field(default_factory=dict)  # "maxilla" -> "maxillary"
    rewrites: tuple[RewriteRule, ...] = ()
    class_plurals: frozenset[str] = frozenset()  # heads whose plural names a class of conditions ("diseases")
    british_words: frozenset[str] = frozenset()  # SCOWL's British-only spellings: what a listed rule may make
    english_words: WordList = WordList(b"\n")  # SCOWL's words: the American form a listed rule makes is one
    # What the rules find of one word, remembered: 40,000 terms share most of their words.
    _prefixes: dict[str, tuple[dict[str, str], bool]] = field(default_factory=dict, init=False, repr=False, compare=False)
    _inflections: dict[tuple[str, bool], tuple[str, ...]] = field(default_factory=dict, init=False, repr=False, compare=False)
    _spelt: dict[str, tuple[tuple[str, tuple[RuleRef, ...]], tuple[str, tuple[RuleRef, ...]]] | None] = field(default_factory=dict, init=False, repr=False, compare=False)
    _respelt: set[str] = field(default_factory=set, init=False, repr=False, compare=False)  # the words of _spelt a rule respells
    _joining: set[str] = field(default_factory=set, init=False, repr=False, compare=False)  # the words of _prefixes that split or join

    @cached_property
    def prefix_fragments(self) -> ahocorasick.Automaton | None:
        """Every joinable prefix: a phrase that holds none has nothing to join or split."""
        return _fragments_automaton(self.joinable_prefixes)

    @cached_property
    def join_patterns(self) -> tuple[tuple[str, re.Pattern], ...]:
        """Each joinable prefix with the pattern of its spaced form ('hypo pigmentation')."""
        return tuple((prefix, re.compile(rf"\b{prefix} (?=[a-z])")) for prefix in self.joinable_prefixes)

    @cached_property
    def spelling_fragments(self) -> ahocorasick.Automaton | None:
        """Every part of :attr:`spellings`, either side: most phrases have none, and are
        done with one scan."""
        return _fragments_automaton(part for rule in self.spellings for part in (rule.british, rule.american))

    def spelt(self, word: str) -> tuple[tuple[str, tuple[RuleRef, ...]], tuple[str, tuple[RuleRef, ...]]] | None:
        """(the British form, its rules), (the American form, its rules) of a word: every
        rule of :attr:`spellings` applied in turn, each where its guard lets it; None for a
        word no rule applies to either way (most words)."""
        if word in self._spelt:
            return self._spelt[word]
        british, american = self._respelt_word(word, british=True), self._respelt_word(word, british=False)
        found = self._spelt[word] = (british, american) if british[1] or american[1] else None
        if found is not None:
            self._respelt.add(word)
        return found

    def respells_any(self, words: set[str]) -> bool:
        """Whether a spelling rule respells one of ``words``."""
        for word in words.difference(self._spelt):
            self.spelt(word)
        return not self._respelt.isdisjoint(words)

    def _respelt_word(self, word: str, british: bool) -> tuple[str, tuple[RuleRef, ...]]:
        refs = []
        for rule in self.spellings:
            old, new = (rule.american, rule.british) if british else (rule.british, rule.american)
            if old not in word:  # most words hold no rule's part: one C-level test, no regex
                continue
            # Not where the word is spelt so already: 'anaemia' holds 'emia' inside 'aemia'.
            spelt = [place.start() for place in re.finditer(f"(?={re.escape(new)})", word)]
            places = [p for p in rule.places(word, old) if not any(q <= p and p + len(old) <= q + len(new) for q in spelt)]
            if not places:
                continue
            if rule.guard == "position":
                word = _replaced(word, places, old, new)
                refs.append(rule.ref)
                continue
            for place in places:  # listed: the first place where the British form is listed (and the American one a word)
                made = _replaced(word, [place], old, new)
                if made in self.british_words if british else (word in self.british_words and made in self.english_words):
                    word = made
                    refs.append(rule.ref)
                    break
        return word, tuple(refs)


    @cached_property
    def rewrite_screen(self) -> re.Pattern | None:
        """One pattern that matches a whole phrase where a row of :attr:`rewrites` does:
        most phrases match no row, and are done with one match, not one per row. None when
        a row's pattern refers back to a group (its number or name would change here)."""
        patterns = [rule.pattern.pattern for rule in self.rewrites]
        if not patterns or any(_BACK_REFERENCE.search(pattern) for pattern in patterns):
            return None
        try:
            return re.compile("|".join(f"(?:{_NAMED_GROUP.sub('(?:', pattern)})" for pattern in patterns))
        except re.error:  # a row's own flags, which stand only at the start of a pattern
            return None

    @cached_property
    def adjective_nouns(self) -> dict[str, tuple[str, ...]]:
        """Adjective -> its nouns, sorted ('short' -> 'shortening', 'shortness')."""
        nouns: dict[str, list[str]] = {}
        for noun, adjective in self.noun_adjectives.items():
            nouns.setdefault(adjective, []).append(noun)
        return {adjective: tuple(sorted(listed)) for adjective, listed in nouns.items()}

    @cached_property
    def noun_adjective_words(self) -> frozenset[str]:
        """The nouns and adjectives of :attr:`noun_adjectives`."""
        return frozenset(self.noun_adjectives) | frozenset(self.adjective_nouns)

    @cached_property
    def anatomy_nouns(self) -> dict[str, str]:
        """Anatomy adjective -> its noun ('maxillary' -> 'maxilla')."""
        return {adjective: noun for noun, adjective in self.anatomy_adjectives.items()}

    @cached_property
    def anatomy_words(self) -> frozenset[str]:
        """The organ nouns and adjectives of :attr:`anatomy_adjectives`."""
        return frozenset(self.anatomy_adjectives) | frozenset(self.anatomy_adjectives.values())

    def prefixes_of(self, word: str) -> tuple[dict[str, str], bool]:
        """Prefix -> the word split after it ('hypopigmentation' -> 'hypo pigmentation'),
        for each joinable prefix whose remainder is an ontology word; and whether the word
        ends with a prefix (and may join the next word)."""
        found = self._prefixes.get(word)
        if found is None:
            splits = {
                prefix: f"{prefix} {word[len(prefix):]}"
                for prefix in self.joinable_prefixes
                if word.startswith(prefix) and word[len(prefix) :] in self.vocabulary
            }
            found = self._prefixes[word] = (splits, word.endswith(self.joinable_prefixes))
            if splits or found[1]:
                self._joining.add(word)
        return found

    def joins_any(self, words: set[str]) -> bool:
        """Whether one of ``words`` splits after a joinable prefix or ends with one."""
        for word in words.difference(self._prefixes):
            self.prefixes_of(word)
        return not self._joining.isdisjoint(words)

    def inflections(self, word: str) -> tuple[str, ...]:
        """The plurals then singulars of a head word; only its singulars for a class plural."""
        key = (word, word in self.class_plurals)
        forms = self._inflections.get(key)
        if forms is None:
            singulars = self.morphology.singulars(word)
            forms = tuple(singulars if key[1] else [*self.morphology.plurals(word), *singulars])
            self._inflections[key] = forms
        return forms

    @classmethod
    def from_dir(
        cls, lexicon_dir: str | Path, vocabulary: Iterable[str] = (), morphology: tuple[str, ...] = ("derivations",)
    ) -> "VariantResources":
        """``morphology`` names the optional parts of :class:`Morphology` that are on."""
        lexicon_dir = Path(lexicon_dir)
        vocabulary = frozenset(vocabulary)
        words = Morphology.from_dir(lexicon_dir, vocabulary, "derivations" in morphology)
        spellings = read_spelling_rules(lexicon_dir / "spelling_rules.tsv")
        english = WordList.read(lexicon_dir / ENGLISH_WORDS)
        british = frozenset(WordList.read(lexicon_dir / BRITISH_SPELLINGS).data.decode().split())
        adjectives = {row[0]: row[1] for row, _ in read_tsv(lexicon_dir / "noun_adjective.tsv", 2)}
        prefixes = tuple(row[0] for row, _ in read_tsv(lexicon_dir / "joinable_prefixes.tsv", 1))
        anatomy = {row[0]: row[1] for row, _ in read_tsv(lexicon_dir / "anatomy_adjectives.tsv", 2)}
        rewrites = tuple(
            RewriteRule(ref, _compile(row[1], f"{lexicon_dir / 'rewrite_rules.tsv'}:{ref.line}"), tuple(t.strip() for t in row[2].split("|")))
            for row, ref in read_rules(lexicon_dir / "rewrite_rules.tsv", 3)
        )
        class_plurals = frozenset(row[0] for row, _ in read_tsv(lexicon_dir / "class_plurals.tsv", 2))
        return cls(words, spellings, adjectives, prefixes, vocabulary, anatomy, rewrites, class_plurals, british, english)


def _fragments_automaton(fragments: Iterable[str]) -> ahocorasick.Automaton | None:
    """An automaton that finds any of ``fragments`` in a phrase; None for none."""
    listed = sorted(set(filter(None, fragments)))
    if not listed:
        return None
    automaton = ahocorasick.Automaton(ahocorasick.STORE_LENGTH)
    for fragment in listed:
        automaton.add_word(fragment)
    automaton.make_automaton()
    return automaton


def _holds_any(automaton: ahocorasick.Automaton | None, phrase: str) -> bool:
    return automaton is not None and next(automaton.iter(phrase), None) is not None


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


def noun_adjective_screen(text: str, res: VariantResources) -> bool:
    """Whether :func:`noun_adjective` may make anything of a phrase of the words of
    ``text``: one of them is a noun or an adjective of the table."""
    return not res.noun_adjective_words.isdisjoint(text.split(" "))


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
        for noun in res.adjective_nouns.get(words[0], ()):
            out += [f"{rest} {noun}", f"{noun} of the {rest}", f"{noun} of {rest}"]
    return out


def rewrite(phrase: str, res: VariantResources) -> list[tuple[str, str]]:
    """The phrase rewrites of ``lexicons/rewrite_rules.tsv`` ('abnormal X morphology' -> 'X
    anomaly'), each with the row that made it (``rewrite:rewrite_rules.tsv:4``)."""
    screen = res.rewrite_screen
    if screen is not None and screen.fullmatch(phrase) is None:
        return []
    return [(variant, f"rewrite:{rule.ref}") for rule in res.rewrites for variant in rule.apply(phrase)]


def anatomy_adjective_screen(text: str, res: VariantResources) -> bool:
    """Whether :func:`anatomy_adjective` may make anything of a phrase of the words of
    ``text``: one of them is an organ noun or adjective."""
    return not res.anatomy_words.isdisjoint(text.split(" "))


def anatomy_adjective(phrase: str, res: VariantResources) -> list[str]:
    """'maxilla hypoplasia' <-> 'maxillary hypoplasia': organ nouns used attributively."""
    words = phrase.split(" ")
    if res.anatomy_words.isdisjoint(words):
        return []
    out = []
    for i, word in enumerate(words[:-1]):  # attributive: some word follows
        for table in (res.anatomy_adjectives, res.anatomy_nouns):
            if word in table and words[i + 1] not in ("of", "and", "or"):
                out.append(" ".join(words[:i] + [table[word]] + words[i + 1 :]))
    return out


def number(phrase: str, res: VariantResources) -> list[str]:
    """Plural or singular of a head word: the last word, and the word before 'of'. A head
    of ``class_plurals.tsv`` is not made plural: "metabolic diseases" names a class of
    diseases, not a finding."""
    last = phrase[phrase.rfind(" ") + 1 :]
    stem = phrase[: len(phrase) - len(last)]  # the phrase up to its last word
    made = [stem + form for form in res.inflections(last)]
    if " of " not in phrase and not phrase.endswith(" of"):  # no 'of' after the first word
        return made
    words = phrase.split(" ")
    head = words.index("of", 1) - 1
    return [" ".join(words[:head] + [form] + words[head + 1 :]) for form in res.inflections(words[head])] + made


def _replaced(word: str, places: list[int], old: str, new: str) -> str:
    for place in sorted(places, reverse=True):
        word = word[:place] + new + word[place + len(old) :]
    return word


def spelling_screen(text: str, res: VariantResources) -> bool:
    """Whether :func:`spelling` may make anything of a phrase of the words of ``text``: a
    rule respells one of them."""
    return _holds_any(res.spelling_fragments, text) and res.respells_any(set(text.split(" ")))


def spelling(phrase: str, res: VariantResources) -> list[tuple[str, str]]:
    """The phrase with every word in its British spelling, and with every word in its
    American one ('cavernous hemangioma' -> 'cavernous haemangioma'; 'haemolytic anaemia'
    -> 'hemolytic anemia'): a writer keeps to one. Each with the rows of
    ``lexicons/spelling_rules.tsv`` that made it (``spelling:spelling_rules.tsv:4,6``)."""
    if not _holds_any(res.spelling_fragments, phrase):
        return []
    words = phrase.split(" ")
    known = res._spelt
    spelt = [known[word] if word in known else res.spelt(word) for word in words]
    if not any(spelt):  # no rule applies to a word
        return []
    out = []
    for side in (0, 1):
        forms = [(word, ()) if found is None else found[side] for word, found in zip(words, spelt)]
        if not any(refs for _, refs in forms):  # no rule changed a word: the phrase itself
            continue
        made = " ".join(form for form, _ in forms)
        refs = sorted({ref for _, refs in forms for ref in refs})
        if made != phrase:
            out.append((made, f"spelling:{refs[0].file}:{','.join(str(ref.line) for ref in refs)}"))
    return out


def join_split_screen(text: str, res: VariantResources) -> bool:
    """Whether :func:`join_split` may make anything of a phrase of the words of ``text``:
    some word splits after a prefix or ends with one."""
    return _holds_any(res.prefix_fragments, text) and res.joins_any(set(text.split(" ")))


def join_split(phrase: str, res: VariantResources) -> list[str]:
    """'hypo pigmentation' <-> 'hypopigmentation' for common bound prefixes.

    A word is split only when what follows the prefix is itself an ontology word, so
    'hypoplasia' never becomes 'hypo plasia'.
    """
    if not _holds_any(res.prefix_fragments, phrase):
        return []
    words = phrase.split(" ")
    known = res._prefixes
    found = [known[word] if word in known else res.prefixes_of(word) for word in words]
    splits = [word_splits for word_splits, _ in found]
    # A join needs a word ending in a prefix before a space, a split a word starting with one.
    if not any(ends for _, ends in found[:-1]) and not any(splits):
        return []
    spaced = [prefix + " " in phrase for prefix in res.joinable_prefixes]
    out = []
    for (prefix, pattern), joins in zip(res.join_patterns, spaced):
        joined = pattern.sub(prefix, phrase) if joins else phrase
        if joined != phrase:
            out.append(joined)
        if any(prefix in word_splits for word_splits in splits):
            out.append(" ".join(word_splits.get(prefix, word) for word_splits, word in zip(splits, words)))
    return out


Rule = Callable[[str, VariantResources], "list[str] | list[tuple[str, str]]"]

# Rules run stage by stage; each stage applies to every form the earlier stages made.
RULE_STAGES: tuple[tuple[str, Rule], ...] = (
    ("comma_inversion", comma_inversion),
    ("rewrite", rewrite),
    ("noun_adjective", noun_adjective),
    ("anatomy_adjective", anatomy_adjective),
    ("number", number),
    ("spelling", spelling),
    ("join_split", join_split),
)
RULE_NAMES = tuple(name for name, _ in RULE_STAGES)
# A rule that changes a phrase only through some of its words has a screen that tells from
# the words of all the forms of a stage at once whether the rule may change any of them:
# most forms hold no such word, and the stage is then passed by with one test, not a call
# per form (the ontology's 40,000 phrases make 400,000 forms).
RULE_SCREENS: dict[str, Callable[[str, VariantResources], bool]] = {
    "noun_adjective": noun_adjective_screen,
    "anatomy_adjective": anatomy_adjective_screen,
    "spelling": spelling_screen,
    "join_split": join_split_screen,
}


def generate_variants(
    phrase: str, res: VariantResources, rules: Iterable[str] = RULE_NAMES, max_chain: int = 3
) -> dict[str, str]:
    """All variants of a lower-cased phrase, each with the '+'-joined rules (rewrite rows)
    that made it (:func:`chain_rules` over the enabled rules, at most ``max_chain`` chained)."""
    return chain_rules(phrase, variant_stages(res, rules), max_chain)


def variant_stages(res: VariantResources, rules: Iterable[str] = RULE_NAMES) -> list[tuple]:
    """The enabled rules in stage order, each bound to ``res`` with its screen, if it has
    one: what :func:`chain_rules` takes, made once for many phrases."""
    enabled = set(rules)
    return [(name, _bound(rule, res), *([_bound(RULE_SCREENS[name], res)] if name in RULE_SCREENS else [])) for name, rule in RULE_STAGES if name in enabled]


def _bound(rule: Rule, res: VariantResources) -> Callable[[str], list]:
    return lambda phrase: rule(phrase, res)


def chain_rules(phrase: str, stages: Iterable[tuple], max_chain: int) -> dict[str, str]:
    """Every form the named rules make of ``phrase`` and of each other's forms, stage after
    stage, at most ``max_chain`` chained, each with the '+'-joined chain that made it; the
    phrase itself is not included. A stage is (name, rule), or (name, rule, screen) where
    ``screen`` is False for the forms of the stage joined by spaces when the rule makes
    nothing of any of them. A rule returns forms, or (form, step) pairs whose step
    names the chain's link more precisely than the rule's name (a rewrite's row). When two
    chains of rule names make the same form the shorter (then alphabetically first) is
    kept, and of equal ones the first made, so provenance is deterministic. The phenotype
    lexicon's rules and the JNLPBA tagger's Greek-letter rules both chain through it."""
    forms: dict[str, tuple[str, str, int]] = {phrase: ("", "", 0)}  # form -> (rule names, steps, chained)
    for name, rule, *screen in stages:
        if screen and not screen[0](" ".join(forms)):
            continue
        for form, (chain, steps, depth) in sorted(forms.items()):
            if depth >= max_chain:
                continue
            made_forms = rule(form)
            if not made_forms:
                continue
            new_chain = f"{chain}+{name}" if chain else name
            rank = (len(new_chain), new_chain)
            for made in made_forms:
                variant, step = made if isinstance(made, tuple) else (made, name)
                variant = " ".join(variant.split())
                old = forms.get(variant)
                if old is None or (old[0] and (len(old[0]), old[0]) > rank):
                    forms[variant] = (new_chain, f"{steps}+{step}" if steps else step, depth + 1)
    forms.pop(phrase)
    return {form: steps for form, (chain, steps, _) in forms.items() if chain}
