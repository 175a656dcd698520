"""spaCy components, one per stage, and the knowledge base function they share; importing
this package registers them."""

from . import abbreviations, assertion, coordination, knowledge, match, measurements, names, nested, patients, predicative, qualifiers, scope, sentences, word_order  # noqa: F401  (registration side effect)
