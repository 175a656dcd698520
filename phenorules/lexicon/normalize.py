"""One normal form for lexicon keys and article text, with a 1:1 character map.

Normalising never changes the length of a string, so an offset into the normal form is the
same offset into the original text: matches map back to exact spans for free.
"""

from __future__ import annotations

import re

# Hyphens, dashes and white space all become one space; typographic quotes become ASCII.
_FOLD = str.maketrans(
    {
        **{c: " " for c in "-\u2010\u2011\u2012\u2013\u2014\u2212\u00ad\t\n\r\f\v\u00a0\u2009\u202f"},
        "\u2019": "'",
        "\u2018": "'",
    }
)
_SPACES = re.compile(r"\s+")


def normalize_text(text: str) -> str:
    """Lower-case and fold separators, keeping every character at its offset."""
    folded = text.translate(_FOLD)
    lowered = folded.lower()
    if len(lowered) == len(folded):
        return lowered
    # A few characters (e.g. U+0130) lower-case to two; keep those as they are.
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in folded)


def normalize_key(phrase: str) -> str:
    """The lookup key of a lexicon phrase: normal form with single spaces, trimmed."""
    return _SPACES.sub(" ", normalize_text(phrase)).strip()


def is_word_char(char: str) -> bool:
    return char.isalnum()
