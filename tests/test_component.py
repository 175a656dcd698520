"""phenorules in someone else's spaCy pipeline (spaCy's own tokenizer): its stages as pipes, one call."""

import configparser
import importlib
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
import spacy
from spacy.lang.en import English
from spacy.language import Language

from phenorules.component import add_pipes  # (registers the factory; an install does it by entry point)
from phenorules.core.article import Article, GivenMention, Passage, Patient
from phenorules.core.document import DOC_EXTENSIONS, PHENOTYPE_LABEL, PHENOTYPES, SPAN_EXTENSIONS, make_article_doc
from phenorules.kb.knowledge_base import KnowledgeBase
from phenorules.kb.ontology import load_ontology
from phenorules.stages.pipeline import OPTIONAL_STAGES, STAGES, build_pipeline, stage_names, stage_plan
from phenorules.stages.match import EXPANDED_TO_TOKENS

from conftest import MINI_OBO, compile_terms, stage_rules
from phenorules.formats.patientphex.identifiers import task_identifier

SETUP_CFG = Path(__file__).parent.parent / "setup.cfg"
CONFIG = {"hpo": MINI_OBO, "kb": {"use_cache": False}}


@pytest.fixture(scope="module")
def user_nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("phenorules", config=CONFIG)
    return nlp


def found(spans):
    return [(span.text, task_identifier(span._.hpo_ids)) for span in spans]


def test_results_are_ents_and_a_span_group_with_extensions(user_nlp):
    doc = user_nlp("She had a cleft palate. Seizures began at 2 years.")
    assert found(doc.ents) == [("cleft palate", "HP:0000175"), ("Seizures", "HP:0001250")]
    assert {ent.label_ for ent in doc.ents} == {PHENOTYPE_LABEL}
    assert found(doc.spans[PHENOTYPES]) == found(doc.ents)
    span = doc.spans[PHENOTYPES][0]
    assert (span._.hpo_label, span._.provenance[0], span._.negex) == ("Cleft palate", "name", False)
    assert span._.patient == ["proband"]  # plain text lists no patients: it is about one
    assert [sent.text for sent in doc.sents] == ["She had a cleft palate.", "Seizures began at 2 years."]


def _extension_values(doc):
    """repr (which tells a tuple from a list) of every Doc and phenotype Span extension."""
    values = [(name, repr(doc._.get(name))) for name in sorted(DOC_EXTENSIONS)]
    for span in doc.spans[PHENOTYPES]:
        values += [(span.start_char, name, repr(span._.get(name))) for name in sorted(SPAN_EXTENSIONS)]
    return values


def test_extensions_keep_their_types_across_processes(user_nlp):
    texts = ["The boy had cleft palate and no seizures.", "Micrognathia, VSD and oedema were seen under seizure precautions."] * 2
    serial = list(user_nlp.pipe(texts))
    assert type(serial[0].spans[PHENOTYPES][0]._.hpo_ids) is tuple
    assert [_extension_values(doc) for doc in user_nlp.pipe(texts, n_process=2)] == [_extension_values(doc) for doc in serial]
    assert any(doc._.dropped for doc in serial)  # a tuple of a tuple inside a list, kept
    # a Doc with the article's patients (dataclasses, which msgpack cannot write) goes to the workers and back
    nlp = build_pipeline(hpo=MINI_OBO)
    article = Article(
        "case-7",
        (Passage(0, "II-1 had seizures. Her sister II-2 had ataxia.", "CASE"),),
        patients=(Patient("a", label="II-1"), Patient("b", label="II-2", mentions=(GivenMention(30, 34, "II-2"),))),
    )
    serial = list(nlp.pipe([make_article_doc(nlp, article)] * 2))
    parallel = list(nlp.pipe([make_article_doc(nlp, article)] * 2, n_process=2))
    assert serial[0]._.patients == article.patients and serial[0]._.associations == {"a": ["HP:0001250"], "b": ["HP:0001251"]}
    assert [_extension_values(doc) for doc in parallel] == [_extension_values(doc) for doc in serial]


def test_every_stage_of_the_pipeline_is_a_pipe_in_order(user_nlp):
    # the general profile runs the predicative and growth stages and leaves PatientPheX's annotation scope out
    assert user_nlp.pipe_names == [name for name in stage_names() if name not in (OPTIONAL_STAGES - {"predicative", "growth"}) | {"scope"}] + ["phenorules"]


def test_a_general_stage_can_be_disabled_and_coordination_patterns_set():
    nlp = spacy.blank("en")
    nlp.add_pipe("phenorules", config={"hpo": str(MINI_OBO), "kb": {"use_cache": False}, "disable": ["predicative"], "stages": {"coordination": {"patterns": ["inner_modifier"]}}})
    assert "predicative" not in nlp.pipe_names
    assert nlp.get_pipe_config("coordination")["patterns"] == ["inner_modifier"]


def test_an_optional_stage_runs_only_when_enabled():
    assert "measurements" in OPTIONAL_STAGES
    assert "measurements" not in [name for name, _, _ in stage_plan()]
    enabled = [name for name, _, _ in stage_plan(enable=sorted(OPTIONAL_STAGES | {"names"}), profile="patientphex")]
    assert enabled == stage_names()
    with pytest.raises(ValueError, match="unknown stage"):
        stage_plan(enable=["measurement"])


def test_matches_inside_a_foreign_token_are_widened_to_it(user_nlp):
    # spaCy's tokenizer keeps "palate;seizures" as one token; ours splits it.
    doc = user_nlp("He had cleft palate;seizures.")
    assert found(doc.spans[PHENOTYPES]) == [("cleft palate;seizures", "HP:0000175"), ("palate;seizures", "HP:0001250")]
    assert [stage_rules(span) for span in doc.spans[PHENOTYPES]] == [["name", EXPANDED_TO_TOKENS], ["synonym:EXACT", EXPANDED_TO_TOKENS]]
    assert found(doc.ents) == [("cleft palate;seizures", "HP:0000175")]  # ents cannot overlap: the longest


def test_two_matches_in_one_foreign_token_give_one_span_with_its_own_values(user_nlp):
    doc = user_nlp("seizures+oedema")
    assert found(doc.spans[PHENOTYPES]) == [("seizures+oedema", "HP:0001250")]


def test_our_tokenizer_keeps_exact_offsets(mini_nlp):
    doc = mini_nlp("He had cleft palate;seizures.")
    assert found(doc.spans[PHENOTYPES]) == [("cleft palate", "HP:0000175"), ("seizures", "HP:0001250")]
    assert all(EXPANDED_TO_TOKENS not in span._.provenance for span in doc.spans[PHENOTYPES])


def test_sentences_from_the_users_pipeline_are_kept():
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("phenorules", config=CONFIG)
    doc = nlp("See Fig. 2 for the cleft palate.")
    assert [sent.text for sent in doc.sents] == ["See Fig.", "2 for the cleft palate."]  # the sentencizer's, not ours


def test_other_entities_stay_unless_a_phenotype_overlaps_them():
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns([{"label": "PERSON", "pattern": "Smith"}, {"label": "ANATOMY", "pattern": "palate"}])
    nlp.add_pipe("phenorules", config=CONFIG)
    doc = nlp("Smith saw a cleft palate.")
    assert [(ent.text, ent.label_) for ent in doc.ents] == [("Smith", "PERSON"), ("cleft palate", PHENOTYPE_LABEL)]


def test_settings_are_checked():
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="unknown stage"):
        nlp.add_pipe("phenorules", config={**CONFIG, "stages": {"spellcheck": {}}})
    with pytest.raises(ValueError, match="cannot be switched off"):
        nlp.add_pipe("phenorules", config={**CONFIG, "disable": ["match"]})


def test_config_round_trips_and_the_pipeline_saves_and_loads(user_nlp, tmp_path):
    text = "A cleft palate and short stature."
    rebuilt = English.from_config(user_nlp.config)
    assert rebuilt.config.to_str() == user_nlp.config.to_str()
    assert found(rebuilt(text).ents) == found(user_nlp(text).ents)
    user_nlp.to_disk(tmp_path / "model")
    loaded = spacy.load(tmp_path / "model")
    assert loaded.pipe_names == user_nlp.pipe_names  # the stages come back from their own config, once
    assert found(loaded(text).ents) == [("cleft palate", "HP:0000175"), ("short stature", "HP:0004322")]


def test_the_ontology_goes_to_every_stage_that_has_a_knowledge_base():
    nlp = build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, enable=OPTIONAL_STAGES)
    with_kb = [name for name, factory in STAGES if "kb" in Language.get_factory_meta(factory).default_config]
    assert {"match", "word_order", "abbreviations", "qualifiers", "coordination", "measurements"} <= set(with_kb)
    for name in with_kb:
        assert nlp.get_pipe_config(name)["kb"]["hpo"] == MINI_OBO


def spacy_entry_points() -> dict[str, str]:
    parser = configparser.ConfigParser()
    parser.read(SETUP_CFG)
    lines = parser["options.entry_points"]["spacy_factories"].strip().splitlines()
    return dict(line.replace(" ", "").split("=") for line in lines)


def test_every_factory_is_an_entry_point_naming_its_own_function():
    """After ``pip install``, spaCy finds each factory by its entry point, with no import."""
    entry_points = spacy_entry_points()
    assert set(entry_points) == {"phenorules", "phenorules_context"} | {factory for _, factory in STAGES}
    for factory, target in entry_points.items():
        module, function = target.split(":")
        assert spacy.registry.factories.get(factory) is getattr(importlib.import_module(module), function)


def test_the_stages_share_the_knowledge_base_of_their_settings(user_nlp):
    from phenorules.stages.match import RefinesMatches

    nlp = spacy.blank("en")
    nlp.add_pipe("phenorules", config={"hpo": MINI_OBO, "kb": {"use_cache": False, "variant_rules": []}})
    components = dict(nlp.pipeline)
    refining = [c for c in components.values() if isinstance(c, RefinesMatches)]
    assert refining and all(c.kb is components["match"].kb for c in refining)
    assert components["match"].kb is not user_nlp.get_pipe("match").kb  # other settings, another knowledge base


def test_add_pipes_makes_every_stage_a_pipe_of_a_blank_pipeline():
    nlp = spacy.blank("en")
    added = add_pipes(nlp, hpo=MINI_OBO, enable=sorted(OPTIONAL_STAGES | {"scope"}), kb={"use_cache": False})
    assert nlp.pipe_names == added == stage_names() + ["phenorules"]


def test_select_pipes_switches_a_stage_off_for_real(user_nlp):
    text = "She had no seizures. A cleft palate was seen."
    on = user_nlp(text)
    assert [(span.text, span._.negex) for span in on.spans[PHENOTYPES]] == [("seizures", True), ("cleft palate", False)]
    with user_nlp.select_pipes(disable=["assertion"]):
        off = user_nlp(text)
    assert not any(span._.negex for span in off.spans[PHENOTYPES])  # no "NO" note without the assertion stage
    assert found(off.spans[PHENOTYPES]) == found(on.spans[PHENOTYPES])


@spacy.registry.misc("test_hand_made_kb.v1")
@lru_cache(maxsize=None)
def hand_made_knowledge_base(hpo: str) -> KnowledgeBase:
    """One term, 'wobbly gait' (Ataxia), over the mini ontology."""
    terms = compile_terms([("wobbly gait", "HP:0001251", "")])
    return KnowledgeBase(load_ontology(hpo), terms.matcher, terms.word_sets)


def test_a_knowledge_base_of_ones_own_is_a_registered_function_named_in_the_config():
    nlp = spacy.blank("en")
    add_pipes(nlp, kb={"@misc": "test_hand_made_kb.v1", "hpo": MINI_OBO})
    doc = nlp("A wobbly gait and a cleft palate.")
    assert [(ent.text, task_identifier(ent._.hpo_ids), ent._.hpo_label) for ent in doc.ents] == [("wobbly gait", "HP:0001251", "Ataxia")]
    assert nlp.get_pipe_config("coordination")["kb"] == {"@misc": "test_hand_made_kb.v1", "hpo": MINI_OBO}
    assert all(getattr(component, "kb", nlp.get_pipe("match").kb) is nlp.get_pipe("match").kb for _, component in nlp.pipeline)
    rebuilt = English.from_config(nlp.config)
    assert found(rebuilt(doc.text).ents) == found(doc.ents)


def test_every_entity_has_its_first_hpo_id_as_kb_id(user_nlp):
    doc = user_nlp("Her brother had a cleft palate and seizures.")
    assert [(ent.text, ent.kb_id_) for ent in doc.ents] == [("cleft palate", "HP:0000175"), ("seizures", "HP:0001250")]
    assert [span.kb_id_ for span in doc.spans[PHENOTYPES]] == ["HP:0000175", "HP:0001250"]
    html = spacy.displacy.render(doc, style="ent", options={"kb_url_template": "https://hpo.jax.org/browse/term/{}"})
    assert 'href="https://hpo.jax.org/browse/term/HP:0000175"' in html


def test_kb_id_of_a_compound_is_its_first_id_and_of_no_term_nil(mini_ontology):
    from phenorules.component import PhenotypeEntities
    from phenorules.core.document import NIL

    doc = spacy.blank("en")("cleft lip/palate and an odd gait")
    compound, unknown = doc.char_span(0, 16, label=PHENOTYPE_LABEL), doc.char_span(24, 32, label=PHENOTYPE_LABEL)
    compound._.hpo_ids, unknown._.hpo_ids = ("HP:0410030", "HP:0000175"), ()
    doc.spans[PHENOTYPES] = [compound, unknown]
    doc = PhenotypeEntities(mini_ontology)(doc)
    assert [(ent.text, ent.kb_id_) for ent in doc.ents] == [("cleft lip/palate", "HP:0410030"), ("odd gait", NIL)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 3), st.sampled_from(["", "PHENOTYPE", "PERSON"]), st.sampled_from(["", "HP:1", "NIL"]), st.sampled_from(["", "E1"])), max_size=6), st.booleans())
def test_set_entities_leaves_the_tokens_as_the_ents_setter_does(pieces, earlier):
    """set_entities writes each token's entity IOB, type and KB id in one array: the same
    annotation as ``doc.ents = spans`` (spans of no label left out, every other token O),
    over a Doc that had other entities or none."""
    from spacy.attrs import ENT_ID, ENT_IOB, ENT_KB_ID, ENT_TYPE
    from spacy.tokens import Span

    from phenorules.component import set_entities

    nlp = spacy.blank("en")
    texts = [nlp.make_doc("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen") for _ in range(2)]
    spans, position = [], 0
    for gap, length, label, kb_id, span_id in pieces:
        start = position + gap
        if start + length > len(texts[0]):
            break
        spans.append((start, start + length, label, kb_id, span_id))
        position = start + length
    for doc in texts:
        if earlier:
            doc.ents = [Span(doc, 0, 2, label="OLD", kb_id="Q1", span_id="E0")]
    made = [[Span(doc, start, end, label=label, kb_id=kb_id, span_id=span_id) for start, end, label, kb_id, span_id in spans] for doc in texts]
    texts[0].ents = made[0]
    set_entities(texts[1], made[1])
    attributes = [ENT_IOB, ENT_TYPE, ENT_KB_ID, ENT_ID]
    assert texts[1].to_array(attributes).tolist() == texts[0].to_array(attributes).tolist()
