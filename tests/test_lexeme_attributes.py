"""The lexeme attribute getters of our blank English give spaCy's values."""

import pickle

import spacy
from hypothesis import given, settings
from hypothesis import strategies as st
from spacy import attrs

from phenorules.core.lexeme_attributes import FASTER, faster_getters
from phenorules.stages.pipeline import blank_english

# Words of the kinds the getters tell apart: numbers, number words, URLs, e-mail
# addresses, punctuation, currency, shapes; and any text.
SPECIAL = [
    "hypotonia", "Hypotonia", "HPO", "eleventh", "Twelve", "-3", "+1,000.5", "±2", "~4", "3/4", "1/2/3", "21st", "2nd", "½", "²",
    "www.x", "www.", "http://localhost", "https://a", "example.com", "a.b.", ".com", "x@y.org", "a@b", "x.y@z", "(", "''", "—",
    "$", "€", "$5", "aaaaab", "a" * 120, "AAAAAaaaaa11111", "ß", "ǅ", "١٢", "\u00e9t\u00e9", " ", "\n",
]
TEXTS = st.one_of(st.sampled_from(SPECIAL), st.text(min_size=1, max_size=12), st.text(alphabet="aZé09.@/:+-±~,½²$€ x", min_size=1, max_size=12))


@given(TEXTS)
@settings(max_examples=3000, deadline=None)
def test_each_faster_getter_gives_spacys_value(text):
    for attr, (theirs, ours) in FASTER.items():
        assert ours(text) == theirs(text), (attrs.NAMES[attr], text)


LEXEME_ATTRS = ("lower_", "norm_", "prefix_", "suffix_", "shape_", "lang_", "is_alpha", "is_ascii", "is_digit", "is_lower", "is_upper",
                "is_title", "is_punct", "is_left_punct", "is_right_punct", "is_space", "is_bracket", "is_quote", "is_currency",
                "like_url", "like_num", "like_email", "is_stop", "is_oov")


def test_the_blank_english_reads_its_lexemes_faster_and_as_spacy_does():
    nlp = blank_english()
    assert all(nlp.vocab.lex_attr_getters[attr] is ours for attr, (_, ours) in FASTER.items())
    plain = spacy.blank("en")
    for word in SPECIAL:
        assert [getattr(nlp.vocab[word], name) for name in LEXEME_ATTRS] == [getattr(plain.vocab[word], name) for name in LEXEME_ATTRS], word
    again = pickle.loads(pickle.dumps(nlp.vocab))  # as nlp.pipe's processes get it
    assert [again.lex_attr_getters[attr](word) for attr in FASTER for word in SPECIAL] == [ours(word) for _, ours in FASTER.values() for word in SPECIAL]


def test_a_getter_that_is_not_spacys_own_stays():
    def mine(text):
        return text == "x"

    getters = {attrs.LIKE_NUM: mine, attrs.IS_ALPHA: FASTER[attrs.IS_ALPHA][0]}
    assert faster_getters(getters) == {attrs.LIKE_NUM: mine, attrs.IS_ALPHA: str.isalpha}
