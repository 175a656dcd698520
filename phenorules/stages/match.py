"""The dictionary stage: Aho-Corasick lexicon matches become phenotype spans.

Each span carries the HPO id(s), the term label and the provenance of the lexicon entry
that produced it (``name``, ``synonym:EXACT``, a variant chain, a TSV file and line).
"""

from __future__ import annotations

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..document import PHENOTYPE_LABEL, PHENOTYPES, doc_text
from ..errors import SettingError
from ..lexicon import MORPHOLOGY_PARTS, SUBSTITUTION_SOURCES, Entry, LexiconConfig
from ..lexicon.variants import RULE_NAMES
from ..matcher import Match, PhraseMatcher
from ..resources import Resources, load_resources

# Provenance of a span widened to token boundaries (spaCy's default tokenizer keeps
# "palate;seizures" as one token, ours splits it).
EXPANDED_TO_TOKENS = "token_alignment:expand"


SYNONYM_SCOPES = ("EXACT", "RELATED", "BROAD", "NARROW")


@Language.factory(
    "phenorules_match",
    default_config={
        "hpo": None,
        "lexicon_dir": None,
        "synonym_scopes": list(LexiconConfig.synonym_scopes),
        "variant_rules": list(LexiconConfig.variant_rules),
        "extra_files": list(LexiconConfig.extra_files),
        "blocklist_files": list(LexiconConfig.blocklist_files),
        "min_key_length": LexiconConfig.min_key_length,
        "morphology": list(LexiconConfig.morphology),
        "substitutions": list(LexiconConfig.substitutions),
        "use_cache": True,
    },
)
def make_phenotype_matcher(
    nlp: Language,
    name: str,
    hpo: str | None,
    lexicon_dir: str | None,
    synonym_scopes: list[str],
    variant_rules: list[str],
    extra_files: list[str],
    blocklist_files: list[str],
    min_key_length: int,
    morphology: list[str],
    substitutions: list[str],
    use_cache: bool,
):
    checked = (
        ("synonym_scopes", synonym_scopes, SYNONYM_SCOPES), ("variant_rules", variant_rules, RULE_NAMES), ("morphology", morphology, MORPHOLOGY_PARTS),
        ("substitutions", substitutions, SUBSTITUTION_SOURCES),
    )
    for setting, given, known in checked:
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise SettingError(f"match stage: unknown {setting} {unknown}; expected some of {list(known)}")
    config = LexiconConfig(
        tuple(synonym_scopes), tuple(variant_rules), tuple(extra_files), tuple(blocklist_files), min_key_length,
        morphology=tuple(morphology), substitutions=tuple(substitutions),
    )
    return PhenotypeMatcher(load_resources(hpo, lexicon_dir, config, use_cache))


def match_stage(nlp: Language, hpo: str | None) -> "PhenotypeMatcher":
    """The pipeline's match stage, whose resources the refining stages read at call time.

    Reading them at call time (not copying them at construction) keeps every stage on the
    matcher the match stage really uses, e.g. a cross-validation fold's. A stage made
    without a match pipe (inside the combined ``phenorules`` component) starts on a match
    stage with the default lexicon for ``hpo``; the component then points it at its own.
    """
    if "match" in nlp.pipe_names:
        return nlp.get_pipe("match")
    return PhenotypeMatcher(load_resources(hpo))


class RefinesMatches:
    """Base of the stages that refine the match stage's spans (``source`` is that stage)."""

    source: "PhenotypeMatcher"

    @property
    def matcher(self) -> PhraseMatcher:
        return self.source.resources.matcher

    @property
    def names(self) -> dict[str, str]:
        return self.source.resources.ontology.names

    def term(self, phrase: str) -> str | None:
        """The id(s) of ``phrase`` if the lexicon knows the whole phrase as one term, in
        its own word order or in another ('pain of the wrists' is Wrist pain)."""
        matches = self.matcher(phrase)
        if len(matches) == 1 and matches[0].start == 0 and matches[0].end == len(phrase):
            return matches[0].entry.hpo_id
        for match in self.source.resources.word_sets.find(phrase, self.matcher):
            if match.start == 0 and match.end == len(phrase):
                return match.entry.hpo_id
        return None


class PhenotypeMatcher:
    def __init__(self, resources: Resources):
        self.resources = resources

    def __call__(self, doc: Doc) -> Doc:
        spans: list[Span] = []
        taken: set[tuple[int, int]] = set()
        for match in self.resources.matcher(doc_text(doc)):
            span, provenance = self.align(doc, match)
            # Two matches inside one foreign token would share the span's extension values.
            if (span.start, span.end) in taken:
                continue
            taken.add((span.start, span.end))
            spans.append(self.annotate(span, match.entry, provenance))
        doc.spans[PHENOTYPES] = spans
        return doc

    def align(self, doc: Doc, match: Match) -> tuple[Span, list[str]]:
        """The span at the match's exact offsets; with a foreign tokenizer whose tokens do
        not end where the match does, the tokens that hold it (so that no match is lost)."""
        provenance = [match.entry.provenance]
        span = doc.char_span(match.start, match.end, label=PHENOTYPE_LABEL)
        if span is None:
            span = doc.char_span(match.start, match.end, label=PHENOTYPE_LABEL, alignment_mode="expand")
            provenance.append(EXPANDED_TO_TOKENS)
        return span, provenance

    def annotate(self, span: Span, entry: Entry, provenance: list[str]) -> Span:
        span._.hpo_id = entry.hpo_id
        span._.hpo_label = self.label(entry.hpo_id)
        span._.provenance = provenance
        return span

    def label(self, hpo_ids: str) -> str:
        names = self.resources.ontology.names
        return "; ".join(names.get(hpo_id, hpo_id) for hpo_id in hpo_ids.split(";"))
