"""A long article annotated in pieces gives the result of the article annotated whole
(phenorules/core/pieces.py), with the piece length lowered so that small texts are cut."""

from __future__ import annotations

from spacy.language import Language

from conftest import MINI_OBO
from phenorules.core.annotated import annotated_articles
from phenorules.core.article import Article, Passage, Patient
from phenorules.core.pieces import PIECE_CHARS, cuttable, in_pieces, piece_starts
from phenorules.stages.pipeline import build_pipeline

PIECE = 120  # characters: a piece of a passage or two here

# An article of a case report's shape: the patients named and a short form defined at the
# start, a long stretch between, and the findings, a use of the short form, a negated
# finding and a table caption at the end.
EARLY = (
    ("CASE", "paragraph", "Patient 1 is an 8-year-old girl with severe intellectual disability (ID) and hypotonia."),
    ("CASE", "paragraph", "Her younger brother, Patient 2, was referred at 3 years of age for short stature."),
)
BETWEEN = (
    ("CASE", "paragraph", "The pregnancy was uneventful and the delivery was at term."),
    ("CASE", "paragraph", "Early motor milestones were reached on time."),
    ("CASE", "paragraph", "Growth parameters were normal at the last visit."),
)
LATE = (
    ("CASE", "paragraph", "He had seizures from the age of 2 years, and ataxia."),
    ("CASE", "paragraph", "His speech was delayed (ID was suspected) but there was no microcephaly."),
    ("CASE", "paragraph", "He developed hypotonia later."),
    ("CASE", "paragraph", "At 5 years his height was 95 cm (-3.1 SD)."),
    ("RESULTS", "table_caption", "Table 1. Hypertelorism and a cleft palate in the family."),
)


def article(passages, article_id: str = "long", patients=(Patient("P1", "1"), Patient("P2", "2"))) -> Article:
    placed, offset = [], 0
    for section, kind, text in passages:
        placed.append(Passage(offset, text, section, kind))
        offset += len(text) + 1
    return Article(article_id, tuple(placed), None, patients)


LONG = article(EARLY + BETWEEN * 6 + LATE)


def test_a_long_article_is_cut_into_pieces_at_passages_only_where_a_sentence_ends():
    starts = piece_starts(LONG.passages, PIECE)
    assert len(starts) > 5 and starts[0] == 0
    assert set(starts[1:]) <= {passage.offset for passage in LONG.passages}
    assert piece_starts(LONG.passages, PIECE_CHARS) == [0]  # one Doc below the length
    first, second = Passage(0, "A title without a stop"), Passage(23, "Text.")
    assert not cuttable(first, second)
    assert not cuttable(Passage(0, "Ends."), Passage(6, "(bracketed) start"))
    assert not cuttable(Passage(0, "Ends."), Passage(5, "Adjacent."))  # no line break between
    assert cuttable(Passage(0, "Ends."), Passage(6, "Starts."))


def test_no_cut_comes_before_brackets_whose_long_form_may_start_in_the_passage_before(mini_nlp):
    """scispacy reads a long form from the words before a short form's brackets, across a
    line break: "(ID)" here is defined by the words of two passages, "infancy.\nDisability",
    so no piece starts at the second."""
    two = article((("CASE", "paragraph", "Hypotonia was noted in infancy."), ("CASE", "paragraph", "Disability (ID) was mild and seizures began at 2 years.")))
    assert piece_starts(two.passages, 1) == [0]
    assert not cuttable(Passage(0, "Ends."), Passage(6, "Hearing loss of the left ear (HL) was found."))
    assert cuttable(Passage(0, "Ends."), Passage(6, " ".join(["word"] * 33) + " (W)."))
    (whole,) = annotated_articles(mini_nlp, [two])
    assert any("defined:infancy.\nDisability" in rule for *_, rule in whole.dropped)


def test_pieces_give_the_whole_article_s_result(mini_nlp):
    """The short form defined in the first piece is taken in a late one, the patient named
    early gets the findings of the late pieces, and nothing else changes (the records, the
    drops, the patients' associations, the subjects)."""
    assert in_pieces(mini_nlp)
    (whole,) = annotated_articles(mini_nlp, [LONG])
    (pieced,) = annotated_articles(mini_nlp, [LONG], piece_chars=PIECE)
    assert pieced == whole
    late = LONG.passages[-len(LATE)].offset
    used = [m for m in pieced.phenotypes if m.text == "ID" and m.start > late]
    assert used and "abbreviation:defined:intellectual disability" in used[0].provenance
    assert any(m.patients == ["P2"] and m.start > late for m in pieced.phenotypes)
    assert pieced.dropped  # the table caption's mentions, dropped in the last piece


def last_pieces_alone(nlp) -> tuple:
    """The result of the last two pieces annotated as an article of their own, and the
    whole article's mentions in them."""
    (whole,) = annotated_articles(nlp, [LONG])
    start = piece_starts(LONG.passages, PIECE)[-2]
    (alone,) = annotated_articles(nlp, [Article("last", tuple(p for p in LONG.passages if p.offset >= start), None, LONG.patients)])
    return alone.phenotypes, tuple(m for m in whole.phenotypes if m.start >= start)


def test_pieces_carry_what_the_article_says_before_them(mini_nlp):
    """The last pieces annotated as an article of their own lose the early definition and
    the early patient: the pieces above carry them."""
    alone, whole = last_pieces_alone(mini_nlp)
    assert [(m.start, m.provenance, m.patients) for m in alone] != [(m.start, m.provenance, m.patients) for m in whole]


def test_growth_values_read_the_ids_the_whole_article_names(general_nlp):
    """The general profile's growth stage adds no finding the article names anywhere:
    "short stature" early, a height of -3.1 SD late."""
    assert in_pieces(general_nlp)
    (whole,) = annotated_articles(general_nlp, [LONG])
    (pieced,) = annotated_articles(general_nlp, [LONG], piece_chars=PIECE)
    assert pieced == whole

    def growth(mentions):
        return [m for m in mentions if any(rule.startswith("rules/growth.tsv") for rule in m.provenance)]

    alone, late = last_pieces_alone(general_nlp)
    assert growth(alone) and not growth(late)


@Language.component("test_pieces_foreign_pipe")
def foreign_pipe(doc):
    return doc


def test_a_pipe_that_says_nothing_of_pieces_keeps_the_article_whole():
    nlp = build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, profile="patientphex")
    nlp.add_pipe("test_pieces_foreign_pipe", before="match")
    assert not in_pieces(nlp)
    (whole,) = annotated_articles(nlp, [LONG])
    (pieced,) = annotated_articles(nlp, [LONG], piece_chars=PIECE)
    assert pieced == whole


def test_pieces_among_whole_articles_keep_the_input_order(mini_nlp):
    short = article(EARLY, "short")
    results = list(annotated_articles(mini_nlp, [short, LONG, short], piece_chars=PIECE))
    assert [result.article.id for result in results] == ["short", "long", "short"]
    assert results[1] == next(iter(annotated_articles(mini_nlp, [LONG])))
    assert results[0] == results[2] == next(iter(annotated_articles(mini_nlp, [short])))
