"""The dictionary stage: Aho-Corasick lexicon matches become phenotype spans.

Each span carries the HPO id(s), the term label and the provenance of the lexicon entry
that produced it (``name``, ``synonym:EXACT``, a variant chain, a TSV file and line).
"""

from __future__ import annotations

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..document import PHENOTYPE_LABEL, PHENOTYPES
from ..lexicon import LexiconConfig
from ..matcher import Match
from ..resources import Resources, load_resources


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
    use_cache: bool,
):
    config = LexiconConfig(tuple(synonym_scopes), tuple(variant_rules), tuple(extra_files), tuple(blocklist_files), min_key_length)
    return PhenotypeMatcher(load_resources(hpo, lexicon_dir, config, use_cache))


class PhenotypeMatcher:
    def __init__(self, resources: Resources):
        self.resources = resources

    def __call__(self, doc: Doc) -> Doc:
        spans = [self.make_span(doc, match) for match in self.resources.matcher(doc.text)]
        doc.spans[PHENOTYPES] = [span for span in spans if span is not None]
        return doc

    def make_span(self, doc: Doc, match: Match) -> Span | None:
        span = doc.char_span(match.start, match.end, label=PHENOTYPE_LABEL)
        if span is None:  # the tokenizer splits every non-word character, so this is rare
            return None
        entry = match.entry
        span._.hpo_id = entry.hpo_id
        span._.hpo_label = self.label(entry.hpo_id)
        span._.provenance = [entry.provenance]
        return span

    def label(self, hpo_ids: str) -> str:
        names = self.resources.ontology.names
        return "; ".join(names.get(hpo_id, hpo_id) for hpo_id in hpo_ids.split(";"))
