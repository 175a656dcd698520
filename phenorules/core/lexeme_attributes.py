"""spaCy's English lexical attributes (``Vocab.lex_attr_getters``): the same values, read
faster.

A Doc's first sight of a word makes its lexeme by calling some twenty getters, each a
Python function: over the shared file's 13,500 distinct words, 0.12 s of the first pass.
Here a getter that only calls a ``str`` method becomes that method, and a getter that reads
a word character by character first answers what a plain word makes certain ('hypotonia'
is no number, no URL, no e-mail address, no punctuation; its shape is 'xxxx'), asking
spaCy's own function for every other word. A getter is replaced only where it is spaCy's
own function (:func:`faster_getters`): a user's getter, or another language's, stays. A
property test holds each equal to the installed spaCy's (``setup.cfg`` pins spaCy < 3.9).
"""

from __future__ import annotations

from operator import itemgetter
from typing import Callable

import spacy.lang.en.lex_attrs as english
import spacy.lang.lex_attrs as common
from spacy import attrs

_NUMBER_WORDS = frozenset(english._num_words) | frozenset(english._ordinal_words)
_URL_SCHEMES = ("http://", "https://")


def like_num(text: str) -> bool:
    """spaCy's English ``like_num``: a word of letters is a number only as a number word."""
    if text.isalpha():
        return text.lower() in _NUMBER_WORDS
    return english.like_num(text)


def like_url(text: str) -> bool:
    """spaCy's ``like_url``: without a dot, only a text that starts with a scheme is one."""
    return ("." in text or text.startswith(_URL_SCHEMES)) and common.like_url(text)


def like_email(text: str) -> bool:
    """spaCy's ``like_email``: never without an '@'."""
    return "@" in text and common.like_email(text)


def is_punct(text: str) -> bool:
    """spaCy's ``is_punct``: a letter or digit is no punctuation."""
    return not text.isalnum() and common.is_punct(text)


def is_currency(text: str) -> bool:
    """spaCy's ``is_currency``: a letter or digit is no currency sign."""
    return not text.isalnum() and common.is_currency(text)


def word_shape(text: str) -> str:
    """spaCy's ``word_shape``: a lower-case ASCII word is 'x' a letter, up to four."""
    if len(text) < 100 and text.isascii() and text.isalpha() and text.islower():
        return "xxxx"[: len(text)]
    return common.word_shape(text)


# attribute -> (spaCy's getter, the one here that gives its values)
FASTER: dict[int, tuple[Callable, Callable]] = {
    attrs.LOWER: (common.lower, str.lower),
    attrs.PREFIX: (common.prefix, itemgetter(0)),
    attrs.SUFFIX: (common.suffix, itemgetter(slice(-3, None))),
    attrs.IS_ALPHA: (common.is_alpha, str.isalpha),
    attrs.IS_DIGIT: (common.is_digit, str.isdigit),
    attrs.IS_LOWER: (common.is_lower, str.islower),
    attrs.IS_SPACE: (common.is_space, str.isspace),
    attrs.IS_TITLE: (common.is_title, str.istitle),
    attrs.IS_UPPER: (common.is_upper, str.isupper),
    attrs.IS_ASCII: (common.is_ascii, str.isascii),
    attrs.LIKE_NUM: (english.like_num, like_num),
    attrs.LIKE_URL: (common.like_url, like_url),
    attrs.LIKE_EMAIL: (common.like_email, like_email),
    attrs.IS_PUNCT: (common.is_punct, is_punct),
    attrs.IS_CURRENCY: (common.is_currency, is_currency),
    attrs.SHAPE: (common.word_shape, word_shape),
}


def faster_getters(getters: dict[int, Callable]) -> dict[int, Callable]:
    """``getters`` with each of spaCy's own that :data:`FASTER` lists replaced."""
    return {attr: FASTER[attr][1] if attr in FASTER and getter is FASTER[attr][0] else getter for attr, getter in getters.items()}
