"""spaCy components, one per stage; importing this package registers their factories."""

from . import abbreviations, coordination, match, measurements, negation, patients, sentences, word_order  # noqa: F401  (registration side effect)
