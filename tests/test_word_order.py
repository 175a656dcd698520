"""Order-free matching (phenorules/kb/word_sets.py) and the word_order stage."""

import pytest
import spacy
from hypothesis import given, settings
from hypothesis import strategies as st

from phenorules.core.document import PHENOTYPES, make_text_doc
from phenorules.core.errors import InputError
from phenorules.kb.knowledge_base import KnowledgeBase
from phenorules.kb.lexicon import Entry, Lexicon
from phenorules.kb.matcher import PhraseMatcher
from phenorules.stages.pipeline import build_pipeline
from phenorules.kb.resources import data_dir
from phenorules.kb.word_sets import WordSetIndex, read_function_words

from conftest import MINI_OBO, compile_terms, stage_rules
from phenorules.formats.patientphex.identifiers import task_identifier


def found(terms, text):
    compiled = compile_terms(terms)
    return [(text[m.start : m.end], task_identifier(m.entry.hpo_ids)) for m in compiled.word_sets.find(text, compiled.matcher)]


ELBOW = ("elbow flexion contracture", "HP:0002987", "")


def test_reordered_and_inflected_words_match():
    assert found([ELBOW], "with flexion contractures of the elbows.") == [("flexion contractures of the elbows", "HP:0002987")]
    assert found([ELBOW], "flexion contractures of both elbows") == [("flexion contractures of both elbows", "HP:0002987")]


def test_irregular_plurals_come_from_the_lexicon_table():
    assert found([("foot deformity", "HP:0001760", "")], "deformity of the feet") == [("deformity of the feet", "HP:0001760")]


def test_a_run_stops_at_punctuation_and_at_words_no_term_uses():
    assert found([ELBOW], "contractures of the elbows, flexion") == []
    assert found([ELBOW], "contractures of the elbows in flexion") == [("contractures of the elbows in flexion", "HP:0002987")]
    assert found([ELBOW], "flexion contractures were seen at the elbows") == []  # 'were' ends the run


def test_a_tab_between_table_cells_ends_a_run():
    assert found([ELBOW], "Elbows\tflexion contractures") == []
    assert found([ELBOW], "Contractures\t-\t-\telbow\tflexion") == []
    assert found([ELBOW], "Contractures -\nelbow flexion") == [("Contractures -\nelbow flexion", "HP:0002987")]  # a line wrapped in prose does not


def test_hyphenated_words_are_one_run():
    assert found([("short distal ulna", "HP:0005033", "")], "distal-ulnae short") == [("distal-ulnae short", "HP:0005033")]


def test_a_slash_between_two_words_keeps_one_run():
    adhd = ("attention deficit hyperactivity disorder", "HP:0007018", "")
    assert found([adhd], "an attention-deficit/hyperactivity disorder.") == [("attention-deficit/hyperactivity disorder", "HP:0007018")]
    assert found([adhd], "attention-deficit, hyperactivity disorder") == []  # a comma still ends it


def test_word_families_match_each_other():
    delay = ("developmental delay", "HP:0001263", "")
    assert found([delay], "delayed development") == [("delayed development", "HP:0001263")]
    # noun_adjective.tsv pairs are families too
    assert found([("hypoplastic mandible", "HP:0000347", "")], "hypoplasia of the mandible") == [("hypoplasia of the mandible", "HP:0000347")]


def test_conjunctions_end_a_run_and_terms_with_them_are_not_indexed():
    assert found([("motor speech delay", "HP:0001270", "")], "delayed motor and speech") == []
    assert found([("cleft lip and palate", "HP:0000202", "")], "palate and cleft lip") == []


def test_families_join_words_that_share_a_line():
    from phenorules.kb.lexicon.morphology import families

    assert families([("b", "a"), ("c", "d"), ("d", "b")]) == {"b": "a", "c": "a", "d": "a"}


def test_single_words_and_rewritten_forms_are_not_indexed():
    assert found([("contracture", "HP:0034392", "")], "contractures") == []
    assert found([("skin changes", "HP:0000951", "rewrite")], "changes of the skin") == []


def test_the_best_ranked_key_wins_a_shared_word_set():
    lexicon = Lexicon()
    lexicon.add("hand cleft", Entry(6, ("HP:0000002",), "hand cleft", "synonym:BROAD"))
    lexicon.add("cleft hand", Entry(2, ("HP:0000001",), "Cleft hand", "name"))
    lexicon.finalize()
    matcher = PhraseMatcher(lexicon)
    index = WordSetIndex.build(lexicon, matcher, data_dir("lexicons"))
    assert [task_identifier(m.entry.hpo_ids) for m in index.find("clefts of the hands", matcher)] == ["HP:0000001"]


def mentions(nlp, text):
    doc = nlp(make_text_doc(nlp, text))
    return [(span.text, task_identifier(span._.hpo_ids), stage_rules(span)[-1]) for span in doc.spans[PHENOTYPES]]


def test_stage_adds_the_reordered_mention(mini_nlp):
    assert mentions(mini_nlp, "He had hypoplasia of both mandibles.") == [("hypoplasia of both mandibles", "HP:0000347", "word_order")]


def test_stage_replaces_a_dictionary_mention_inside_the_run(mini_nlp):
    assert mentions(mini_nlp, "a cleft palate of submucous type") == [("cleft palate of submucous", "HP:0000176", "word_order")]


def test_stage_never_cuts_a_dictionary_mention(mini_nlp):
    # 'palate of submucous' would cut 'cleft palate' in two: the dictionary mention stays
    assert mentions(mini_nlp, "a submucous cleft palate") == [("submucous cleft palate", "HP:0000176", "name|comma_inversion")]


def test_stage_can_be_switched_off():
    nlp = build_pipeline(disable=["word_order"], hpo=MINI_OBO, kb={"use_cache": False})
    assert mentions(nlp, "He had hypoplasia of both mandibles.") == []


def test_function_word_file_with_an_unknown_kind_is_refused(tmp_path):
    path = tmp_path / "function_words.tsv"
    path.write_text("of\tskip\nand\tbreak\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"function_words.tsv:2: unknown kind 'break'"):
        read_function_words(path)


def test_bound_suffix_words_are_left_out_on_both_sides():
    assert found([("butterfly vertebrae", "HP:0003316", "")], "butterfly-like vertebrae") == [("butterfly-like vertebrae", "HP:0003316")]
    assert found([("bird-like facies", "HP:0000000", "")], "bird-like facies") == [("bird-like facies", "HP:0000000")]
    assert found([("butterfly vertebrae", "HP:0003316", "")], "butterfly like vertebrae") == []  # 'like' standing alone is a word


def found_skipping_one(terms, text):
    compiled = compile_terms(terms)
    return [(text[m.start : m.end], task_identifier(m.entry.hpo_ids)) for m in compiled.word_sets.find_skipping_one(text, compiled.matcher)]


SPACED = ("widely spaced teeth", "HP:0000687", "")
LOWER = ("lower limb", "HP:0000001", "")  # makes 'lower' a word of an indexed set


def test_a_run_may_skip_one_word_of_another_term():
    assert found_skipping_one([SPACED, LOWER], "widely spaced lower teeth") == [("widely spaced lower teeth", "HP:0000687")]
    assert found_skipping_one([SPACED], "widely spaced lower teeth") == []  # 'lower' is no term's word
    assert found_skipping_one([SPACED, LOWER], "widely spaced lower lower teeth") == []  # one word, not two
    assert found_skipping_one([SPACED, LOWER], "widely spaced teeth") == []  # nothing skipped: find's run
    assert found_skipping_one([SPACED, LOWER], "widely spaced lower, teeth") == []  # never across a break


def with_terms(nlp, terms):
    """The pipeline with every stage on a knowledge base of only ``terms`` (the mini
    ontology still names them)."""
    compiled = compile_terms(terms)
    kb = KnowledgeBase(nlp.get_pipe("match").kb.ontology, compiled.matcher, compiled.word_sets)
    for _, component in nlp.pipeline:
        if hasattr(component, "kb"):
            component.kb = kb
    return nlp


def test_stage_adds_a_run_with_a_skipped_word_only_where_no_mention_lies():
    nlp = with_terms(build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}), [SPACED, LOWER])
    assert mentions(nlp, "He had widely spaced lower teeth.") == [("widely spaced lower teeth", "HP:0000687", "word_order:skip_one_word")]
    nlp = with_terms(nlp, [SPACED, LOWER, ("spaced", "HP:0000002", "")])
    assert mentions(nlp, "He had widely spaced lower teeth.") == [("spaced", "HP:0000002", "name")]
    off = with_terms(build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, stage_config={"word_order": {"skip_one_word": False}}), [SPACED, LOWER])
    assert mentions(off, "He had widely spaced lower teeth.") == []


def index_of(lexicon_dir, names, derivations="", noun_adjective="", word_clusters="", function_words=""):
    """A word-set index over ``names`` (each HP:0000001) with these morphology and function-word files."""
    files = {"irregular_plurals.tsv": "", "derivations.tsv": derivations, "noun_adjective.tsv": noun_adjective,
             "word_clusters.tsv": word_clusters, "function_words.tsv": function_words}
    for name, text in files.items():
        (lexicon_dir / name).write_text(text)
    lexicon = Lexicon()
    for name in names:
        lexicon.add(name.lower(), Entry(2, ("HP:0000001",), name, "name"))
    lexicon.finalize()
    return WordSetIndex.build(lexicon, PhraseMatcher(lexicon), lexicon_dir)


def test_a_run_names_the_word_family_rows_that_made_its_words_the_term_s(tmp_path):
    index = index_of(
        tmp_path, ("hypoplastic mandible", "developmental delay", "wide mouth"), derivations="# ending\tending\nal\t\n",
        noun_adjective="# noun\tadjective\nhypoplasia\thypoplastic\n", word_clusters="# words\nbroad\twide\n", function_words="of\tskip\nthe\tskip\n",
    )
    assert [str(ref) for ref in index.family_rows("hypoplasia of the mandibles", "hypoplastic mandible")] == ["noun_adjective.tsv:2"]
    assert [str(ref) for ref in index.family_rows("delay of development", "developmental delay")] == ["derivations.tsv:2"]
    assert [str(ref) for ref in index.family_rows("broad mouth", "Wide mouth")] == ["word_clusters.tsv:2"]
    assert index.family_rows("mouths wide", "wide mouth") == ()  # the term's own words, inflected


def test_the_stage_writes_the_word_family_rows_after_word_order():
    nlp = with_terms(build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}), [("developmental delay", "HP:0001263", "")])
    doc = nlp(make_text_doc(nlp, "He had delayed development."))
    (span,) = doc.spans[PHENOTYPES]
    rows = nlp.get_pipe("word_order").kb.word_sets.family_rows("delayed development", "developmental delay")
    assert rows and stage_rules(span) == ["name", "word_order", *(f"word_family:{ref}" for ref in rows)]


CREATINE = ("elevated circulating creatine concentration", "HP:0034291", "")
T_CELLS = ("low t cell count", "HP:0005403", "")


def test_quantity_words_are_left_out_beside_a_change_word_on_both_sides():
    assert found([CREATINE], "elevated levels of creatine") == [("elevated levels of creatine", "HP:0034291")]
    assert found([CREATINE], "creatine was elevated") == []  # 'was' ends the run
    assert found([CREATINE], "creatine elevated") == [("creatine elevated", "HP:0034291")]
    assert found([T_CELLS], "low T-cells") == [("low T-cells", "HP:0005403")]
    assert found([("elevated serum ast", "HP:0031956", "")], "Elevated AST") == [("Elevated AST", "HP:0031956")]
    # the key's own set still matches ('blood' is no quantity word: "blood cell", "blood pressure")
    assert found([("decreased blood leukocyte number", "HP:0001882", "")], "decreased blood leukocyte number") == [
        ("decreased blood leukocyte", "HP:0001882"),
        ("decreased blood leukocyte number", "HP:0001882"),
    ]
    assert found([("low t cells", "HP:0005403", "")], "low T cell counts") == [("low T cell", "HP:0005403"), ("low T cell counts", "HP:0005403")]


def test_quantity_words_stay_without_a_change_word():
    assert found([("t cell count", "HP:0000001", "")], "T-cells") == []
    assert found([("t cell", "HP:0000001", "")], "T cell count") == [("T cell", "HP:0000001")]  # 'count' is not left out


def test_a_key_keeps_two_words_or_more():
    assert found([("elevated serum concentration", "HP:0000001", "")], "elevated serum") == []
    assert found([("elevated serum concentration", "HP:0000001", "")], "elevated serum concentration") == [("elevated serum concentration", "HP:0000001")]


def test_a_set_left_without_its_quantity_words_never_takes_a_key_s_own_set():
    counted = ("decreased b cell count", "HP:0000001", "")  # ranks first: without the guard it would take the set
    own = ("decreased b cells", "HP:0000009", "")
    assert found([counted, own], "decreased B cells") == [("decreased B cells", "HP:0000009")]
    assert found([counted], "decreased B cells") == [("decreased B cells", "HP:0000001")]
    assert found([counted, own], "decreased B cell count") == [("decreased B cell", "HP:0000009"), ("decreased B cell count", "HP:0000001")]


def test_a_run_does_not_start_with_a_quantity_word_it_leaves_out():
    assert found([CREATINE], "serum creatine elevated") == [("creatine elevated", "HP:0034291")]
    # a run that keeps it as the key's word starts there
    assert found([("elevated serum ast", "HP:0031956", "")], "serum AST elevated") == [("serum AST elevated", "HP:0031956"), ("AST elevated", "HP:0031956")]


def test_a_skipped_word_never_joins_a_set_left_without_its_quantity_words():
    urinary = ("urinary retention", "HP:0000016", "")  # makes 'urinary' a word of an indexed set
    assert found_skipping_one([CREATINE, urinary], "elevated urinary creatine") == []
    assert found_skipping_one([("elevated creatine", "HP:0034291", ""), urinary], "elevated urinary creatine") == [
        ("elevated urinary creatine", "HP:0034291")
    ]


def test_a_run_names_the_function_word_rows_of_the_quantity_words_it_left_out(tmp_path):
    index = index_of(
        tmp_path, ("Elevated serum creatine",), word_clusters="# words\nincreased\televated\n",
        function_words="of\tskip\nlevel\tquantity\nserum\tquantity\nincreased\tchange\n",
    )
    rows = ["function_words.tsv:2", "function_words.tsv:3", "function_words.tsv:4"]
    assert [str(ref) for ref in index.quantity_rows("increased levels of creatine", "Elevated serum creatine")] == rows
    assert index.quantity_rows("creatine in serum elevated", "Elevated serum creatine") == ()  # nothing left out


def test_the_stage_writes_the_quantity_rows_after_word_order():
    nlp = with_terms(build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}), [CREATINE])
    doc = nlp(make_text_doc(nlp, "She had elevated levels of creatine."))
    (span,) = doc.spans[PHENOTYPES]
    rows = nlp.get_pipe("word_order").kb.word_sets.quantity_rows("elevated levels of creatine", "elevated circulating creatine concentration")
    assert span.text == "elevated levels of creatine"
    assert [ref.name for ref in rows] == ["level", "concentration", "circulating", "increased"]
    assert stage_rules(span) == ["name", "word_order", *(f"quantity:{ref}" for ref in rows)]


def test_the_cache_keeps_the_quantity_words_and_sets(tmp_path, mini_ontology):
    from phenorules.kb.cache_file import cache_budget, read_cache_file, store_entry
    from phenorules.kb.resources import resources_from_cache, resources_sections

    compiled = compile_terms([CREATINE, T_CELLS])
    store_entry(tmp_path / "kb.cache", "kb", resources_sections(KnowledgeBase(mini_ontology, compiled.matcher, compiled.word_sets)), cache_budget())
    cached = resources_from_cache(read_cache_file(tmp_path / "kb.cache", "kb"), MINI_OBO).word_sets
    built = compiled.word_sets
    assert built.quantity_sets == {("creatine", "elevated"), ("cell", "decreased", "t")}
    assert (cached.quantity_words, cached.change_words, cached.quantity_sets) == (built.quantity_words, built.change_words, built.quantity_sets)
    assert cached.find("elevated levels of creatine", compiled.matcher) == built.find("elevated levels of creatine", compiled.matcher)


def _scanning_word_order(stage, doc, found, skipping):
    """The stage as a scan over all mentions for each match: what the indexed stage must equal."""
    from phenorules.core.document import working
    from phenorules.kb.matcher import resolve_overlaps
    from phenorules.stages.match import matched
    from phenorules.stages.word_order import RULE, SKIP_RULE

    state = working(doc)
    mentions = list(state.mentions)
    for match in resolve_overlaps(found):
        start, end = match.start, match.end
        overlapping = [m for m in mentions if m.start < end and start < m.end]
        if any(m.start < start or m.end > end for m in overlapping):
            continue
        if any(m.start == start and m.end == end for m in overlapping):
            continue
        mentions = [m for m in mentions if m not in overlapping]
        mentions.append(matched(doc, state, match, stage.kb, [RULE]))
    for match in resolve_overlaps(skipping):
        if any(m.start < match.end and match.start < m.end for m in mentions):
            continue
        mentions.append(matched(doc, state, match, stage.kb, [SKIP_RULE]))
    return sorted(mentions, key=lambda m: (m.start, m.end))


word_runs = st.lists(st.tuples(st.integers(0, 29), st.integers(1, 4)), max_size=12)


@settings(max_examples=100, deadline=None)
@given(word_runs, word_runs, word_runs)
def test_the_indexed_stage_equals_a_scan_over_all_mentions(mini_ontology, mentioned, reordered, skipping):
    """Random mentions and order-free matches over 30 words ('w w w ...', word i at 2i)."""
    from types import SimpleNamespace

    from phenorules.core.document import working
    from phenorules.core.phenotype import Phenotype
    from phenorules.kb.matcher import Match
    from phenorules.stages.word_order import WordOrder

    entry = Entry(2, ("HP:0000175",), "cleft palate", "name", "")

    def extents(runs):
        return [(2 * first, 2 * min(first + size, 30) - 1) for first, size in runs]

    def matches(runs):
        return [Match(start, end, entry) for start, end in extents(runs)]

    no_rows = lambda run, term: ()  # noqa: E731
    word_sets = SimpleNamespace(
        words=lambda text, table=None: None, family_rows=no_rows, quantity_rows=no_rows,
        find=lambda text, matcher, words: matches(reordered), find_skipping_one=lambda text, matcher, words: matches(skipping),
    )
    stage = WordOrder(SimpleNamespace(word_sets=word_sets, ontology=mini_ontology, matcher=None))
    results = []
    for run in (stage, lambda doc: _scanning_word_order(stage, doc, matches(reordered), matches(skipping))):
        doc = make_text_doc(spacy.blank("en"), " ".join(["w"] * 30))
        working(doc).mentions = [Phenotype(start, end, "", (), "", ["name"]) for start, end in extents(mentioned)]
        out = run(doc)
        mentions = working(out).mentions if hasattr(out, "user_data") else out
        results.append([(m.start, m.end, tuple(m.provenance)) for m in mentions])
    assert results[0] == results[1]


def test_a_run_stating_the_absence_of_a_term_is_no_term_through_the_absence_family():
    terms = [("aplastic anemia", "HP:0001915", ""), ("anemia", "HP:0001903", ""), ("absent thumb", "HP:0009777", "")]
    nlp = with_terms(build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}), terms)
    doc = nlp(make_text_doc(nlp, "Her count showed absence of anemia, and absence of the thumb on the left."))
    assert [(span.text, task_identifier(span._.hpo_ids)) for span in doc.spans[PHENOTYPES]] == [
        ("anemia", "HP:0001903"),  # absence = aplasia (word_clusters.tsv), but 'anemia' is a term by itself
        ("absence of the thumb", "HP:0009777"),
    ]
    assert [(doc.text[start:end], rule) for start, end, _, rule in doc._.dropped] == [("absence of anemia", "word_order:absence:word_order.tsv:8")]


def test_the_content_words_of_many_keys_read_each_word_once():
    """A build reads the content words of every key (364,000 for the ontology): each
    distinct word's base word is found once, not once per key that holds it."""
    index = compile_terms([ELBOW, ("bird-like facies", "HP:0000000", "")]).word_sets
    read = []
    base = index.morphology.base
    index.morphology.base = lambda word: read.append(word) or base(word)
    phrases = ["elbow flexion contracture", "flexion contractures of the elbows", "contractures of both elbows", "bird like facies", "like bird facies", "s shaped the"]
    assert [index.content_words(phrase) for phrase in phrases] == [
        ["elbow", "flexion", "contracture"],
        ["flexion", "contracture", "elbow"],
        ["contracture", "elbow"],
        ["bird", base("facies")],
        [base("like"), "bird", base("facies")],
        [base("s")],
    ]
    assert sorted(read) == sorted(set(read)) and "elbows" in read and "the" not in read


_INDEXED_TERMS = [ELBOW, ("short stature", "HP:0004322", ""), ("increased serum creatine kinase", "HP:0003236", "")]
_TEXT_WORDS = st.sampled_from(["flexion", "contractures", "elbows", "of", "the", "short", "stature", "serum", "increased", "creatine", "kinase", "level", "and", "with", "mild"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_TEXT_WORDS, st.sampled_from([" ", " ", ", ", "-", ". ", "\t"])), max_size=45))
def test_run_starts_are_found_alike_in_python_and_in_numpy(pieces):
    """WordSetIndex._pairs reads a text of a few words in Python and a longer one in numpy:
    both ways give the same places, on texts of either length."""
    import phenorules.kb.word_sets as word_sets

    index = compile_terms(_INDEXED_TERMS).word_sets
    text = "".join(word + gap for word, gap in pieces)
    by_length = index.words(text)
    saved = word_sets._FEW_WORDS
    try:
        word_sets._FEW_WORDS = -1
        in_numpy = index.words(text)
        word_sets._FEW_WORDS = 1 << 30
        in_python = index.words(text)
    finally:
        word_sets._FEW_WORDS = saved
    assert in_python.pairs == in_numpy.pairs == by_length.pairs


_INDEX_WORDS = ("ataxia", "cerebellar", "elbow", "flexion", "contracture", "tooth", "hypoplasia", "cortex", "visual", "delay")


@given(st.lists(st.lists(st.sampled_from(_INDEX_WORDS), min_size=1, max_size=6), max_size=30), st.data())
@settings(max_examples=200, deadline=None)
def test_a_word_set_index_reads_back_from_its_bytes_as_it_was(word_lists, data):
    """Word sets, partner lists and quantity sets go to numbers into one word list, laid out
    by length, and back: the same index, its sets and partners in the same order."""
    from phenorules.kb.lexicon.morphology import Morphology
    from phenorules.kb.word_sets import partner_words

    rows = {}
    for words in word_lists:
        rows.setdefault(tuple(sorted(words)), data.draw(st.integers(0, 2**32 - 1)))
    morphology = Morphology.from_dir(data_dir("lexicons"), set(_INDEX_WORDS))
    quantity_sets = frozenset(data.draw(st.lists(st.sampled_from(sorted(rows)), max_size=5)) if rows else ())
    index = WordSetIndex(rows, partner_words(rows), frozenset({"of"}), frozenset({"and"}), morphology, 6, quantity_sets=quantity_sets)
    back = WordSetIndex.from_bytes(index.to_bytes())
    assert back == index
    assert list(back.rows.items()) == list(index.rows.items()) and list(back.partners.items()) == list(index.partners.items())
