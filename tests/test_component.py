"""phenorules as one spaCy component in someone else's pipeline (spaCy's own tokenizer)."""

import configparser
import importlib
from pathlib import Path

import pytest
import spacy
from spacy.lang.en import English
from spacy.language import Language

import phenorules.component  # noqa: F401  (registers the factory; an install does it by entry point)
from phenorules.document import PHENOTYPE_LABEL, PHENOTYPES
from phenorules.pipeline import OPTIONAL_STAGES, STAGES, build_pipeline, stage_names, stage_plan
from phenorules.stages.match import EXPANDED_TO_TOKENS

from conftest import MINI_OBO

SETUP_CFG = Path(__file__).parent.parent / "setup.cfg"
CONFIG = {"hpo": MINI_OBO, "stages": {"match": {"use_cache": False}}}


@pytest.fixture(scope="module")
def user_nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("phenorules", config=CONFIG)
    return nlp


def found(spans):
    return [(span.text, span._.hpo_id) for span in spans]


def test_results_are_ents_and_a_span_group_with_extensions(user_nlp):
    doc = user_nlp("She had a cleft palate. Seizures began at 2 years.")
    assert found(doc.ents) == [("cleft palate", "HP:0000175"), ("Seizures", "HP:0001250")]
    assert {ent.label_ for ent in doc.ents} == {PHENOTYPE_LABEL}
    assert found(doc.spans[PHENOTYPES]) == found(doc.ents)
    span = doc.spans[PHENOTYPES][0]
    assert (span._.hpo_label, span._.provenance[0], span._.negex) == ("Cleft palate", "name", False)
    assert not span._.patient  # plain text names no patients
    assert [sent.text for sent in doc.sents] == ["She had a cleft palate.", "Seizures began at 2 years."]


def test_the_chain_runs_every_stage_of_the_pipeline_in_order(user_nlp):
    chain = user_nlp.get_pipe("phenorules")
    assert [stage for stage, _ in chain.components] == [name for name in stage_names() if name not in OPTIONAL_STAGES]


def test_an_optional_stage_runs_only_when_enabled():
    assert "measurements" in OPTIONAL_STAGES
    assert "measurements" not in [name for name, _, _ in stage_plan()]
    enabled = [name for name, _, _ in stage_plan(enable=["measurements"])]
    assert enabled == stage_names()
    with pytest.raises(ValueError, match="unknown stage"):
        stage_plan(enable=["measurement"])


def test_matches_inside_a_foreign_token_are_widened_to_it(user_nlp):
    # spaCy's tokenizer keeps "palate;seizures" as one token; ours splits it.
    doc = user_nlp("He had cleft palate;seizures.")
    assert found(doc.spans[PHENOTYPES]) == [("cleft palate;seizures", "HP:0000175"), ("palate;seizures", "HP:0001250")]
    assert [span._.provenance for span in doc.spans[PHENOTYPES]] == [["name", EXPANDED_TO_TOKENS], ["synonym:EXACT", EXPANDED_TO_TOKENS]]
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
    assert loaded.pipe_names == ["phenorules"]
    assert found(loaded(text).ents) == [("cleft palate", "HP:0000175"), ("short stature", "HP:0004322")]


def test_the_ontology_goes_to_every_stage_that_has_the_setting():
    nlp = build_pipeline(hpo=MINI_OBO, stage_config={"match": {"use_cache": False}}, enable=OPTIONAL_STAGES)
    for name, factory in STAGES:
        if "hpo" in Language.get_factory_meta(factory).default_config:
            assert nlp.get_pipe_config(name)["hpo"] == MINI_OBO


def spacy_entry_points() -> dict[str, str]:
    parser = configparser.ConfigParser()
    parser.read(SETUP_CFG)
    lines = parser["options.entry_points"]["spacy_factories"].strip().splitlines()
    return dict(line.replace(" ", "").split("=") for line in lines)


def test_every_factory_is_an_entry_point_naming_its_own_function():
    """After ``pip install``, spaCy finds each factory by its entry point, with no import."""
    entry_points = spacy_entry_points()
    assert set(entry_points) == {"phenorules"} | {factory for _, factory in STAGES}
    for factory, target in entry_points.items():
        module, function = target.split(":")
        assert spacy.registry.factories.get(factory) is getattr(importlib.import_module(module), function)


def test_refining_stages_use_the_chains_own_match_stage():
    from phenorules.stages.match import RefinesMatches

    nlp = spacy.blank("en")
    nlp.add_pipe("phenorules", config={"hpo": MINI_OBO, "stages": {"match": {"use_cache": False, "variant_rules": []}}})
    components = dict(nlp.get_pipe("phenorules").components)
    refining = [c for c in components.values() if isinstance(c, RefinesMatches)]
    assert refining and all(c.source is components["match"] for c in refining)
