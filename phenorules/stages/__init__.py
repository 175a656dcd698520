"""spaCy components, one per stage; importing this package registers their factories."""

from . import coordination, match, negation, sentences  # noqa: F401  (registration side effect)
