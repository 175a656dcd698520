"""What each row of lexicons/spelling_rules.tsv makes of the ontology's words, and the keys
the spelling rule adds to the lexicon.

    python benchmarks/spelling_rules.py [--hpo hp.obo] [--examples N]

For each row: the words of the ontology's names and synonyms it respells (to British, and
to American for a word spelt the British way), how many of the forms it makes are words of
SCOWL (lexicons/english_words.txt.gz: attested spellings), how many are another word of the
ontology (a form that would be another term's word), and the first N forms no list holds,
to read for false ones. Then the lexicon's keys with and without the spelling rule.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from phenorules.kb.lexicon import LexiconConfig, build_lexicon, ontology_vocabulary
from phenorules.kb.lexicon.variants import RULE_NAMES, VariantResources
from phenorules.kb.lexicon.word_lists import WordList
from phenorules.kb.ontology import default_obo_path, load_ontology
from phenorules.kb.resources import data_dir


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hpo", default=None)
    parser.add_argument("--examples", type=int, default=4)
    args = parser.parse_args()
    ontology = load_ontology(str(args.hpo or default_obo_path()))
    lexicon_dir = data_dir("lexicons")
    vocabulary = ontology_vocabulary(ontology)
    res = VariantResources.from_dir(lexicon_dir, vocabulary)
    english = WordList.read(lexicon_dir / "english_words.txt.gz")
    print(f"{'row':<8}{'british':<10}{'american':<10}{'guard':<10}{'words':>7}{'in SCOWL':>10}{'ontology':>10}  unlisted forms")
    for rule in res.spellings:
        made = {}
        for word in sorted(word for word in vocabulary if word.isalpha()):
            for form, refs in res.spelt(word):
                if rule.ref in refs:
                    made[word] = form
        attested = sum(form in english for form in made.values())
        other = sum(form in vocabulary for form in made.values())
        unlisted = [f"{word}>{form}" for word, form in made.items() if form not in english][: args.examples]
        print(f"{rule.ref.line:<8}{rule.british:<10}{rule.american:<10}{rule.guard:<10}{len(made):>7}{attested:>10}{other:>10}  {', '.join(unlisted)}")
    config = LexiconConfig()
    with_spelling = build_lexicon(ontology, lexicon_dir, config)
    without = build_lexicon(ontology, lexicon_dir, replace(config, variant_rules=tuple(r for r in RULE_NAMES if r != "spelling")))
    print(f"lexicon keys: {len(without):,} without the spelling rule, {len(with_spelling):,} with it (+{len(with_spelling) - len(without):,})")


if __name__ == "__main__":
    main()
