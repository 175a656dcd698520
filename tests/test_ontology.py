import pytest

from phenorules.errors import OntologyError
from phenorules.ontology import PHENOTYPIC_ABNORMALITY, load_ontology



def test_keeps_only_the_phenotypic_abnormality_branch(mini_ontology):
    assert PHENOTYPIC_ABNORMALITY in mini_ontology
    assert "HP:0000175" in mini_ontology
    assert "HP:0000006" not in mini_ontology  # mode of inheritance
    assert "HP:0000001" not in mini_ontology


def test_release_and_graph(mini_ontology):
    assert mini_ontology.data_version == "hp/releases/test-mini"
    assert {term for term in mini_ontology.names if mini_ontology.is_ancestor(term, "HP:0000176")} == {"HP:0000175", "HP:0000202", PHENOTYPIC_ABNORMALITY}
    assert mini_ontology.is_ancestor("HP:0000202", "HP:0410030")
    assert not mini_ontology.is_ancestor("HP:0410030", "HP:0000202")


def test_alt_and_obsolete_ids_resolve(mini_ontology):
    assert mini_ontology.resolve("HP:0004426") == "HP:0000347"  # alt_id
    assert mini_ontology.resolve("HP:0000999") == "HP:0000252"  # obsolete -> replaced_by
    assert mini_ontology.resolve("HP:0000006") is None  # outside the branch
    assert mini_ontology.resolve("HP:1234567") is None


def test_synonyms_keep_scope_and_type(mini_ontology):
    synonyms = {(s.text, s.scope, s.kind) for s in mini_ontology.synonyms["HP:0001249"]}
    assert ("ID", "EXACT", "abbreviation") in synonyms


def test_missing_file_is_one_line_error(tmp_path):
    with pytest.raises(OntologyError, match="no such ontology file"):
        load_ontology(str(tmp_path / "nope.obo"))


def test_non_obo_file_is_rejected(tmp_path):
    path = tmp_path / "x.obo"
    path.write_text('{"json": true}\n')
    with pytest.raises(OntologyError, match="not an OBO file"):
        load_ontology(str(path))


def test_obo_without_phenotype_root_is_rejected(tmp_path):
    path = tmp_path / "go.obo"
    path.write_text("format-version: 1.2\n\n[Term]\nid: GO:0000001\nname: thing\n")
    with pytest.raises(OntologyError, match="HP:0000118"):
        load_ontology(str(path))
