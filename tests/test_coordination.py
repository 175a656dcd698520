import re

import pytest
import spacy
from hypothesis import given, settings
from hypothesis import strategies as st

from phenorules.core.document import PHENOTYPES, make_text_doc
from phenorules.core.errors import InputError
from phenorules.stages.pipeline import build_pipeline
from phenorules.kb.resources import data_dir
from phenorules.stages.coordinated_lists import phrase_alternation
from phenorules.stages.coordination import Coordination, read_list_words, read_rules

from conftest import MINI_OBO, compile_terms, stage_rules
from phenorules.formats.patientphex.identifiers import task_identifier


def mentions(nlp, text):
    doc = nlp(make_text_doc(nlp, text))
    return [(span.text, task_identifier(span._.hpo_ids)) for span in doc.spans[PHENOTYPES]]


@pytest.fixture(scope="module")
def all_patterns_nlp():
    patterns = ["shared_head", "shared_modifier", "inner_modifier", "severity_range"]
    return build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, stage_config={"coordination": {"patterns": patterns}})


def test_slashed_synonym_of_a_broader_term_becomes_a_compound(mini_nlp):
    doc = mini_nlp(make_text_doc(mini_nlp, "A boy with cleft lip/palate."))
    (span,) = doc.spans[PHENOTYPES]
    assert (span.text, task_identifier(span._.hpo_ids)) == ("cleft lip/palate", "HP:0410030;HP:0000175")
    assert span._.hpo_label == "Cleft lip; Cleft palate"
    assert stage_rules(span) == ["synonym:RELATED", "coordination:inner_modifier"]


def test_severity_range_is_one_mention_with_the_listed_degree(mini_nlp):
    assert mentions(mini_nlp, "She had mild to moderate intellectual disability.") == [
        ("mild to moderate intellectual disability", "HP:0002342")
    ]
    assert mentions(mini_nlp, "She had mild-to-moderate intellectual disability.") == [
        ("mild-to-moderate intellectual disability", "HP:0002342")
    ]


def test_unlisted_range_is_left_alone(mini_nlp):
    assert mentions(mini_nlp, "She had mild to profound intellectual disability.") == [("intellectual disability", "HP:0001249")]


def test_elided_head_patterns_are_off_by_default(mini_nlp):
    # on PatientPheX the annotators mark only the conjunct written in full
    assert mentions(mini_nlp, "atrial or ventricular septal defects") == [("ventricular septal defects", "HP:0001629")]


def test_shared_head_is_rebuilt_and_checked_against_the_lexicon(all_patterns_nlp):
    assert mentions(all_patterns_nlp, "atrial or ventricular septal defects") == [
        ("atrial or ventricular septal defects", "HP:0001631;HP:0001629")
    ]
    # "small septal defects" is no term: nothing changes
    assert mentions(all_patterns_nlp, "small or ventricular septal defects") == [("ventricular septal defects", "HP:0001629")]


def test_shared_modifier_replaces_the_single_term_mention(all_patterns_nlp):
    doc = all_patterns_nlp(make_text_doc(all_patterns_nlp, "He had cleft lip and palate."))
    (span,) = doc.spans[PHENOTYPES]
    assert (span.text, task_identifier(span._.hpo_ids)) == ("cleft lip and palate", "HP:0410030;HP:0000175")
    assert stage_rules(span) == ["name", "coordination:shared_modifier:coordination.tsv:16"]
    assert span._.parts == ((7, 16, ("HP:0410030",)), (7, 27, ("HP:0000175",)))


def test_shared_modifier_does_not_take_the_start_of_another_mention(all_patterns_nlp):
    assert mentions(all_patterns_nlp, "cleft lip, or cleft palate") == [("cleft lip", "HP:0410030"), ("cleft palate", "HP:0000175")]


def test_rules_file_with_an_unknown_pattern_is_refused(tmp_path):
    rules, ranges = tmp_path / "coordination.tsv", tmp_path / "ranges.tsv"
    rules.write_text("shared_tail\tand\n", encoding="utf-8")
    ranges.write_text("mild to moderate\tmoderate\n", encoding="utf-8")
    with pytest.raises(InputError, match="unknown kind 'shared_tail'"):
        read_rules(rules, ranges, ranges)


def test_unknown_pattern_setting_is_refused():
    with pytest.raises(ValueError, match="unknown coordination pattern"):
        build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, stage_config={"coordination": {"patterns": ["zigzag"]}})


JOINT_PAIN = [
    ("wrist pain", "HP:0030836", ""),
    ("knee pain", "HP:0030839", ""),
    ("hip pain", "HP:0030838", ""),
    ("nail abnormality", "HP:0001597", ""),
    ("hair abnormality", "HP:0001595", ""),
    ("spine abnormality", "HP:0000925", ""),
]


def list_compounds(text, terms=JOINT_PAIN, min_items=3):
    rules_dir = data_dir("rules")
    rules = read_rules(rules_dir / "coordination.tsv", rules_dir / "severity_ranges.tsv", rules_dir / "coordinated_lists.tsv")
    stage = Coordination(rules, compile_terms(terms), ("distributed_list",), min_items)
    return [(text[c.start : c.end], c.hpo_ids) for c in stage.distributed_lists(text)]


def test_finding_before_a_list_is_distributed_over_its_parts():
    assert list_compounds("He had pain in his wrists, knees, and hips.") == [
        ("pain in his wrists, knees, and hips", ("HP:0030836", "HP:0030839", "HP:0030838"))
    ]


def test_finding_after_a_list_is_distributed_over_its_parts():
    assert list_compounds("no spine, nail, or hair abnormalities were seen") == [
        ("spine, nail, or hair abnormalities", ("HP:0000925", "HP:0001597", "HP:0001595"))
    ]


def test_every_part_must_make_a_term():
    assert list_compounds("pain in his wrists, knees, and teeth") == []


def test_lists_of_two_are_left_alone_by_default():
    assert list_compounds("pain in his wrists and knees") == []
    assert list_compounds("pain in his wrists and knees", min_items=2) == [("pain in his wrists and knees", ("HP:0030836", "HP:0030839"))]


def test_a_list_of_one_item_is_refused():
    with pytest.raises(ValueError, match="min_list_items must be at least 2"):
        build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, stage_config={"coordination": {"min_list_items": 1}})


def test_list_rules_with_an_unknown_kind_are_refused(tmp_path):
    path = tmp_path / "lists.tsv"
    path.write_text("adverb\tbilaterally\n", encoding="utf-8")
    with pytest.raises(InputError, match="unknown kind 'adverb'"):
        read_list_words(path)


LIST_ITEMS = ("knee", "hip", "and", "or", "AND", "Or", "co-morbid", "x-1", "1a", "é", "_", "")
LIST_SEPARATORS = (", ", ", ", ", ", " ", ", and ", " or ", " and/or ", ",", "-", "\n")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(LIST_ITEMS), st.sampled_from(LIST_SEPARATORS)).map("".join), max_size=15), st.integers(2, 4))
def test_lists_are_found_where_the_regex_tried_at_every_position_finds_them(mini_ontology, pieces, min_items):
    """Coordination.item_lists tries the list regex only where a list can start: the
    same matches as ``finditer``, which tries it everywhere."""
    from types import SimpleNamespace

    rules = read_rules(data_dir("rules") / "coordination.tsv", data_dir("rules") / "severity_ranges.tsv", data_dir("rules") / "coordinated_lists.tsv")
    stage = Coordination(rules, SimpleNamespace(ontology=mini_ontology), ("distributed_list",), min_items)
    text = "".join(pieces)
    assert [found.span() for found in stage.item_lists(text)] == [found.span() for found in stage.item_list.finditer(text)]
    # the runs it starts from: each whole run of word characters and hyphens that ', ' or a list end follows
    conjunctions = phrase_alternation(read_list_words(data_dir("rules") / "coordinated_lists.tsv")["conjunction"])
    runs = re.compile(rf"(?<![\w-])[\w-]++(?=, |,? (?:{conjunctions}) )", re.IGNORECASE)
    assert stage.list_runs(text) == [found.span() for found in runs.finditer(text)]


def _scanning_merge(doc, state, compounds, ontology):
    """Compounds placed by a scan over all chosen ones and all mentions: what merge must equal."""
    from phenorules.core.phenotype import Phenotype

    chosen, mentions = [], state.mentions
    for compound in sorted(compounds, key=lambda c: (c.start - c.end, c.start, c.hpo_ids)):
        if any(compound.start < m.end and m.start < compound.end for m in chosen):
            continue
        if doc.char_span(compound.start, compound.end) is None:
            continue
        covered = [m for m in mentions if m.start < compound.end and compound.start < m.end]
        provenance = [p for m in covered for p in m.provenance] + [compound.rule]
        chosen.append(Phenotype(compound.start, compound.end, "", compound.hpo_ids, ontology.label(compound.hpo_ids), provenance))
    kept = [m for m in mentions if not any(m.start < c.end and c.start < m.end for c in chosen)]
    return sorted(kept + chosen, key=lambda m: (m.start, m.end))

word_ranges = st.lists(st.tuples(st.integers(0, 24), st.integers(1, 5)), max_size=12)


@settings(max_examples=100, deadline=None)
@given(word_ranges, word_ranges)
def test_merge_equals_a_scan_over_all_mentions(mini_ontology, mentioned, compounded):
    """Random mentions and compounds over 25 words ('w w w ...', word i at 2i); a
    compound may end inside a word (then it is no span and not placed)."""
    from phenorules.core.document import working
    from phenorules.core.phenotype import Phenotype
    from phenorules.stages.compounds import Compound, merge

    results = []
    for place in (merge, _scanning_merge):
        doc = make_text_doc(spacy.blank("en"), " ".join(["w"] * 25))
        state = working(doc)
        extents = [(2 * first, 2 * min(first + size, 25) - 1) for first, size in mentioned]
        state.mentions = [Phenotype(start, end, "", (), "", [f"mention:{i}"]) for i, (start, end) in enumerate(extents)]
        compounds = [Compound(2 * first, 2 * min(first + size, 25) - 1 - (size == 5), ("HP:0000175",), f"rule:{i}") for i, (first, size) in enumerate(compounded)]
        results.append([(m.start, m.end, tuple(m.provenance)) for m in place(doc, state, compounds, mini_ontology)])
    assert results[0] == results[1]


ELIDED = [
    ("conductive hearing impairment", "HP:0000405", ""),
    ("conductive deafness", "HP:0000405", ""),
    ("sensorineural deafness", "HP:0000407", ""),
    ("bilateral cleft lip", "HP:0100336", ""),
    ("bilateral cleft palate", "HP:0100337", ""),
    ("mild intellectual disability", "HP:0001256", ""),
    ("moderate intellectual disability", "HP:0002342", ""),
    ("severe intellectual disability", "HP:0010864", ""),
    ("short 3rd metatarsal", "HP:0004686", ""),
    ("short fourth metatarsal", "HP:0004689", ""),
    ("short 5th metatarsal", "HP:0004704", ""),
    ("2-3 toe syndactyly", "HP:0004691", ""),
    ("2-4 toe syndactyly", "HP:0010714", ""),
]


def elided(text, terms=ELIDED):
    rules_dir = data_dir("rules")
    rules = read_rules(rules_dir / "coordination.tsv", rules_dir / "severity_ranges.tsv", rules_dir / "coordinated_lists.tsv")
    stage = Coordination(rules, compile_terms(terms), ("shared_head", "shared_modifier", "ordinal"))
    return [(text[r.start : r.end], r.hpo_ids, r.kind) for r in stage.readings(text)]


def test_shared_head_reading_rebuilds_each_conjunct():
    assert elided("He had conductive and sensorineural deafness.") == [
        ("conductive and sensorineural deafness", (("HP:0000405",), ("HP:0000407",)), "shared_head")
    ]


def test_shared_modifier_of_two_words_is_lent_whole():
    assert elided("She had bilateral cleft lip and palate.") == [
        ("bilateral cleft lip and palate", (("HP:0100336",), ("HP:0100337",)), "shared_modifier")
    ]


def test_every_conjunction_of_the_rules_joins_conjuncts():
    for conjunction in ("or", "and/or", "as well as", ",", "/"):
        text = f"mild {conjunction} moderate intellectual disability".replace(" , ", ", ").replace(" / ", "/")
        found = elided(text)
        assert [ids for _, ids, _ in found] == ([(("HP:0001256",), ("HP:0002342",))] if conjunction != "," else []), conjunction


def test_a_list_of_three_shares_its_head():
    assert elided("mild, moderate or severe intellectual disability") == [
        ("mild, moderate or severe intellectual disability", (("HP:0001256",), ("HP:0002342",), ("HP:0010864",)), "shared_head")
    ]


def test_ordinals_are_rebuilt_in_each_written_form():
    # the lexicon has "short 3rd metatarsal" and "short fourth metatarsal"
    assert elided("short third and 4th metatarsals") == [
        ("short third and 4th metatarsals", (("HP:0004686",), ("HP:0004689",)), "ordinal")
    ]


def test_ordinal_pairs_and_ranges_make_the_joint_term_when_the_ontology_has_it():
    assert elided("syndactyly of the 2nd and 3rd toes")[0][:2] == ("syndactyly of the 2nd and 3rd toes", (("HP:0004691",),))
    assert elided("second to fourth toe syndactyly")[0][:2] == ("second to fourth toe syndactyly", (("HP:0010714",),))
    assert elided("syndactyly of toes II-IV")[0][:2] == ("syndactyly of toes II-IV", (("HP:0010714",),))


def test_a_range_lists_every_number_between():
    assert elided("short 3rd-5th metatarsals") == [
        ("short 3rd-5th metatarsals", (("HP:0004686",), ("HP:0004689",), ("HP:0004704",)), "ordinal")
    ]


def test_no_reading_when_a_conjunct_is_no_term():
    assert elided("conductive and mixed deafness") == []
    assert elided("hypotonia and seizures") == []
    assert elided("seen on the second to fourth day") == []


def test_the_spacy_component_gives_one_term_span_per_phenotype():
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("phenorules", config={"hpo": str(MINI_OBO), "kb": {"use_cache": False}})
    doc = nlp("He had cleft lip and palate.")
    assert [(span.text, span.kb_id_, span._.coordination.text) for span in doc.spans["phenotype_terms"]] == [
        ("cleft lip", "HP:0410030", "cleft lip and palate"),
        ("cleft lip and palate", "HP:0000175", "cleft lip and palate"),
    ]
    assert [(span.text, span._.hpo_ids) for span in doc.spans[PHENOTYPES]] == [("cleft lip and palate", ("HP:0410030", "HP:0000175"))]


def test_an_ordinal_reading_names_the_rows_of_its_numbers():
    rules_dir = data_dir("rules")
    rules = read_rules(rules_dir / "coordination.tsv", rules_dir / "severity_ranges.tsv", rules_dir / "coordinated_lists.tsv")
    stage = Coordination(rules, compile_terms(ELIDED), ("ordinal",))
    (reading,) = stage.readings("short third and 4th metatarsals")
    assert reading.compound().rule == "coordination:ordinal:coordination.tsv:11+ordinals.tsv:8+ordinals.tsv:19"


def test_a_digit_that_is_no_ascii_number_is_no_ordinal(all_patterns_nlp):
    """'¹'.isdigit() is true, int('¹') fails: a superscript before a conjunction is text."""
    doc = all_patterns_nlp(make_text_doc(all_patterns_nlp, "¹ and ² toes; ¹ and seizures"))
    assert all(span._.hpo_ids for span in doc.spans[PHENOTYPES])


def coordinated(terms, patterns, text, names=()):
    """The mentions of ``text`` after the match and coordination stages over ``terms``;
    ``names`` are the ontology's term names (the words that head a noun phrase)."""
    from types import SimpleNamespace

    from phenorules.core.document import working
    from phenorules.kb.knowledge_base import head_words
    from phenorules.stages.match import PhenotypeMatcher

    kb = compile_terms(terms)
    kb.ontology = SimpleNamespace(label=lambda hpo_ids: "", names=dict(enumerate(names)), synonyms={})
    kb.head_words = head_words(kb.ontology, kb.word_sets.morphology)
    rules_dir = data_dir("rules")
    rules = read_rules(rules_dir / "coordination.tsv", rules_dir / "severity_ranges.tsv", rules_dir / "coordinated_lists.tsv", rules_dir / "ordinals.tsv")
    doc = make_text_doc(spacy.blank("en"), text)
    Coordination(rules, kb, patterns)(PhenotypeMatcher(kb)(doc))
    return [(mention.text, mention.hpo_ids) for mention in working(doc).mentions]


def test_a_reading_never_cuts_a_mention_off_at_its_end():
    terms = [("renal anomalies", "HP:0000077", ""), ("hearing anomalies", "HP:0000364", ""), ("sensorineural hearing", "HP:0000407", "")]
    terms.append(("sensorineural hearing loss", "HP:0000407", ""))
    # not 'anomalies and sensorineural hearing' (hearing anomalies; sensorineural hearing)
    assert coordinated(terms, ("shared_head", "shared_modifier"), "The renal anomalies and sensorineural hearing loss were noted.") == [
        ("renal anomalies", ("HP:0000077",)),
        ("sensorineural hearing loss", ("HP:0000407",)),
    ]


def test_n_m_stands_for_the_numbers_from_n_to_m_only():
    terms = [("2-3 toe syndactyly", "HP:0004691", ""), ("5-minute apgar score of 1", "HP:0030921", "")]
    assert coordinated(terms, ("ordinal",), "He had 2 and 3 toe syndactyly.") == [("2 and 3 toe syndactyly", ("HP:0004691",))]
    assert coordinated(terms, ("ordinal",), "Apgar scores at 1 and 5 minutes were 3 and 7.") == []


def test_a_comma_before_the_conjunction_of_two_items_parts_two_findings(all_patterns_nlp):
    assert mentions(all_patterns_nlp, "atrial, and ventricular septal defects") == [("ventricular septal defects", "HP:0001629")]
    assert mentions(all_patterns_nlp, "atrial and ventricular septal defects") == [("atrial and ventricular septal defects", "HP:0001631;HP:0001629")]


def test_a_reading_never_cuts_a_mention_off_at_its_start():
    terms = [("bowed long bones", "HP:0006487", ""), ("broad ribs", "HP:0000885", ""), ("bones ribs", "HP:0041159", "")]
    # not 'bones and broad ribs' sharing 'ribs' (bones ribs; broad ribs)
    assert coordinated(terms, ("shared_head",), "It showed bowed long bones and broad ribs.") == [
        ("bowed long bones", ("HP:0006487",)),
        ("broad ribs", ("HP:0000885",)),
    ]


def test_a_mention_matched_in_another_word_order_gives_way_to_a_reading_at_its_start():
    from phenorules.core.intervals import Extents

    rules_dir = data_dir("rules")
    rules = read_rules(rules_dir / "coordination.tsv", rules_dir / "severity_ranges.tsv", rules_dir / "coordinated_lists.tsv")
    stage = Coordination(rules, compile_terms([("wide nasal bridge", "HP:0000431", ""), ("flat nasal bridge", "HP:0005280", "")]), ("shared_head",))
    text = "the mask-like face with a wide and flat nasal bridge"
    (reading,) = stage.readings(text)
    mention = (text.index("face"), text.index("wide") + len("wide"))  # 'face with a wide': Broad face, words reordered
    assert stage.keeps(reading, text, [(*mention, False)], Extents([mention]))
    assert not stage.keeps(reading, text, [(*mention, True)], Extents([mention]))


def test_a_shared_modifier_is_not_lent_to_a_word_that_modifies_the_next_one():
    terms = [("abnormal eye", "HP:0000478", ""), ("abnormal hand", "HP:0001155", ""), ("dysarthria", "HP:0001260", "")]
    names = ["Abnormality of eye movement", "Dysarthria"]
    text = "poor balance, abnormal eye and hand movements, and dysarthria"
    assert coordinated(terms, ("shared_modifier",), text, names) == [("abnormal eye", ("HP:0000478",)), ("dysarthria", ("HP:0001260",))]
    text = "abnormal eye and hand in two patients"
    assert coordinated(terms, ("shared_modifier",), text, names) == [("abnormal eye and hand", ("HP:0000478", "HP:0001155"))]


def test_a_slash_that_a_hyphen_could_stand_for_joins_one_word():
    terms = [("generalized tonic seizures", "HP:0010818", ""), ("generalized clonic seizures", "HP:0011169", "")]
    assert elided("generalized tonic/clonic seizures", terms)[0][1] == (("HP:0010818",), ("HP:0011169",))
    assert elided("generalized tonic/clonic seizures", terms + [("tonic clonic seizures", "HP:0002069", "")]) == []
    assert elided("generalized tonic and clonic seizures", terms + [("tonic clonic seizures", "HP:0002069", "")])[0][1] == (("HP:0010818",), ("HP:0011169",))


def test_a_long_run_of_spaces_between_passages_is_read_once():
    """The newlines between passages laid out at their offsets: a site's spaces are taken
    possessively from a non-space; read from every position of the run, 60,000 newlines
    took minutes (the regex backtracked over the run from each position)."""
    gap = "\n" * 60_000
    assert elided(f"conductive{gap}and sensorineural deafness") == [
        (f"conductive{gap}and sensorineural deafness", (("HP:0000405",), ("HP:0000407",)), "shared_head")
    ]
    assert elided(f"mild intellectual disability.{gap}Mild or moderate intellectual disability")[0][0] == "Mild or moderate intellectual disability"


def test_each_term_span_of_a_coordination_carries_the_mention_s_assertions_and_patients():
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("phenorules", config={"hpo": str(MINI_OBO), "kb": {"use_cache": False}})
    doc = nlp("There were no atrial or ventricular septal defects.")
    terms = doc.spans["phenotype_terms"]
    assert [(span.text, span.kb_id_, span._.is_negated) for span in terms] == [
        ("atrial or ventricular septal defects", "HP:0001631", True),
        ("ventricular septal defects", "HP:0001629", True),
    ]
    assert terms[1]._.patient == terms[0]._.patient and terms[1]._.provenance == terms[0]._.provenance


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab1 -\u2010'é_.,\u2019x\n", max_size=16), st.data())
def test_the_word_before_a_conjunction_is_the_unit_a_search_ending_there_finds(text, data):
    """compounds.unit_ending_at reads backwards what the unit pattern, searched for from the
    window's start to its end, finds ending there."""
    from phenorules.stages.coordination import _UNIT, _UNIT_JOINERS, unit_ending_at

    end = data.draw(st.integers(0, len(text)))
    begin = data.draw(st.integers(0, end))
    found = re.compile(_UNIT.pattern + r"\Z").search(text, begin, end)
    assert unit_ending_at(text, begin, end, _UNIT_JOINERS) == (found.group() if found else None)


def test_a_past_participle_after_a_shared_modifier_is_a_verb_not_the_head_it_modifies():
    terms = [("cleft lip", "HP:0410030", ""), ("cleft palate", "HP:0000175", ""), ("dna repair", "HP:0003254", "")]
    names = ["Cleft lip", "Cleft palate", "Abnormality of DNA repair"]  # 'repair' heads a name: 'repaired' is read as it
    text = "Her cleft lip and palate repaired in infancy."
    assert coordinated(terms, ("shared_modifier",), text, names) == [("cleft lip and palate", ("HP:0410030", "HP:0000175"))]
    # a noun that heads a name still takes the last conjunct as its modifier
    assert coordinated(terms, ("shared_modifier",), "Her cleft lip and palate repair in infancy.", names) == [("cleft lip", ("HP:0410030",))]


def test_a_number_whose_phrase_is_no_term_takes_the_term_of_the_adjective_and_its_noun():
    terms = [("hypoplastic fingernail", "HP:0001804", ""), ("hypoplastic fifth fingernail", "HP:0008398", ""), ("fingernail", "HP:0001231", "")]
    assert elided("hypoplastic third to fifth fingernails", terms) == [
        ("hypoplastic third to fifth fingernails", (("HP:0001804",), ("HP:0001804",), ("HP:0008398",)), "ordinal")
    ]
    rules_dir = data_dir("rules")
    rules = read_rules(rules_dir / "coordination.tsv", rules_dir / "severity_ranges.tsv", rules_dir / "coordinated_lists.tsv")
    (reading,) = Coordination(rules, compile_terms(terms), ("ordinal",)).readings("hypoplastic 4th and 5th fingernails")
    assert reading.compound().hpo_ids == ("HP:0001804", "HP:0008398") and reading.compound().rule.endswith(":unnumbered")
    # only between an adjective and its noun: no number names the bare noun's finding
    assert elided("the 4th and 5th fingernails", terms) == []


def _left_chunks_searched(stage, text, end):
    """The chunks before a conjunction as the units searched for over the window find them."""
    from phenorules.stages.coordination import _SITE_WINDOW, _UNIT

    begin = max(0, end - _SITE_WINDOW)
    chunks, position = [[]], end
    for found in reversed(list(_UNIT.finditer(text, begin, end))):
        gap = text[found.end() : position].strip()
        if gap == "," and chunks[-1]:
            chunks.append([])
        elif gap:
            break
        if sum(map(len, chunks)) == 10 or found.group().lower() in stage.rules.conjunctions["shared_head"]:
            break
        chunks[-1].insert(0, found.span())
        position = found.start()
    return [chunk for chunk in chunks if chunk]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab1 -\u2013'é_.,\u2019\n", max_size=40) | st.lists(st.sampled_from(["cleft", "lip", ",", " ", "and", "-", "'", "x1"]), max_size=30).map("".join), st.data())
def test_the_chunks_before_a_conjunction_are_the_units_a_search_over_the_window_finds(text, data):
    """Coordination.left_chunks reads the words backwards a unit at a time: the chunks are
    those of the units found searching the window before the conjunction."""
    rules_dir = data_dir("rules")
    stage = Coordination(read_rules(rules_dir / "coordination.tsv", rules_dir / "severity_ranges.tsv", rules_dir / "coordinated_lists.tsv"), compile_terms([]), ("shared_head",))
    end = data.draw(st.integers(0, len(text)))
    assert stage.left_chunks(text, end) == _left_chunks_searched(stage, text, end)


def test_a_severity_range_without_to_is_still_searched_for(tmp_path):
    """The texts before mentions are searched for a range only where they hold "to", as
    long as every row does: a row written otherwise turns the shortcut off."""
    rules_dir = data_dir("rules")
    ranges = tmp_path / "severity_ranges.tsv"
    ranges.write_text("mild or moderate\tmoderate\n", encoding="utf-8")
    terms = [("moderate intellectual disability", "HP:0002342", ""), ("intellectual disability", "HP:0001249", "")]
    stage = Coordination(read_rules(rules_dir / "coordination.tsv", ranges, rules_dir / "coordinated_lists.tsv"), compile_terms(terms), ("severity_range",))
    assert not stage.ranges_need_to
    from phenorules.core.document import working
    from phenorules.core.phenotype import Phenotype
    from phenorules.stages.coordination import Context

    text = "She had mild or moderate intellectual disability."
    doc = spacy.blank("en").make_doc(text)
    start = text.index("intellectual")
    mention = Phenotype(start, start + len("intellectual disability"), "intellectual disability", ("HP:0001249",), "Intellectual disability", ["synonym"])
    found = stage.severity_range(Context(doc, working(doc), mention))
    assert (text[found.start : found.end], found.hpo_ids) == ("mild or moderate intellectual disability", ("HP:0002342",))


def test_a_severity_ranges_file_without_rows_reads_no_range(tmp_path):
    """A rules file that lists no range (or a list kind no row names) makes a pattern that
    never matches, not one that matches the empty text before every mention."""
    ranges = tmp_path / "severity_ranges.tsv"
    ranges.write_text("# phrase\tdegree\n", encoding="utf-8")
    nlp = build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, stage_config={"coordination": {"ranges_file": str(ranges)}})
    assert mentions(nlp, "She had mild to moderate intellectual disability.") == [("moderate intellectual disability", "HP:0002342")]
