import re

import pytest

from phenorules.errors import OntologyError
from phenorules.ontology import PHENOTYPIC_ABNORMALITY, Synonym, load_ontology



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


def test_escapes_modifiers_and_comments_are_read_as_the_obo_format_defines_them(tmp_path):
    path = tmp_path / "hp.obo"
    path.write_text(
        "format-version: 1.4\ndata-version: hp/releases/x ! the release\n\n"
        "[Term]\nid: HP:0000118\nname: Phenotypic abnormality\n\n"
        "[Term]\nid: HP:0000002 ! a comment\nname: Cleft \\\"lip\\\" \\{left\\} {source=\"x\"} ! the name\n"
        'synonym: "A \\"quoted\\" one\\W" EXACT layperson [PMID:1] {source="y"}\n'
        'synonym: "Scope left out" []\n'
        'is_a: HP:0000118 {source="z"} ! Phenotypic abnormality\n\n'
        "[Typedef]\nid: part_of\nname: part of\nis_a: HP:0000002\n\n"
        "[Term]\nid: HP:0000003\nname: Old\nis_obsolete: true\nreplaced_by: HP:0000002\n",
        encoding="utf-8",
    )
    ontology = load_ontology(str(path))
    assert ontology.data_version == "hp/releases/x"
    assert ontology.names == {"HP:0000002": 'Cleft "lip" {left}', "HP:0000118": "Phenotypic abnormality"}
    assert ontology.synonyms["HP:0000002"] == (Synonym('A "quoted" one ', "EXACT", "layperson"), Synonym("Scope left out", "RELATED", ""))
    assert ontology.is_a == [("HP:0000002", "HP:0000118")] and ontology.resolve("HP:0000003") == "HP:0000002"


@pytest.mark.parametrize(
    "stanza, problem",
    [
        ("[Term]\nname: no id\n", "line 3: a [Term] stanza needs one id, not 0"),
        ('[Term]\nid: HP:0000002\nsynonym: "open EXACT []\nis_a: HP:0000118\n', "line 5: unterminated quoted string"),
    ],
)
def test_a_broken_stanza_is_a_one_line_error_naming_its_line(tmp_path, stanza, problem):
    path = tmp_path / "hp.obo"
    path.write_text(f"format-version: 1.4\n\n{stanza}\n[Term]\nid: HP:0000118\nname: Phenotypic abnormality\n", encoding="utf-8")
    with pytest.raises(OntologyError, match=re.escape(f"{path}, {problem}")):
        load_ontology(str(path))


def test_a_file_that_is_not_utf8_is_a_one_line_error(tmp_path):
    path = tmp_path / "hp.obo"
    path.write_bytes(b"format-version: 1.4\n\n[Term]\nid: HP:0000118\nname: Ph\xe9notype\n")
    with pytest.raises(OntologyError, match="not a readable OBO file"):
        load_ontology(str(path))
